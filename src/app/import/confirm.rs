//! Confirm, cancel and undo: each writes or removes a batch's records in
//! chunks of [`CHUNK_ROWS`] rows per write transaction, and an interrupted
//! one is finished by the next.

use super::claims::{self, claim, CHUNK_ROWS};
use super::reconciliation::{self, Snapshot};
use super::{batch_of, batch_view, require_unconfirmed, BatchView};
use crate::app::chunks::in_chunks;
use crate::app::input::{NAME_MAX, NOTES_MAX};
use crate::domain::import::reconcile;
use crate::domain::import::BatchStatus;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::imports::write::{self, Write};
use crate::store::imports::{self, Batch, ToWrite};
use crate::store::users::{User, UserId};
use crate::store::{accounts, balance_history, daily_expenses, merchants, users, Cap};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Confirmed {
    pub imported: usize,
    pub skipped: usize,
    /// Whether the account's balance became the file's closing balance.
    pub balance_set: bool,
    pub batch: BatchView,
}

/// One lock per account of a user: confirms and undos of batches of the
/// same account run one after the other in this process, so that a
/// confirm compares its rows with what an earlier one wrote (two batches
/// of the same statement are the same money). A confirm of another
/// process, or one interrupted, is caught by its first write transaction
/// ([`imports::other_confirming`]).
type AccountKey = (UserId, String);
static ACCOUNTS: LazyLock<Mutex<HashMap<AccountKey, Arc<tokio::sync::Mutex<()>>>>> =
    LazyLock::new(Default::default);

/// An account's turn, held until dropped.
struct AccountTurn {
    key: AccountKey,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl AccountTurn {
    /// Waits for the account's turn.
    async fn take(user: &UserId, account_id: &str) -> AccountTurn {
        let key = (user.clone(), account_id.to_string());
        let lock = ACCOUNTS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .clone();
        AccountTurn {
            key,
            guard: Some(lock.lock_owned().await),
        }
    }
}

impl Drop for AccountTurn {
    fn drop(&mut self) {
        self.guard.take();
        let mut accounts = ACCOUNTS.lock().unwrap_or_else(|e| e.into_inner());
        // Nobody else holds or waits for it: forget it.
        if accounts
            .get(&self.key)
            .is_some_and(|l| Arc::strong_count(l) == 1)
        {
            accounts.remove(&self.key);
        }
    }
}

/// What the first transaction of a confirm found: the confirm begun (or
/// an interrupted one to resume), conflicts still open (their statuses
/// are kept, so the page shows what changed since the last reconcile), or
/// the user's data changed since the snapshot it was reconciled from.
enum Start {
    Go { resume: bool },
    Undecided(usize),
    Stale,
}

/// Snapshots a confirm reconciles from before it reconciles within its
/// first write transaction instead (the user's own writes kept changing
/// the account meanwhile).
const SNAPSHOT_TRIES: usize = 3;

/// Reconciles the batch again (the account may have changed since) from a
/// snapshot, then in one write transaction checks that the user's data is
/// still as the snapshot saw it, that no other batch of the account is
/// being confirmed, the decisions and the limit, and marks the batch
/// confirming. Answers whether an interrupted confirm is to be resumed.
async fn start(state: &AppState, user: &UserId, batch_id: &str, now: &str) -> Result<bool> {
    let mut tries = 0;
    // The batch's outcomes saved by a reconcile of this process, and the
    // data version they are of: while the user's data stands there, the
    // batch is not read and reconciled again.
    let mut saved = claims::reconciled_at(batch_id);
    loop {
        let (u, id) = (user.clone(), batch_id.to_string());
        let b = state.db.run(move |c| batch_of(c, &u, &id)).await?;
        require_unconfirmed(&b)?;
        if b.confirming() {
            return Ok(true);
        }
        let remembered = saved.take();
        let seen = match remembered {
            Some(version) => Some(version),
            None if tries < SNAPSHOT_TRIES => Some(
                reconciliation::work_out(state, user, batch_id)
                    .await?
                    .version,
            ),
            None => None,
        };
        let (u, id, now) = (user.clone(), batch_id.to_string(), now.to_string());
        let started = state
            .db
            .transaction(move |tx| {
                let b = batch_of(tx, &u, &id)?;
                require_unconfirmed(&b)?;
                if b.confirming() {
                    return Ok(Start::Go { resume: true });
                }
                match seen {
                    Some(v) if crate::store::users::data_version(tx, &u)? != v => {
                        return Ok(Start::Stale)
                    }
                    Some(_) => {}
                    None => drop(Snapshot::reconcile_in(tx, &u, &id)?),
                }
                if imports::other_confirming(tx, &u, &b.account_id, &b.id)? {
                    return Err(Error::invalid("id", Reason::OtherImportConfirming));
                }
                let undecided = imports::undecided(tx, &b.id)?;
                if undecided > 0 {
                    return Ok(Start::Undecided(undecided as usize));
                }
                let expenses = imports::expenses_to_write(tx, &b.id)?;
                Cap::DailyExpenses.check_room(tx, &u, expenses)?;
                if b.status == BatchStatus::Staged {
                    imports::set_status(tx, &b.id, BatchStatus::Reconciled, &now)?;
                }
                imports::begin_confirm(tx, &b.id, &now)?;
                Ok(Start::Go { resume: false })
            })
            .await;
        crate::memory::release_free();
        match started? {
            Start::Go { resume } => {
                claims::forget_reconciled(batch_id);
                return Ok(resume);
            }
            Start::Undecided(n) => return Err(Error::refused(Reason::ConflictsOpen(n))),
            Start::Stale if remembered.is_some() => {}
            Start::Stale => tries += 1,
        }
    }
}

/// Confirms in chunks: the first transaction reconciles the batch again
/// (the account may have changed since), checks the decisions and the
/// limit and marks the batch confirming; then [`CHUNK_ROWS`] rows per
/// transaction are written in file order; the last one marks the batch
/// `confirmed`, and with `set_balance` sets the account's balance to the
/// file's closing balance in the same transaction. A confirm that was
/// interrupted (the service stopped) is resumed by the next confirm
/// without writing any row twice.
pub async fn confirm(
    state: &AppState,
    user: &User,
    id: String,
    set_balance: bool,
) -> Result<Confirmed> {
    let now = crate::clock::timestamp(state.clock.now());
    let (b, _running) = claim(state, &user.id, id).await?;
    let closing = match (&b.format.closing_balance, set_balance) {
        (Some(closing), true) => Some(closing.clone()),
        _ => None,
    };
    if let Some(closing) = &closing {
        let (u, account) = (user.id.clone(), b.account_id.clone());
        let currency = state
            .db
            .run(move |c| accounts::currency(c, &u, &account))
            .await?;
        match (&closing.currency, currency) {
            (Some(file), Some(account)) if *file != account => {
                return Err(Error::invalid(
                    "setBalance",
                    Reason::BalanceCurrency {
                        file: file.clone(),
                        account,
                    },
                ));
            }
            _ => {}
        }
    }
    let turn = AccountTurn::take(&user.id, &b.account_id).await;
    let resume = start(state, &user.id, &b.id, &now).await?;

    // What an interrupted confirm wrote already, by import key.
    let written = if resume {
        let (u, batch_id) = (user.id.clone(), b.id.clone());
        state
            .db
            .run(move |c| write::written_keys(c, &u, &batch_id))
            .await?
    } else {
        HashSet::new()
    };
    let written = Arc::new(written);
    let after = Arc::new(std::sync::atomic::AtomicI64::new(-1));
    let (u, batch_id, chunk_now) = (user.id.clone(), b.id.clone(), now.clone());
    let today = state.clock.today();
    let fallback = user.locale.texts().import_entry_fallback;
    let balance_set = Arc::new(AtomicBool::new(false));
    let set = balance_set.clone();
    in_chunks(&state.db, turn, move |tx| {
        let b = batch_of(tx, &u, &batch_id)?;
        if !b.confirming() {
            return Ok(None);
        }
        let rows = imports::rows_to_write(
            tx,
            &b.id,
            after.load(std::sync::atomic::Ordering::Relaxed),
            CHUNK_ROWS,
        )?;
        let Some(last) = rows.last().map(|r| r.position) else {
            if let Some(closing) = &closing {
                accounts::set_balance(tx, &u, &b.account_id, closing.amount.0, &chunk_now)?;
                // The history keeps the balance as of the file's day, not
                // today's, and drops what later days held.
                balance_history::record_from_statement(
                    tx,
                    &u,
                    &b.account_id,
                    closing.date,
                    closing.amount.0,
                    today,
                    &chunk_now,
                )?;
                set.store(true, Ordering::Relaxed);
            }
            imports::finish_confirm(tx, &b.id, &chunk_now)?;
            return Ok(None);
        };
        let writes: Vec<Write<'_>> = rows
            .iter()
            .filter(|r| !written.contains(&r.import_key))
            .map(|r| write_of(r, fallback))
            .collect();
        write_chunk(tx, &u, &b, &writes, &chunk_now)?;
        // The categories the person chose teach the merchant memory (the
        // others came from it).
        for w in writes
            .iter()
            .filter(|w| w.cents < 0 && w.row.category_chosen)
        {
            let key = reconcile::payee_key(&w.row.payee, &w.row.memo);
            if let (Some(category), false) = (&w.row.category_id, key.is_empty()) {
                merchants::learn(tx, &u, &key, category, &chunk_now)?;
            }
        }
        // Only once the chunk is committed does the next one start after it.
        after.store(last, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(writes.len()))
    })
    .await?;

    // The expenses booked count against this month's budgets at once.
    crate::app::budget_insights::refresh(state, &user.id).await;
    let (u, batch_id) = (user.id.clone(), b.id.clone());
    state
        .db
        .run(move |c| {
            let b = batch_of(c, &u, &batch_id)?;
            let imported = write::written(c, &u, &b.id)? as usize;
            Ok(Confirmed {
                imported,
                skipped: (b.row_count as usize).saturating_sub(imported),
                balance_set: balance_set.load(Ordering::Relaxed),
                batch: batch_view(c, b)?,
            })
        })
        .await
}

/// Writes one chunk of a batch's records (money out as one-time expenses,
/// money in as one-time incomes) and keeps the search index, the month
/// sums and the data version in step for exactly these records: what the
/// insert triggers do row by row for other entries, once for the chunk
/// (`migrations/V9__bulk_import_upkeep.sql`). `tx` is a write transaction.
fn write_chunk(
    tx: &rusqlite::Connection,
    user: &UserId,
    batch: &Batch,
    writes: &[Write<'_>],
    now: &str,
) -> Result<()> {
    let (expenses, incomes): (Vec<&Write<'_>>, Vec<&Write<'_>>) =
        writes.iter().partition(|w| w.cents < 0);
    if let Some((first, last)) = write::insert_expenses(tx, user, batch, &expenses, now)? {
        daily_expenses::index_imported(tx, user, first, last)?;
    }
    write::insert_incomes(tx, user, batch, &incomes, now)?;
    if !writes.is_empty() {
        users::count_change(tx, user)?;
    }
    Ok(())
}

/// The record a row becomes: named by its payee, else its memo, else
/// `fallback`.
fn write_of<'r>(r: &'r ToWrite, fallback: &'r str) -> Write<'r> {
    let name = [r.payee.as_str(), r.memo.as_str()]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .unwrap_or(fallback);
    Write {
        row: r,
        date: r.date,
        cents: r.cents,
        name: truncate(name, NAME_MAX),
        merchant: truncate(&r.payee, NAME_MAX),
        notes: truncate(&r.memo, NOTES_MAX),
    }
}

/// The first `max` characters of `s`, trimmed.
fn truncate(s: &str, max: usize) -> &str {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].trim_end(),
        None => s,
    }
}

/// Removes every record the batch wrote, in chunks, in the account's turn;
/// answers how many.
async fn remove_written(state: &AppState, user: &UserId, batch: &Batch) -> Result<usize> {
    let turn = AccountTurn::take(user, &batch.account_id).await;
    let (u, batch_id) = (user.clone(), batch.id.clone());
    in_chunks(&state.db, turn, move |tx| {
        let n = write::remove_written(tx, &u, &batch_id, CHUNK_ROWS)?;
        Ok((n > 0).then_some(n))
    })
    .await
}

/// Cancels an open batch, or takes back what an interrupted confirm wrote.
pub async fn cancel(state: &AppState, user: &UserId, id: String) -> Result<BatchView> {
    let user = user.clone();
    let now = crate::clock::timestamp(state.clock.now());
    let (b, _running) = claim(state, &user, id).await?;
    // An interrupted confirm: what it wrote goes first, then the batch.
    if b.confirming() {
        remove_written(state, &user, &b).await?;
    }
    state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &b.id)?;
            match b.status {
                BatchStatus::Confirmed => return Err(Error::invalid("id", Reason::Confirmed)),
                BatchStatus::Cancelled => {}
                _ if b.confirming() => imports::abandon_confirm(tx, &b.id, &now)?,
                _ => imports::cancel(tx, &b.id, &now)?,
            }
            let b = imports::find(tx, &user, &b.id)?.unwrap_or(b);
            batch_view(tx, b)
        })
        .await
}

#[derive(Serialize)]
pub struct Undone {
    pub removed: usize,
    pub batch: BatchView,
}

/// Removes a confirmed batch's records in chunks; the batch stays
/// `confirmed` until the last is gone and then becomes `cancelled`, so an
/// undo that was interrupted is finished by the next one.
pub async fn undo(state: &AppState, user: &UserId, id: String) -> Result<Undone> {
    let user = user.clone();
    let now = crate::clock::timestamp(state.clock.now());
    let (b, _running) = claim(state, &user, id).await?;
    if b.status != BatchStatus::Confirmed {
        return Err(Error::invalid("id", Reason::NotConfirmedImport));
    }
    let removed = remove_written(state, &user, &b).await?;
    state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &b.id)?;
            if b.status == BatchStatus::Confirmed {
                imports::cancel(tx, &b.id, &now)?;
            }
            let b = imports::find(tx, &user, &b.id)?.unwrap_or(b);
            Ok(Undone {
                removed,
                batch: batch_view(tx, b)?,
            })
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate("  Müller  ", 3), "Mül");
        assert_eq!(truncate("ab", 5), "ab");
        assert_eq!(truncate("a b c", 2), "a");
    }
}
