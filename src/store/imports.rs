//! Staged imports: batches, their rows, what reconciliation needs to read
//! and what a confirm writes from. Nothing here touches `daily_expenses`
//! or `incomes`: the records a confirm writes and an undo removes are
//! [`write`]'s. See `docs/import.md`.

pub mod write;

use super::users::UserId;
use crate::domain::import::read::Format;
use crate::domain::import::reconcile::{self, Found, Kind, Outcome, Reason, Staged, Status};
use crate::domain::import::{BatchStatus, Decision, Source};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension, Row};
use std::collections::HashMap;

/// How many batches a user may have staged and not yet confirmed or
/// cancelled: each holds up to 200,000 rows.
pub const OPEN_BATCHES_MAX: i64 = 10;

/// A batch as the store keeps it.
#[derive(Clone, Debug)]
pub struct Batch {
    pub id: String,
    pub account_id: String,
    pub file_name: String,
    pub status: BatchStatus,
    pub format: Format,
    pub row_count: i64,
    pub created_at: String,
    pub confirmed_at: Option<String>,
    /// A file, or a bank sync.
    pub source: Source,
}

impl Batch {
    /// A confirm of the batch has begun and not finished: its records are
    /// being written in chunks, or were when the service stopped. Such a
    /// batch still answers `staged` or `reconciled`; a confirm finishes it,
    /// a cancel takes back what was written.
    pub fn confirming(&self) -> bool {
        self.status.is_open() && self.confirmed_at.is_some()
    }
}

const BATCH_COLUMNS: &str =
    "id, account_id, file_name, status, format, row_count, created_at, confirmed_at, source";

fn batch_from_row(r: &Row<'_>) -> rusqlite::Result<Batch> {
    let format: String = r.get(4)?;
    let status: String = r.get(3)?;
    Ok(Batch {
        id: r.get(0)?,
        account_id: r.get(1)?,
        file_name: r.get(2)?,
        status: BatchStatus::from_code(&status).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                3,
                rusqlite::types::Type::Text,
                format!("unknown batch status {status:?}").into(),
            )
        })?,
        format: serde_json::from_str(&format).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Text, e.into())
        })?,
        row_count: r.get(5)?,
        created_at: r.get(6)?,
        confirmed_at: r.get(7)?,
        source: Source::from_code(&r.get::<_, String>(8)?),
    })
}

/// A row to stage.
pub struct NewRow {
    pub line: usize,
    pub date: Option<NaiveDate>,
    pub cents: Option<i64>,
    pub currency: String,
    pub payee: String,
    pub memo: String,
    /// `Error` with its reason, or `New`.
    pub status: Status,
    pub reason: Option<Reason>,
    pub import_key: String,
}

/// A staged row as the store keeps it.
#[derive(Clone, Debug)]
pub struct StagedRow {
    pub id: String,
    pub line: i64,
    pub date: Option<NaiveDate>,
    pub cents: Option<i64>,
    pub currency: String,
    pub payee: String,
    pub memo: String,
    pub category_id: Option<String>,
    /// The person chose `category_id` (or none): reconciliation keeps it.
    pub category_chosen: bool,
    /// The AI's suggestion, until it is accepted.
    pub suggested_category_id: Option<String>,
    pub status: Status,
    pub reason: Option<Reason>,
    pub found: Option<reconcile::Found>,
    pub decision: Option<Decision>,
    pub import_key: String,
    /// Where the row is in its file: 0, 1, 2 … in file order, with no gaps.
    pub position: i64,
}

const ROW_COLUMNS: &str = "id, line_no, date, amount_cents, currency, payee, memo, category_id, \
     status, reason, match_kind, match_id, match_date, match_cents, match_name, decision, import_key, \
     category_chosen, suggested_category_id, position";

fn staged_from_row(r: &Row<'_>) -> rusqlite::Result<StagedRow> {
    let status: String = r.get(8)?;
    let reason: Option<String> = r.get(9)?;
    let found = found_from(r, r.get_ref(10)?.as_str_or_null()?, 11)?;
    Ok(StagedRow {
        id: r.get(0)?,
        line: r.get(1)?,
        date: r.get(2)?,
        cents: r.get(3)?,
        currency: r.get(4)?,
        payee: r.get(5)?,
        memo: r.get(6)?,
        category_id: r.get(7)?,
        status: Status::from_code(&status).unwrap_or(Status::Error),
        // A reason this binary cannot read is shown as none rather than failing the batch.
        reason: reason.and_then(|s| serde_json::from_str(&s).ok()),
        found,
        decision: r
            .get::<_, Option<String>>(15)?
            .and_then(|d| Decision::from_code(&d)),
        import_key: r.get(16)?,
        category_chosen: r.get(17)?,
        suggested_category_id: r.get(18)?,
        position: r.get(19)?,
    })
}

/// Stages a batch and its rows; `tx` is a write transaction.
#[allow(clippy::too_many_arguments)]
pub fn insert_batch(
    tx: &Connection,
    user_id: &UserId,
    account_id: &str,
    file_name: &str,
    format: &Format,
    mapping: Option<&str>,
    rows: &[NewRow],
    now: &str,
) -> Result<Batch> {
    let id = super::new_id();
    let format_json = serde_json::to_string(format).map_err(anyhow::Error::from)?;
    tx.execute(
        "INSERT INTO import_batches
            (id, user_id, account_id, file_name, status, mapping, format, row_count, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?9, ?5, ?6, ?7, ?8, ?8)",
        params![
            id,
            user_id,
            account_id,
            file_name,
            mapping,
            format_json,
            rows.len() as i64,
            now,
            BatchStatus::Staged.code()
        ],
    )?;
    let mut position = 0i64;
    for group in rows.chunks(ROWS_PER_INSERT) {
        let mut insert = tx.prepare_cached(&insert_of(
            "import_rows
                (id, batch_id, user_id, position, line_no, date, amount_cents, currency, payee,
                 memo, status, reason, import_key)",
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            group.len(),
        ))?;
        let ids: Vec<String> = group.iter().map(|_| super::new_sequential_id()).collect();
        let positions: Vec<i64> = (position..position + group.len() as i64).collect();
        let lines: Vec<i64> = group.iter().map(|r| r.line as i64).collect();
        let reasons = group
            .iter()
            .map(|r| r.reason.as_ref().map(reason_json).transpose())
            .collect::<Result<Vec<_>>>()?;
        let statuses: Vec<&str> = group.iter().map(|r| r.status.code()).collect();
        let mut values: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(group.len() * 13);
        for (i, row) in group.iter().enumerate() {
            values.extend_from_slice(&[
                &ids[i],
                &id,
                user_id,
                &positions[i],
                &lines[i],
                &row.date,
                &row.cents,
                &row.currency,
                &row.payee,
                &row.memo,
                &statuses[i],
                &reasons[i],
                &row.import_key,
            ]);
        }
        insert.execute(values.as_slice())?;
        position += group.len() as i64;
    }
    Ok(find(tx, user_id, &id)?.expect("the batch was just inserted"))
}

/// Rows per `INSERT` statement of a stage and of a confirm. In a
/// transaction of several statements, an insert into a table with triggers
/// and foreign keys first copies every page it changes to SQLite's
/// statement journal (so that it can be taken back alone): row by row,
/// that was 4 KiB for each of the half dozen index and table pages every
/// row of a confirm touches. One statement of many rows copies each page
/// once, and each row costs no statement of its own to run and reset
/// (`docs/performance.md`).
pub const ROWS_PER_INSERT: usize = 64;

/// `INSERT INTO {head} VALUES {row}, {row}, …` with `n` rows.
fn insert_of(head: &str, row: &str, n: usize) -> String {
    let mut sql = format!("INSERT INTO {head} VALUES ");
    for i in 0..n {
        if i > 0 {
            sql.push_str(", ");
        }
        sql.push_str(row);
    }
    sql
}

/// Marks the batch as staged by `source` (a file is the default).
pub fn set_source(tx: &Connection, id: &str, source: Source) -> Result<()> {
    tx.execute(
        "UPDATE import_batches SET source = ?2 WHERE id = ?1",
        params![id, source.code()],
    )?;
    Ok(())
}

/// The mapping the latest file staged into the user's `account` with one
/// was read with: the next file of the same layout needs none.
pub fn last_mapping(c: &Connection, user_id: &UserId, account: &str) -> Result<Option<String>> {
    Ok(c.prepare_cached(
        "SELECT mapping FROM import_batches
              WHERE user_id = ?1 AND account_id = ?2 AND mapping IS NOT NULL
              ORDER BY created_at DESC LIMIT 1",
    )?
    .query_row(params![user_id, account], |r| r.get(0))
    .optional()?)
}

/// The accounts of statement files staged into the user's `account` before,
/// the latest first: a file with several accounts reads the one of these
/// it holds.
pub fn statement_accounts(c: &Connection, user_id: &UserId, account: &str) -> Result<Vec<String>> {
    let rows = c
        .prepare_cached(
            "SELECT json_extract(format, '$.accountIban') AS iban FROM import_batches
              WHERE user_id = ?1 AND account_id = ?2 AND iban IS NOT NULL
              GROUP BY iban ORDER BY MAX(created_at) DESC LIMIT 20",
        )?
        .query_map(params![user_id, account], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

fn reason_json(r: &Reason) -> Result<String> {
    Ok(serde_json::to_string(r).map_err(anyhow::Error::from)?)
}

/// How many of the user's batches are neither confirmed nor cancelled.
pub fn open_count(c: &Connection, user_id: &UserId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT COUNT(*) FROM import_batches
         WHERE user_id = ?1 AND status IN (?2, ?3)",
        params![
            user_id,
            BatchStatus::Staged.code(),
            BatchStatus::Reconciled.code()
        ],
        |r| r.get(0),
    )?)
}

/// The user's batch with this id.
pub fn find(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<Batch>> {
    let sql = format!("SELECT {BATCH_COLUMNS} FROM import_batches WHERE id = ?1 AND user_id = ?2");
    Ok(c.prepare_cached(&sql)?
        .query_row(params![id, user_id], batch_from_row)
        .optional()?)
}

/// The user's batches, newest first.
pub fn list(c: &Connection, user_id: &UserId) -> Result<Vec<Batch>> {
    let sql = format!(
        "SELECT {BATCH_COLUMNS} FROM import_batches WHERE user_id = ?1
         ORDER BY created_at DESC, rowid DESC"
    );
    let mut s = c.prepare_cached(&sql)?;
    let rows = s
        .query_map(params![user_id], batch_from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Rows per status of a batch.
pub fn counts(c: &Connection, batch_id: &str) -> Result<HashMap<Status, i64>> {
    let mut s = c.prepare_cached(
        "SELECT status, COUNT(*) FROM import_rows WHERE batch_id = ?1 GROUP BY status",
    )?;
    let mut out = HashMap::new();
    for row in s.query_map(params![batch_id], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
    })? {
        let (status, n) = row?;
        if let Some(status) = Status::from_code(&status) {
            out.insert(status, n);
        }
    }
    Ok(out)
}

/// Conflicts of a batch with no decision yet.
pub fn undecided(c: &Connection, batch_id: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT COUNT(*) FROM import_rows WHERE batch_id = ?1 AND status = ?2 AND decision IS NULL",
    )?
    .query_row(params![batch_id, Status::Conflict.code()], |r| r.get(0))?)
}

/// A page of a batch's rows in file order, optionally of one status: from
/// file position `from` on (a batch's rows are numbered 0, 1, 2 … in file
/// order, with no gaps), past `skip` more, at most `limit`. Every page
/// begins at its key in an index (`import_rows_batch`, or
/// `import_rows_status` for one status), as cheap however deep it is;
/// only `skip` within one status passes over rows one by one (in the
/// index), and is for shallow pages.
pub fn rows(
    c: &Connection,
    batch_id: &str,
    status: Option<Status>,
    from: i64,
    skip: i64,
    limit: i64,
) -> Result<Vec<StagedRow>> {
    let rows = match status {
        None => {
            let sql = format!(
                "SELECT {ROW_COLUMNS} FROM import_rows
                 WHERE batch_id = ?1 AND position >= ?2
                 ORDER BY position LIMIT ?3"
            );
            c.prepare_cached(&sql)?
                .query_map(
                    params![batch_id, from.saturating_add(skip), limit],
                    staged_from_row,
                )?
                .collect::<rusqlite::Result<_>>()?
        }
        Some(status) => {
            let sql = format!(
                "SELECT {ROW_COLUMNS} FROM import_rows
                 WHERE batch_id = ?1 AND status = ?2 AND position >= ?3
                 ORDER BY position LIMIT ?4 OFFSET ?5"
            );
            c.prepare_cached(&sql)?
                .query_map(
                    params![batch_id, status.code(), from, limit, skip],
                    staged_from_row,
                )?
                .collect::<rusqlite::Result<_>>()?
        }
    };
    Ok(rows)
}

/// The file position of the row `row_id` of the batch, if it is one of
/// its rows.
pub fn position(c: &Connection, batch_id: &str, row_id: &str) -> Result<Option<i64>> {
    Ok(
        c.prepare_cached("SELECT position FROM import_rows WHERE id = ?1 AND batch_id = ?2")?
            .query_row(params![row_id, batch_id], |r| r.get(0))
            .optional()?,
    )
}

/// How many of the batch's rows (of `status`, when given) come before file
/// position `at`: counted in the index, without reading a row (none for
/// all rows, whose positions count them).
pub fn rows_before(c: &Connection, batch_id: &str, status: Option<Status>, at: i64) -> Result<i64> {
    match status {
        None => Ok(at.max(0)),
        Some(status) => Ok(c
            .prepare_cached(
                "SELECT COUNT(*) FROM import_rows
                 WHERE batch_id = ?1 AND status = ?2 AND position < ?3",
            )?
            .query_row(params![batch_id, status.code(), at], |r| r.get(0))?),
    }
}

/// The file position of the `n`th row (of `status`, when given) before
/// position `at`, or of the first when fewer come before it: where the
/// page of `n` rows before the one at `at` begins. From `at` backwards in
/// the index, as cheap however deep.
pub fn position_before(
    c: &Connection,
    batch_id: &str,
    status: Option<Status>,
    at: i64,
    n: i64,
) -> Result<i64> {
    let found: Option<i64> = match status {
        None => return Ok((at - n).max(0)),
        Some(status) => c
            .prepare_cached(
                "SELECT MIN(position) FROM (SELECT position FROM import_rows
                 WHERE batch_id = ?1 AND status = ?2 AND position < ?3
                 ORDER BY position DESC LIMIT ?4)",
            )?
            .query_row(params![batch_id, status.code(), at, n], |r| r.get(0))?,
    };
    Ok(found.unwrap_or(0))
}

/// All rows of a batch in file order.
pub fn all_rows(c: &Connection, batch_id: &str) -> Result<Vec<StagedRow>> {
    rows(c, batch_id, None, 0, 0, i64::MAX)
}

/// One row of the user's batch.
pub fn find_row(
    c: &Connection,
    user_id: &UserId,
    batch_id: &str,
    row_id: &str,
) -> Result<Option<StagedRow>> {
    let sql = format!(
        "SELECT {ROW_COLUMNS} FROM import_rows WHERE id = ?1 AND batch_id = ?2 AND user_id = ?3"
    );
    Ok(c.prepare_cached(&sql)?
        .query_row(params![row_id, batch_id, user_id], staged_from_row)
        .optional()?)
}

pub fn set_status(c: &Connection, batch_id: &str, status: BatchStatus, now: &str) -> Result<()> {
    c.execute(
        "UPDATE import_batches SET status = ?2, updated_at = ?3 WHERE id = ?1",
        params![batch_id, status.code(), now],
    )?;
    Ok(())
}

pub fn set_decision(c: &Connection, row_id: &str, decision: Option<Decision>) -> Result<()> {
    c.execute(
        "UPDATE import_rows SET decision = ?2 WHERE id = ?1",
        params![row_id, decision.map(Decision::code)],
    )?;
    Ok(())
}

/// Sets every decision of a batch's rows of `status` (`None`: all rows
/// that are not `error`); answers how many rows changed.
pub fn set_decisions(
    c: &Connection,
    batch_id: &str,
    status: Option<Status>,
    decision: Decision,
) -> Result<usize> {
    Ok(c.execute(
        "UPDATE import_rows SET decision = ?3
         WHERE batch_id = ?1 AND status <> ?4 AND (?2 IS NULL OR status = ?2)",
        params![
            batch_id,
            status.map(Status::code),
            decision.code(),
            Status::Error.code()
        ],
    )?)
}

/// A batch's rows as reconciliation reads them: of each readable row
/// (not `error`, with a date and an amount) only what it compares, in
/// `staged`, and beside it in `now` its rowid and the outcome it has; in
/// file order.
#[derive(Default)]
pub struct ToReconcile {
    pub staged: Vec<Staged>,
    pub now: Vec<Current>,
}

/// A staged row's outcome as it stands.
pub struct Current {
    pub rowid: i64,
    /// The person chose the row's category: reconciliation keeps it.
    pub chosen: bool,
    /// `None` while the row is `new` with no reason, match or category, as
    /// staged (most rows of a file not reconciled yet).
    pub outcome: Option<Box<Outcome>>,
}

/// [`ToReconcile`] of the batch: its payee and memo are read only as their
/// payee key, and nothing else of a row is kept.
pub fn to_reconcile(c: &Connection, batch_id: &str) -> Result<ToReconcile> {
    let mut s = c.prepare_cached(
        "SELECT rowid, date, amount_cents, payee, memo, import_key, category_chosen,
                status, reason, category_id, match_kind, match_id, match_date, match_cents,
                match_name
         FROM import_rows
         WHERE batch_id = ?1 AND status <> ?2 AND date IS NOT NULL AND amount_cents IS NOT NULL
         ORDER BY position",
    )?;
    let (mut staged, mut now) = (Vec::new(), Vec::new());
    let mut rows = s.query(params![batch_id, Status::Error.code()])?;
    while let Some(r) = rows.next()? {
        let (s, n) = reconciled_row(r)?;
        staged.push(s);
        now.push(n);
    }
    Ok(ToReconcile { staged, now })
}

/// One row of [`to_reconcile`]'s query.
fn reconciled_row(r: &Row<'_>) -> rusqlite::Result<(Staged, Current)> {
    let staged = Staged {
        date: r.get(1)?,
        cents: r.get(2)?,
        key: reconcile::payee_key(r.get_ref(3)?.as_str()?, r.get_ref(4)?.as_str()?),
        import_key: r.get(5)?,
    };
    let status = Status::from_code(r.get_ref(7)?.as_str()?).unwrap_or(Status::Error);
    let reason = r.get_ref(8)?.as_str_or_null()?;
    let category_id: Option<String> = r.get(9)?;
    let kind = r.get_ref(10)?.as_str_or_null()?;
    let outcome =
        if status != Status::New || reason.is_some() || category_id.is_some() || kind.is_some() {
            Some(Box::new(Outcome {
                status,
                // A reason this binary cannot read is none, as when shown.
                reason: reason.and_then(|s| serde_json::from_str(s).ok()),
                found: found_from(r, kind, 11)?,
                category_id,
            }))
        } else {
            None
        };
    let now = Current {
        rowid: r.get(0)?,
        chosen: r.get(6)?,
        outcome,
    };
    Ok((staged, now))
}

/// The match of a row whose `match_kind` is `kind`, from its match id,
/// date, cents and name at the columns from `at` on.
fn found_from(r: &Row<'_>, kind: Option<&str>, at: usize) -> rusqlite::Result<Option<Found>> {
    Ok(
        match (kind.and_then(Kind::from_code), r.get(at)?, r.get(at + 1)?) {
            (Some(kind), Some(id), Some(date)) => Some(Found {
                kind,
                id,
                date,
                cents: r.get::<_, Option<i64>>(at + 2)?.unwrap_or(0),
                name: r.get::<_, Option<String>>(at + 3)?.unwrap_or_default(),
            }),
            _ => None,
        },
    )
}

/// Writes rows' reconciliation outcomes (status, reason, category and
/// match): `outcomes` of the rows `rowids`, one for one; decisions stay.
pub fn save_outcomes(tx: &Connection, rowids: &[i64], outcomes: &[Outcome]) -> Result<()> {
    let mut update = tx.prepare_cached(
        "UPDATE import_rows SET status = ?2, reason = ?3, category_id = ?4, match_kind = ?5,
            match_id = ?6, match_date = ?7, match_cents = ?8, match_name = ?9
         WHERE rowid = ?1",
    )?;
    for (rowid, o) in rowids.iter().zip(outcomes) {
        let reason = o.reason.as_ref().map(reason_json).transpose()?;
        let f = o.found.as_ref();
        update.execute(params![
            rowid,
            o.status.code(),
            reason,
            o.category_id,
            f.map(|f| f.kind.code()),
            f.map(|f| f.id.as_str()),
            f.map(|f| f.date),
            f.map(|f| f.cents),
            f.map(|f| f.name.as_str()),
        ])?;
    }
    Ok(())
}

/// Sets only the reason of a row (the AI's suggestions).
pub fn set_reason(tx: &Connection, row_id: &str, reason: &Reason) -> Result<()> {
    tx.execute(
        "UPDATE import_rows SET reason = ?2 WHERE id = ?1",
        params![row_id, reason_json(reason)?],
    )?;
    Ok(())
}

/// The AI's category for a row, with the reason that says so.
pub fn set_suggestion(
    tx: &Connection,
    row_id: &str,
    category_id: &str,
    reason: &Reason,
) -> Result<()> {
    tx.execute(
        "UPDATE import_rows SET reason = ?2, suggested_category_id = ?3 WHERE id = ?1",
        params![row_id, reason_json(reason)?, category_id],
    )?;
    Ok(())
}

/// Sets the category the person chose for a row of the user's batch
/// (`None`: no category); false when there is no such row.
pub fn choose_category(
    tx: &Connection,
    user_id: &UserId,
    batch_id: &str,
    row_id: &str,
    category_id: Option<&str>,
) -> Result<bool> {
    Ok(tx.execute(
        "UPDATE import_rows SET category_id = ?4, category_chosen = 1
         WHERE id = ?3 AND batch_id = ?2 AND user_id = ?1",
        params![user_id, batch_id, row_id, category_id],
    )? == 1)
}

/// Gives every money-out row of the batch without a category the AI's
/// suggestion; answers how many.
pub fn accept_suggestions(tx: &Connection, user_id: &UserId, batch_id: &str) -> Result<usize> {
    Ok(tx.execute(
        "UPDATE import_rows SET category_id = suggested_category_id, category_chosen = 1
         WHERE batch_id = ?2 AND user_id = ?1 AND category_id IS NULL
           AND suggested_category_id IS NOT NULL AND amount_cents < 0 AND status <> ?3",
        params![user_id, batch_id, Status::Error.code()],
    )?)
}

/// Marks the start of a confirm: `confirmed_at` is set while the status
/// stays `staged` or `reconciled` until the last chunk is written (see
/// [`Batch::confirming`]). Answers false when the batch was not open or
/// was being confirmed already.
pub fn begin_confirm(tx: &Connection, batch_id: &str, now: &str) -> Result<bool> {
    Ok(tx.execute(
        "UPDATE import_batches SET confirmed_at = ?2, updated_at = ?2
         WHERE id = ?1 AND status IN (?3, ?4) AND confirmed_at IS NULL",
        params![
            batch_id,
            now,
            BatchStatus::Staged.code(),
            BatchStatus::Reconciled.code()
        ],
    )? == 1)
}

/// A staged row as a confirm writes it: only what its record carries.
#[derive(Clone, Debug)]
pub struct ToWrite {
    /// Where the row is in its file.
    pub position: i64,
    pub date: NaiveDate,
    /// Signed: negative is money out.
    pub cents: i64,
    pub currency: String,
    pub payee: String,
    pub memo: String,
    pub category_id: Option<String>,
    /// The person chose `category_id`: the merchant memory learns it.
    pub category_chosen: bool,
    pub import_key: String,
}

/// The next `limit` rows a confirm writes after file position `after`, in
/// file order. A confirm writes the rows that are readable, and `new`
/// without a decision or decided `import`.
pub fn rows_to_write(
    c: &Connection,
    batch_id: &str,
    after: i64,
    limit: usize,
) -> Result<Vec<ToWrite>> {
    let mut s = c.prepare_cached(
        "SELECT position, date, amount_cents, currency, payee, memo, category_id,
                category_chosen, import_key
         FROM import_rows
         WHERE batch_id = ?1 AND position > ?2
           AND status <> ?4 AND date IS NOT NULL AND amount_cents IS NOT NULL
           AND (decision = ?5 OR (decision IS NULL AND status = ?6))
         ORDER BY position LIMIT ?3",
    )?;
    let to_write = params![
        batch_id,
        after,
        limit as i64,
        Status::Error.code(),
        Decision::Import.code(),
        Status::New.code()
    ];
    let rows = s
        .query_map(to_write, |r| {
            Ok(ToWrite {
                position: r.get(0)?,
                date: r.get(1)?,
                cents: r.get(2)?,
                currency: r.get(3)?,
                payee: r.get(4)?,
                memo: r.get(5)?,
                category_id: r.get(6)?,
                category_chosen: r.get(7)?,
                import_key: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// How many one-time expenses a confirm of the batch writes: the rows of
/// money out among those [`rows_to_write`] selects.
pub fn expenses_to_write(c: &Connection, batch_id: &str) -> Result<i64> {
    Ok(c.prepare_cached(
        "SELECT COUNT(*) FROM import_rows
         WHERE batch_id = ?1 AND amount_cents < 0
           AND status <> ?2 AND date IS NOT NULL
           AND (decision = ?3 OR (decision IS NULL AND status = ?4))",
    )?
    .query_row(
        params![
            batch_id,
            Status::Error.code(),
            Decision::Import.code(),
            Status::New.code()
        ],
        |r| r.get(0),
    )?)
}

/// Whether another batch of the user's account is being confirmed, or its
/// confirm was interrupted: its rows are written without being compared
/// with this one's.
pub fn other_confirming(
    c: &Connection,
    user_id: &UserId,
    account_id: &str,
    batch_id: &str,
) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM import_batches
         WHERE user_id = ?1 AND account_id = ?2 AND id <> ?3
           AND confirmed_at IS NOT NULL AND status IN (?4, ?5))",
    )?
    .query_row(
        params![
            user_id,
            account_id,
            batch_id,
            BatchStatus::Staged.code(),
            BatchStatus::Reconciled.code()
        ],
        |r| r.get(0),
    )?)
}

/// Marks a batch whose records are all written `confirmed`.
pub fn finish_confirm(tx: &Connection, batch_id: &str, now: &str) -> Result<()> {
    set_status(tx, batch_id, BatchStatus::Confirmed, now)
}

/// Takes back an unfinished confirm whose records are all removed: the
/// batch is cancelled, as if it had never been confirmed.
pub fn abandon_confirm(tx: &Connection, batch_id: &str, now: &str) -> Result<()> {
    tx.execute(
        "UPDATE import_batches SET confirmed_at = NULL WHERE id = ?1",
        params![batch_id],
    )?;
    cancel(tx, batch_id, now)
}

/// Marks a batch cancelled and deletes its staged rows.
pub fn cancel(tx: &Connection, batch_id: &str, now: &str) -> Result<()> {
    tx.execute(
        "DELETE FROM import_rows WHERE batch_id = ?1",
        params![batch_id],
    )?;
    set_status(tx, batch_id, BatchStatus::Cancelled, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where one of `words` stands quoted in the code of a module that
    /// `scanned` selects: `module: 'word'`, one a line.
    fn quoted(words: &[&str], scanned: impl Fn(&str) -> bool) -> String {
        let mut found = Vec::new();
        for (module, source) in crate::layers::modules() {
            if !scanned(&module) {
                continue;
            }
            let code = crate::layers::code(&source);
            for word in words {
                if code.contains(&format!("'{word}'")) {
                    found.push(format!("{module}: '{word}'"));
                }
            }
        }
        found.join("\n")
    }

    /// A batch status in SQL is bound from [`BatchStatus::code`], never
    /// written as a literal, so the enum is the one list of them.
    #[test]
    fn no_batch_status_is_a_literal_in_sql() {
        let found = quoted(&BatchStatus::ALL.map(BatchStatus::code), |_| true);
        assert!(found.is_empty(), "{found}");
    }

    /// A row's status and decision in the store's and the app's SQL are
    /// bound from [`Status::code`] and [`Decision::code`], never written
    /// as literals.
    #[test]
    fn no_row_status_or_decision_is_a_literal_in_sql() {
        let words: Vec<&str> = Status::ALL
            .map(Status::code)
            .into_iter()
            .chain(Decision::ALL.map(Decision::code))
            .collect();
        let found = quoted(&words, |m| {
            m.starts_with("store::") || m.starts_with("app::")
        });
        assert!(found.is_empty(), "{found}");
    }
}
