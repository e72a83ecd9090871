//! Which batches a confirm, undo, cancel or reconcile is working on in this
//! process, so that no two run on one batch at once, and how many rows
//! each of them writes per write transaction.

use super::batch_of;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::imports::Batch;
use crate::store::users::UserId;
use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex};

/// Rows a confirm writes, and records an undo removes, per write
/// transaction: each holds the database's write lock for a fraction of a
/// second, so other users' writes wait briefly instead of for the whole
/// file (see `docs/performance.md`).
pub const CHUNK_ROWS: usize = 5_000;

/// The batches whose confirm, undo, cancel or reconcile is running in this
/// process:
/// a second one of the same batch is refused in words while the first
/// runs. What is not here but marked confirming in the database was
/// interrupted (the service stopped) and may be resumed.
static RUNNING: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Default::default);

/// A batch's place in [`RUNNING`], given up when dropped.
pub(super) struct Running(String);

impl Running {
    /// `None` while another confirm, undo or cancel of the batch runs.
    fn claim(batch_id: &str) -> Option<Running> {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running
            .insert(batch_id.to_string())
            .then(|| Running(batch_id.to_string()))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.0);
    }
}

/// Whether a confirm, undo or cancel of the batch runs in this process.
pub(super) fn is_running(batch_id: &str) -> bool {
    RUNNING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(batch_id)
}

/// Of batches reconciled in this process, the user's data version their
/// saved outcomes are of: while the user's data version still stands
/// there, reconciling again would find the same, and a confirm does not
/// (`docs/performance.md`). Unknown after a restart: then it does.
static RECONCILED: LazyLock<Mutex<HashMap<String, i64>>> = LazyLock::new(Default::default);

/// Batches [`RECONCILED`] remembers at most; past it, it starts again.
const RECONCILED_MAX: usize = 10_000;

/// Remembers that the batch's saved outcomes are those of the user's data
/// at `version`.
pub(super) fn reconciled(batch_id: &str, version: i64) {
    let mut known = RECONCILED.lock().unwrap_or_else(|e| e.into_inner());
    if known.len() >= RECONCILED_MAX {
        known.clear();
    }
    known.insert(batch_id.to_string(), version);
}

/// The data version the batch's saved outcomes are of, if a reconcile of
/// this process saved them.
pub(super) fn reconciled_at(batch_id: &str) -> Option<i64> {
    RECONCILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(batch_id)
        .copied()
}

/// Forgets the batch in [`RECONCILED`]: its confirm has begun.
pub(super) fn forget_reconciled(batch_id: &str) {
    RECONCILED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(batch_id);
}

pub(super) fn busy() -> Error {
    Error::invalid("id", Reason::ImportBusy)
}

/// The user's batch, claimed for a confirm, undo, cancel or reconcile: another
/// user's batch is unknown, and one that is busy is refused.
pub(super) async fn claim(state: &AppState, user: &UserId, id: String) -> Result<(Batch, Running)> {
    let u = user.clone();
    let b = state.db.run(move |c| batch_of(c, &u, &id)).await?;
    let running = Running::claim(&b.id).ok_or_else(busy)?;
    Ok((b, running))
}
