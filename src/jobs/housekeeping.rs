//! The daily housekeeping of the bundled scheduler: expired sessions are
//! deleted, so the table holds only sessions that can still sign someone in,
//! and a load of an export that the service stopped in is taken back.

use crate::app::sessions;
use crate::state::AppState;

/// When the bundled scheduler runs it (five-field cron, UTC): daily, at an
/// hour when nobody waits for it.
pub const SCHEDULE: &str = "10 4 * * *";

/// Deletes the expired sessions; answers how many, or None when it failed
/// (the failure is logged: housekeeping never takes the service down).
pub async fn run(state: &AppState) -> Option<usize> {
    let now = crate::clock::timestamp(state.clock.now());
    if let Err(e) = crate::app::export::take_back_interrupted(&state.db, now).await {
        e.log();
    }
    match sessions::delete_expired(state).await {
        Ok(removed) => {
            tracing::info!(expired_sessions = removed, "housekeeping");
            Some(removed)
        }
        Err(e) => {
            e.log();
            None
        }
    }
}
