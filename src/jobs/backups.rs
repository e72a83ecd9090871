//! The scheduled backup: on `CASHKEEPER_BACKUP_SCHEDULE`, a consistent copy
//! of the database and the documents into `<data dir>/backups/`, keeping
//! the newest `CASHKEEPER_BACKUP_KEEP` (`store::backups`).

use crate::state::AppState;
use crate::store::backups;
use std::path::PathBuf;

/// Writes one backup and rotates; answers the file, or None when it failed
/// (the failure is logged: a backup job must never take the service down).
pub async fn run(state: &AppState) -> Option<PathBuf> {
    let _running = state.jobs.backup.lock().await;
    let data_dir = state.config.data_dir.clone();
    let keep = state.config.backup_keep;
    let now = state.clock.now();
    match tokio::task::spawn_blocking(move || backups::scheduled(&data_dir, keep, now)).await {
        Ok(Ok(written)) => {
            tracing::info!(
                file = %written.file.display(),
                documents = written.documents,
                keep,
                "backup written"
            );
            Some(written.file)
        }
        Ok(Err(e)) => {
            tracing::error!(error = %crate::error::chain(&*e), "scheduled backup failed");
            None
        }
        Err(e) => {
            tracing::error!(error = %e, "scheduled backup failed");
            None
        }
    }
}
