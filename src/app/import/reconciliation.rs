//! Reconciling a batch against the account without holding the write lock
//! while it is worked out: the batch's rows and the account's records are
//! read from one snapshot, each row's outcome is worked out with no
//! connection held, and only the outcomes that changed are written, in
//! chunks of [`CHUNK_ROWS`] rows per write transaction. A confirm checks in
//! its first write transaction that the user's data did not change since
//! the snapshot (see `docs/import.md`).

use super::claims::{claim, CHUNK_ROWS};
use super::{batch_of, batch_view, require_unconfirmed, suggest, BatchView, Summary};
use crate::domain::import::reconcile::{self, Staged, Status};
use crate::domain::import::BatchStatus;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::imports::{self, Batch, Existing, StagedRow};
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Serialize;

/// A batch's rows and what reconciliation compares them with, as of one
/// moment.
pub(super) struct Snapshot {
    pub batch: Batch,
    pub rows: Vec<StagedRow>,
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
        let rows = imports::all_rows(c, &batch.id)?;
        let mut dates: Vec<NaiveDate> = rows
            .iter()
            .filter(|r| readable(r))
            .filter_map(|r| r.date)
            .collect();
        dates.sort_unstable();
        dates.dedup();
        let existing = imports::existing(c, user, &batch.account_id, &dates)?;
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

    /// Works out every readable row's outcome into the rows; answers the
    /// positions (in [`Snapshot::rows`]) of those whose outcome changed.
    pub fn reconcile(&mut self) -> Vec<usize> {
        let readable: Vec<usize> = (0..self.rows.len())
            .filter(|&i| readable(&self.rows[i]))
            .collect();
        let staged: Vec<Staged> = readable
            .iter()
            .map(|&i| {
                let r = &self.rows[i];
                Staged {
                    date: r.date.unwrap_or_default(),
                    cents: r.cents.unwrap_or_default(),
                    key: reconcile::payee_key(&r.payee, &r.memo),
                    import_key: r.import_key.clone(),
                }
            })
            .collect();
        let e = &self.existing;
        let outcomes = reconcile::reconcile(&staged, &e.entries, &e.dues, &e.memory);
        let mut changed = Vec::new();
        for (&i, mut o) in readable.iter().zip(outcomes) {
            let r = &mut self.rows[i];
            // A category the person chose stays over the merchant memory's.
            if r.category_chosen {
                o.category_id = r.category_id.clone();
            }
            let same = r.status == o.status
                && r.reason == o.reason
                && r.category_id == o.category_id
                && r.found == o.found;
            if !same {
                r.status = o.status;
                r.reason = o.reason;
                r.found = o.found;
                r.category_id = o.category_id;
                changed.push(i);
            }
        }
        changed
    }

    /// Reads, reconciles and saves the outcomes within the write
    /// transaction `tx`: what a confirm falls back to when the user's data
    /// keeps changing under its snapshots.
    pub fn reconcile_in(tx: &Connection, user: &UserId, id: &str) -> Result<Snapshot> {
        let mut s = Snapshot::read(tx, user, id)?;
        let changed = s.reconcile();
        let rows: Vec<&StagedRow> = changed.iter().map(|&i| &s.rows[i]).collect();
        imports::save_outcomes(tx, &rows)?;
        Ok(s)
    }
}

/// Reconciles a batch just staged within the write transaction `tx`.
pub(super) fn reconcile_staged_in(tx: &Connection, user: &UserId, id: &str) -> Result<()> {
    Snapshot::reconcile_in(tx, user, id).map(drop)
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

/// Whether reconciliation looks at a row: read, with a date and an amount.
fn readable(r: &StagedRow) -> bool {
    r.status != Status::Error && r.date.is_some() && r.cents.is_some()
}

/// Reads the batch from a snapshot and works out its outcomes, both off the
/// async threads and the second with no connection held.
pub(super) async fn work_out(state: &AppState, user: &UserId, id: &str) -> Result<Snapshot> {
    let (u, id) = (user.clone(), id.to_string());
    let mut snapshot = state
        .db
        .run(move |c| Snapshot::read_consistent(c, &u, &id))
        .await?;
    let snapshot = tokio::task::spawn_blocking(move || {
        let changed = snapshot.reconcile();
        (snapshot, changed)
    })
    .await
    .map_err(anyhow::Error::from)?;
    let (snapshot, changed) = snapshot;
    save(state, user, &snapshot, changed).await?;
    Ok(snapshot)
}

/// Writes the changed rows' outcomes, [`CHUNK_ROWS`] per write transaction,
/// while the batch is open (a confirm begun meanwhile, in another
/// process, stops it). The caller holds the batch's claim.
async fn save(
    state: &AppState,
    user: &UserId,
    snapshot: &Snapshot,
    changed: Vec<usize>,
) -> Result<()> {
    for chunk in changed.chunks(CHUNK_ROWS) {
        let rows: Vec<StagedRow> = chunk.iter().map(|&i| snapshot.rows[i].clone()).collect();
        let (u, id) = (user.clone(), snapshot.batch.id.clone());
        state
            .db
            .transaction(move |tx| {
                require_idle(&batch_of(tx, &u, &id)?)?;
                imports::save_outcomes(tx, &rows.iter().collect::<Vec<_>>())
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
    let snapshot = work_out(state, &user.id, &b.id).await?;
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
        let u = user.id.clone();
        Some(
            state
                .db
                .run(move |c| suggest::Work::collect(c, &u, &snapshot.rows, &snapshot.existing))
                .await?,
        )
    } else {
        drop(snapshot);
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
