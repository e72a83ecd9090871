//! Reconciling a batch against the account without holding the write lock
//! while it is worked out: the batch's rows and the account's records are
//! read from one snapshot, each row's outcome is worked out with no
//! connection held, and only the outcomes that changed are written, in
//! chunks of [`CHUNK_ROWS`] rows per write transaction. A confirm checks in
//! its first write transaction that the user's data did not change since
//! the snapshot (see `docs/import.md`).

use super::claims::{self, claim, CHUNK_ROWS};
use super::existing::Existing;
use super::{batch_of, batch_view, require_unconfirmed, suggest, BatchView, Summary};
use crate::domain::import::reconcile::{self, Outcome};
use crate::domain::import::BatchStatus;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::imports::{self, Batch, ToReconcile};
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Serialize;

/// A batch's rows and what reconciliation compares them with, as of one
/// moment.
pub(super) struct Snapshot {
    pub batch: Batch,
    pub rows: ToReconcile,
    pub existing: Existing,
    /// The user's data version then: any write to the user's records since
    /// moves it on.
    pub version: i64,
}

impl Snapshot {
    /// Reads the user's batch `id` and what it is compared with. On a pooled
    /// connection it is read in one read transaction, so rows and records
    /// are of the same moment; inside a write transaction it is that.
    pub fn read(c: &Connection, user: &UserId, id: &str) -> Result<Snapshot> {
        let batch = batch_of(c, user, id)?;
        let rows = imports::to_reconcile(c, &batch.id)?;
        let mut dates: Vec<NaiveDate> = rows.staged.iter().map(|r| r.date).collect();
        dates.sort_unstable();
        dates.dedup();
        let existing = Existing::read(c, user, &batch.account_id, &dates)?;
        let version = crate::store::users::data_version(c, user)?;
        Ok(Snapshot {
            batch,
            rows,
            existing,
            version,
        })
    }

    /// [`Snapshot::read`] in a read transaction of its own.
    fn read_consistent(c: &mut Connection, user: &UserId, id: &str) -> Result<Snapshot> {
        let tx = c.transaction()?;
        let snapshot = Snapshot::read(&tx, user, id)?;
        tx.finish()?;
        Ok(snapshot)
    }

    /// Works out every readable row's outcome; answers those that changed,
    /// and drops the rows.
    pub fn reconcile(&mut self) -> Changed {
        let ToReconcile { staged, now } = std::mem::take(&mut self.rows);
        let e = &self.existing;
        let mut outcomes = reconcile::reconcile(&staged, &e.entries, &e.dues, &e.memory);
        drop(staged);
        // The changed outcomes move to the front of `outcomes`, in order:
        // no second vector of them.
        let mut rowids = Vec::new();
        for (i, now) in now.into_iter().enumerate() {
            let o = &mut outcomes[i];
            // A category the person chose stays over the merchant memory's.
            if now.chosen {
                o.category_id = now.outcome.as_ref().and_then(|o| o.category_id.clone());
            }
            let same = match &now.outcome {
                Some(had) => **had == *o,
                None => *o == Outcome::staged(),
            };
            if !same {
                outcomes.swap(rowids.len(), i);
                rowids.push(now.rowid);
            }
        }
        outcomes.truncate(rowids.len());
        Changed { rowids, outcomes }
    }

    /// Reads, reconciles and saves the outcomes within the write
    /// transaction `tx`: what a confirm falls back to when the user's data
    /// keeps changing under its snapshots. Answers the user's data version
    /// the outcomes are of.
    pub fn reconcile_in(tx: &Connection, user: &UserId, id: &str) -> Result<i64> {
        let mut s = Snapshot::read(tx, user, id)?;
        let changed = s.reconcile();
        imports::save_outcomes(tx, &changed.rowids, &changed.outcomes)?;
        Ok(s.version)
    }
}

/// The rows whose outcome a reconcile changed: each one's rowid and its
/// new outcome.
pub(super) struct Changed {
    rowids: Vec<i64>,
    outcomes: Vec<Outcome>,
}

/// Reconciles a batch just staged within the write transaction `tx`;
/// answers the user's data version its outcomes are of.
pub(super) fn reconcile_staged_in(tx: &Connection, user: &UserId, id: &str) -> Result<i64> {
    Snapshot::reconcile_in(tx, user, id)
}

/// Refuses a batch that can no longer change, or whose confirm has begun.
/// The caller holds the batch's claim, so no confirm of it runs in this
/// process: one begun was interrupted.
fn require_idle(b: &Batch) -> Result<()> {
    require_unconfirmed(b)?;
    if b.confirming() {
        return Err(Error::invalid("id", Reason::ImportInterrupted));
    }
    Ok(())
}

/// What a reconcile worked out from its snapshot, and saved.
pub(super) struct WorkedOut {
    pub existing: Existing,
    /// The user's data version the saved outcomes are of.
    pub version: i64,
}

/// Reads the batch from a snapshot and works out its outcomes, both off the
/// async threads and the second with no connection held, and saves those
/// that changed; remembers the data version they are of
/// ([`claims::reconciled`]).
pub(super) async fn work_out(state: &AppState, user: &UserId, id: &str) -> Result<WorkedOut> {
    let (u, id) = (user.clone(), id.to_string());
    let mut snapshot = state
        .db
        .run(move |c| Snapshot::read_consistent(c, &u, &id))
        .await?;
    let (snapshot, changed) = tokio::task::spawn_blocking(move || {
        let changed = snapshot.reconcile();
        (snapshot, changed)
    })
    .await
    .map_err(anyhow::Error::from)?;
    save(state, user, &snapshot.batch.id, changed).await?;
    claims::reconciled(&snapshot.batch.id, snapshot.version);
    Ok(WorkedOut {
        existing: snapshot.existing,
        version: snapshot.version,
    })
}

/// Writes the changed rows' outcomes, [`CHUNK_ROWS`] per write transaction,
/// while the batch is open (a confirm begun meanwhile, in another
/// process, stops it). The caller holds the batch's claim.
async fn save(state: &AppState, user: &UserId, batch_id: &str, changed: Changed) -> Result<()> {
    let Changed { rowids, outcomes } = changed;
    for (rowids, outcomes) in rowids.chunks(CHUNK_ROWS).zip(outcomes.chunks(CHUNK_ROWS)) {
        let (rowids, outcomes) = (rowids.to_vec(), outcomes.to_vec());
        let (u, id) = (user.clone(), batch_id.to_string());
        state
            .db
            .transaction(move |tx| {
                require_idle(&batch_of(tx, &u, &id)?)?;
                imports::save_outcomes(tx, &rowids, &outcomes)
            })
            .await?;
        crate::memory::release_free();
    }
    Ok(())
}

#[derive(Serialize)]
pub struct Reconciled {
    #[serde(flatten)]
    pub batch: BatchView,
    /// Only when the AI's suggestions were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ai: Option<Summary>,
}

/// Reconciles the batch against the account as it is now, and asks the AI
/// provider for suggestions when `ai` is set. A confirm, undo or cancel of
/// the batch running meanwhile refuses it.
pub async fn reconcile(state: &AppState, user: &User, id: String, ai: bool) -> Result<Reconciled> {
    let now = crate::clock::timestamp(state.clock.now());
    let (b, running) = claim(state, &user.id, id).await?;
    require_idle(&b)?;
    let worked = work_out(state, &user.id, &b.id).await?;
    let (u, batch_id) = (user.id.clone(), b.id.clone());
    let batch = state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &u, &batch_id)?;
            require_idle(&b)?;
            if b.status == BatchStatus::Staged {
                imports::set_status(tx, &b.id, BatchStatus::Reconciled, &now)?;
            }
            Ok(imports::find(tx, &u, &b.id)?.unwrap_or(b))
        })
        .await?;
    drop(running);
    let ai_work = if ai {
        let (u, batch_id) = (user.id.clone(), batch.id.clone());
        Some(
            state
                .db
                .run(move |c| suggest::Work::collect(c, &u, &batch_id, &worked.existing))
                .await?,
        )
    } else {
        drop(worked);
        None
    };
    crate::memory::release_free();
    let ai = match ai_work {
        Some(work) => Some(suggest::suggest(state, user, &batch.id, work).await?),
        None => None,
    };
    let batch = state.db.run(move |c| batch_view(c, batch)).await?;
    Ok(Reconciled { batch, ai })
}
