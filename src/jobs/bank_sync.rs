//! The morning bank sync's schedule (`docs/bank-sync.md`): on
//! `CASHKEEPER_BANK_SYNC_SCHEDULE`, the use case `app::bank::morning`
//! runs, one run at a time. What it decides (auto-confirm, the pushes,
//! asking for an approval once) is the application's.

pub use crate::app::bank::Summary;
use crate::state::AppState;

/// Runs the morning sync; a run still going makes this one wait for it.
pub async fn run(state: &AppState) -> Summary {
    let _running = state.jobs.bank_sync.lock().await;
    crate::app::bank::morning(state).await
}
