//! The write side of an import: the records a confirm writes and an undo
//! removes, one-time expenses (money out) and incomes (money in) that
//! carry their batch's id and their row's import key. Only these rows of
//! `daily_expenses` and `incomes` are read or written here; the confirm's
//! step that also keeps the search index, the month sums and the data
//! version in step is `app::import::confirm`. See `docs/import.md`.

use super::{insert_of, Batch, ToWrite, ROWS_PER_INSERT};
use crate::domain::import::BatchStatus;
use crate::domain::recurrence::Frequency;
use crate::error::Result;
use crate::store::new_sequential_id;
use crate::store::users::UserId;
use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashSet;

/// A record a confirm writes.
pub struct Write<'a> {
    pub row: &'a ToWrite,
    pub date: NaiveDate,
    pub cents: i64,
    pub name: &'a str,
    pub merchant: &'a str,
    pub notes: &'a str,
}

/// The import keys of the records the user's batch has written so far:
/// what a resumed confirm must not write again.
pub fn written_keys(c: &Connection, user_id: &UserId, batch_id: &str) -> Result<HashSet<String>> {
    let mut keys = HashSet::new();
    for table in ["daily_expenses", "incomes"] {
        let sql = format!(
            "SELECT import_key FROM {table}
             WHERE user_id = ?1 AND import_id = ?2 AND import_key IS NOT NULL"
        );
        let mut s = c.prepare_cached(&sql)?;
        for key in s.query_map(params![user_id, batch_id], |r| r.get::<_, String>(0))? {
            keys.insert(key?);
        }
    }
    Ok(keys)
}

/// Inserts a chunk's money out as one-time expenses, each carrying the
/// batch and its row's import key, [`ROWS_PER_INSERT`] rows per statement;
/// answers the rowids they got, first and last, for the upkeep the insert
/// triggers leave to the confirm (`daily_expenses::index_imported`). `tx`
/// is a write transaction.
pub fn insert_expenses(
    tx: &Connection,
    user_id: &UserId,
    batch: &Batch,
    expenses: &[&Write<'_>],
    now: &str,
) -> Result<Option<(i64, i64)>> {
    if expenses.is_empty() {
        return Ok(None);
    }
    // Nobody else writes while the transaction holds the lock, so the
    // chunk's rowids follow the largest one.
    let first: i64 = tx.query_row(
        "SELECT COALESCE(MAX(rowid), 0) + 1 FROM daily_expenses",
        [],
        |r| r.get(0),
    )?;
    for group in expenses.chunks(ROWS_PER_INSERT) {
        let mut insert = tx.prepare_cached(&insert_of(
            "daily_expenses
                (id, user_id, name, amount_cents, currency, date, account_id, category_id,
                 merchant, notes, import_id, import_key, created_at, updated_at)",
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            group.len(),
        ))?;
        let ids: Vec<String> = group.iter().map(|_| new_sequential_id()).collect();
        let cents: Vec<i64> = group.iter().map(|w| -w.cents).collect();
        let mut values: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(group.len() * 14);
        for ((w, id), cents) in group.iter().zip(&ids).zip(&cents) {
            values.extend_from_slice(&[
                id,
                user_id,
                &w.name,
                cents,
                &w.row.currency,
                &w.date,
                &batch.account_id,
                &w.row.category_id,
                &w.merchant,
                &w.notes,
                &batch.id,
                &w.row.import_key,
                &now,
                &now,
            ]);
        }
        insert.execute(values.as_slice())?;
    }
    let last = tx.query_row("SELECT MAX(rowid) FROM daily_expenses", [], |r| r.get(0))?;
    Ok(Some((first, last)))
}

/// Inserts a chunk's money in as one-time incomes, each carrying the batch
/// and its row's import key, [`ROWS_PER_INSERT`] rows per statement. `tx`
/// is a write transaction.
pub fn insert_incomes(
    tx: &Connection,
    user_id: &UserId,
    batch: &Batch,
    incomes: &[&Write<'_>],
    now: &str,
) -> Result<()> {
    let once = Frequency::Once.code();
    for group in incomes.chunks(ROWS_PER_INSERT) {
        let mut insert = tx.prepare_cached(&insert_of(
            "incomes
                (id, user_id, name, amount_cents, currency, frequency, start_date, account_id,
                 notes, import_id, import_key, created_at, updated_at)",
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            group.len(),
        ))?;
        let ids: Vec<String> = group.iter().map(|_| new_sequential_id()).collect();
        let mut values: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(group.len() * 13);
        for (w, id) in group.iter().zip(&ids) {
            values.extend_from_slice(&[
                id,
                user_id,
                &w.name,
                &w.cents,
                &w.row.currency,
                &once,
                &w.date,
                &batch.account_id,
                &w.notes,
                &batch.id,
                &w.row.import_key,
                &now,
                &now,
            ]);
        }
        insert.execute(values.as_slice())?;
    }
    Ok(())
}

/// Removes up to `limit` of the records the user's batch wrote; answers
/// how many. The delete triggers keep the search index, the month sums
/// and the data version in step.
pub fn remove_written(
    tx: &Connection,
    user_id: &UserId,
    batch_id: &str,
    limit: usize,
) -> Result<usize> {
    let mut removed = 0;
    for table in ["daily_expenses", "incomes"] {
        let sql = format!(
            "DELETE FROM {table} WHERE rowid IN (
                SELECT rowid FROM {table} WHERE import_id = ?2 AND user_id = ?1 LIMIT ?3)"
        );
        removed += tx.prepare_cached(&sql)?.execute(params![
            user_id,
            batch_id,
            (limit - removed) as i64
        ])?;
        if removed == limit {
            break;
        }
    }
    Ok(removed)
}

/// How many records a confirmed batch wrote.
pub fn written(c: &Connection, user_id: &UserId, batch_id: &str) -> Result<i64> {
    Ok(c.query_row(
        "SELECT (SELECT COUNT(*) FROM daily_expenses WHERE user_id = ?1 AND import_id = ?2)
              + (SELECT COUNT(*) FROM incomes WHERE user_id = ?1 AND import_id = ?2)",
        params![user_id, batch_id],
        |r| r.get(0),
    )?)
}

/// Of the user's batches `ids`, those that are confirmed and wrote no
/// record (every row a duplicate, skipped or an error): nothing to undo.
pub fn confirmed_empty(c: &Connection, user_id: &UserId, ids: &[&str]) -> Result<HashSet<String>> {
    let mut s = c.prepare_cached(
        "SELECT b.id FROM import_batches b
          WHERE b.id = ?2 AND b.user_id = ?1 AND b.status = ?3
            AND NOT EXISTS (SELECT 1 FROM daily_expenses WHERE import_id = b.id AND user_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM incomes WHERE import_id = b.id AND user_id = ?1)",
    )?;
    let mut out = HashSet::new();
    for id in ids {
        if let Some(id) = s
            .query_row(params![user_id, id, BatchStatus::Confirmed.code()], |r| {
                r.get::<_, String>(0)
            })
            .optional()?
        {
            out.insert(id);
        }
    }
    Ok(out)
}
