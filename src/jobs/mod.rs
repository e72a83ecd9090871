//! The two recurring jobs: insight generation and upcoming-payment
//! reminders. The cron routes and the bundled scheduler both run them, and
//! each job holds a lock while it runs, so it never runs twice at once.

pub mod insights;
pub mod scheduler;
pub mod upcoming;

use tokio::sync::Mutex;

/// One lock per job.
#[derive(Default)]
pub struct JobLocks {
    pub insights: Mutex<()>,
    pub upcoming: Mutex<()>,
}

/// Sends the reminders for `due`; answers how many a push service accepted.
/// Without the VAPID configuration there is nothing to send.
pub async fn push_reminders(state: &crate::app::AppState, due: &[upcoming::Due]) -> usize {
    if state.config.vapid.is_none() || due.is_empty() {
        return 0;
    }
    // Sending lands with the web-push service.
    0
}
