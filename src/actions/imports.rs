//! The staged CSV import: `stageImport`, `getImport`, `listImports`,
//! `reconcileImport`, `decideImportConflict`, `confirmImport`,
//! `cancelImport` and `undoImport`. Nothing reaches the user's records
//! before `confirmImport`. See `docs/import.md`.

use super::{Ctx, Registry, Reply};
use crate::app::input::{optional_id, NAME_MAX, NOTES_MAX};
use crate::domain::documents::clean_name;
use crate::domain::import::read::{self, Format, Mapping, ReadError, MAX_ROWS};
use crate::domain::import::reconcile::{self, Reason, Staged, Status};
use crate::domain::locale::Locale;
use crate::domain::money;
use crate::error::{Error, Result};
use crate::state::AppState;
use crate::store::imports::{self, Batch, NewRow, StagedRow, Write};
use crate::store::users::{User, UserId};
use crate::store::{self, Cap, Owned};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

pub fn register(r: &mut Registry) {
    r.session_large("stageImport", stage_action);
    r.session("getImport", get);
    r.session("listImports", list);
    r.session("reconcileImport", reconcile_action);
    r.session("decideImportConflict", decide);
    r.session("confirmImport", confirm);
    r.session("cancelImport", cancel);
    r.session("undoImport", undo);
}

/// `getImport`'s page size: by default and at most.
const PAGE_DEFAULT: i64 = 200;
const PAGE_MAX: i64 = 1_000;

/// A batch as the actions answer it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchView {
    pub id: String,
    pub status: String,
    pub file_name: String,
    pub account_id: String,
    pub created_at: String,
    pub confirmed_at: Option<String>,
    pub format: Format,
    pub row_count: i64,
    pub counts: Counts,
}

#[derive(Serialize, Default)]
pub struct Counts {
    pub new: i64,
    pub duplicate: i64,
    pub matched: i64,
    pub conflict: i64,
    pub error: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowView {
    pub id: String,
    pub line: i64,
    pub date: Option<NaiveDate>,
    #[serde(serialize_with = "money::json::option::serialize")]
    pub amount: Option<Decimal>,
    pub currency: String,
    pub payee: String,
    pub memo: String,
    pub category_id: Option<String>,
    pub status: &'static str,
    pub reason: Option<String>,
    #[serde(rename = "match")]
    pub found: Option<MatchView>,
    pub decision: Option<String>,
}

#[derive(Serialize)]
pub struct MatchView {
    pub kind: &'static str,
    pub id: String,
    pub date: NaiveDate,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub name: String,
}

fn batch_view(c: &Connection, b: Batch) -> Result<BatchView> {
    let n = imports::counts(c, &b.id)?;
    // A confirm under way is not a confirmation yet.
    let confirmed_at = b.confirmed_at.clone().filter(|_| !b.confirming());
    let count = |s| n.get(&s).copied().unwrap_or(0);
    Ok(BatchView {
        counts: Counts {
            new: count(Status::New),
            duplicate: count(Status::Duplicate),
            matched: count(Status::Matched),
            conflict: count(Status::Conflict),
            error: count(Status::Error),
        },
        id: b.id,
        status: b.status,
        file_name: b.file_name,
        account_id: b.account_id,
        created_at: b.created_at,
        confirmed_at,
        format: b.format,
        row_count: b.row_count,
    })
}

fn row_view(r: StagedRow, locale: Locale) -> RowView {
    RowView {
        id: r.id,
        line: r.line,
        date: r.date,
        amount: r.cents.map(money::from_cents),
        currency: r.currency,
        payee: r.payee,
        memo: r.memo,
        category_id: r.category_id,
        status: r.status.code(),
        reason: r.reason.map(|why| why.text(locale)),
        found: r.found.map(|f| MatchView {
            kind: f.kind.code(),
            id: f.id,
            date: f.date,
            // The record's amount as the user sees it: positive.
            amount: money::from_cents(f.cents.abs()),
            name: f.name,
        }),
        decision: r.decision,
    }
}

/// The user's batch, or the failure an unknown id gets (another user's
/// batch is unknown too).
fn batch_of(c: &Connection, user: &UserId, id: &str) -> Result<Batch> {
    imports::find(c, user, id)?.ok_or_else(|| Error::invalid("id", "not found"))
}

fn required_batch_id(id: Option<String>) -> Result<String> {
    optional_id(id).ok_or_else(|| Error::invalid("id", "is required"))
}

/// Refuses a batch that can no longer change, or whose confirm has begun.
fn require_open(b: &Batch) -> Result<()> {
    require_unconfirmed(b)?;
    if b.confirming() {
        if Running::is_running(&b.id) {
            return Err(busy());
        }
        return Err(Error::invalid(
            "id",
            "was being confirmed when the service stopped; confirmImport finishes it, cancelImport takes it back",
        ));
    }
    Ok(())
}

/// Refuses a batch that is confirmed or cancelled.
fn require_unconfirmed(b: &Batch) -> Result<()> {
    match b.status.as_str() {
        "confirmed" => Err(Error::invalid(
            "id",
            "is already confirmed; undoImport takes it back",
        )),
        "cancelled" => Err(Error::invalid("id", "is cancelled")),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------- staging

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct StageInput {
    account_id: Option<String>,
    file_name: Option<String>,
    csv: Option<String>,
    csv_base64: Option<String>,
    mapping: Option<Mapping>,
}

/// A file to stage, from the action or from `POST /api/imports`.
pub struct Upload {
    pub account_id: Option<String>,
    pub file_name: String,
    pub bytes: Vec<u8>,
    pub mapping: Option<Mapping>,
    /// The input field that carried the bytes, named by a refusal.
    pub file_field: &'static str,
}

async fn stage_action(ctx: Ctx, input: StageInput) -> Result<Reply> {
    let user = ctx.user()?.clone();
    let (bytes, file_field) = match (input.csv, input.csv_base64) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid("csv", "give csv or csvBase64, not both"));
        }
        (Some(text), None) => (text.into_bytes(), "csv"),
        (None, Some(b64)) => {
            let b64: String = b64.split_whitespace().collect();
            let bytes = STANDARD
                .decode(b64)
                .map_err(|_| Error::invalid("csvBase64", "is not valid base64"))?;
            (bytes, "csvBase64")
        }
        (None, None) => return Err(Error::invalid("csv", "is required")),
    };
    let batch = stage(
        &ctx.state,
        &user,
        Upload {
            account_id: input.account_id,
            file_name: input.file_name.unwrap_or_default(),
            bytes,
            mapping: input.mapping,
            file_field,
        },
    )
    .await?;
    Reply::data(batch)
}

/// Reads and stages a file: the batch, with every row `new` or `error`.
pub async fn stage(state: &AppState, user: &User, upload: Upload) -> Result<BatchView> {
    let account_id =
        optional_id(upload.account_id).ok_or_else(|| Error::invalid("accountId", "is required"))?;
    let file_name = clean_name(&upload.file_name).unwrap_or_else(|| "import.csv".to_string());
    let field = upload.file_field;
    let mapping_json = upload
        .mapping
        .as_ref()
        .map(|m| serde_json::to_string(m).map_err(anyhow::Error::from))
        .transpose()?;

    // The account and the number of waiting imports first: a file that
    // could not be staged is not even read.
    let (u, a) = (user.id.clone(), account_id.clone());
    let currency = state
        .db
        .run(move |c| {
            store::require_owned_field(c, Owned::Account, &u, "accountId", &a)?;
            require_room(c, &u)?;
            Ok(
                c.query_row("SELECT currency FROM accounts WHERE id = ?1", [&a], |r| {
                    r.get::<_, String>(0)
                })?,
            )
        })
        .await?;

    let bytes = upload.bytes;
    let mapping = upload.mapping;
    let statement = tokio::task::spawn_blocking(move || read::read(&bytes, mapping.as_ref()))
        .await
        .map_err(anyhow::Error::from)?
        .map_err(|e| refusal(field, e))?;
    let rows = tokio::task::spawn_blocking(move || new_rows(statement.rows, &currency))
        .await
        .map_err(anyhow::Error::from)?;
    let format = statement.format;

    let user_id = user.id.clone();
    let now = crate::clock::timestamp(state.clock.now());
    let view = state
        .db
        .transaction(move |tx| {
            // Again in the writing transaction: two uploads may have
            // passed the first check together.
            require_room(tx, &user_id)?;
            let b = imports::insert_batch(
                tx,
                &user_id,
                &account_id,
                &file_name,
                &format,
                mapping_json.as_deref(),
                &rows,
                &now,
            )?;
            batch_view(tx, b)
        })
        .await;
    crate::memory::release_free();
    view
}

/// Refuses another batch while the most allowed wait for a confirm.
fn require_room(c: &Connection, user: &UserId) -> Result<()> {
    if imports::open_count(c, user)? >= imports::OPEN_BATCHES_MAX {
        return Err(Error::refused(format!(
            "at most {} imports may wait for confirmation; confirm or cancel one first",
            imports::OPEN_BATCHES_MAX
        )));
    }
    Ok(())
}

/// A file-level refusal, naming the field.
fn refusal(field: &'static str, e: ReadError) -> Error {
    match e {
        ReadError::Empty => Error::invalid(field, "is empty: the file has no rows"),
        ReadError::Binary => Error::invalid(field, "is not a CSV text file"),
        ReadError::TooManyRows => Error::invalid(
            field,
            format!("has more than {MAX_ROWS} rows; split the file"),
        ),
        ReadError::FieldTooLong { line } => Error::invalid(
            field,
            format!(
                "has a field longer than {} KiB starting on line {line}; is a closing quote missing?",
                read::FIELD_MAX / 1024
            ),
        ),
        ReadError::UnknownLayout { columns } => Error::invalid(
            "mapping",
            format!(
                "is required: the file's layout is not recognised; columns found: {}",
                columns.join(", ")
            ),
        ),
        ReadError::Mapping { field, message } => Error::invalid(field, message),
    }
}

/// The rows to stage: readable ones `new` with their import key, the others
/// `error` with why.
fn new_rows(rows: Vec<read::Row>, account_currency: &str) -> Vec<NewRow> {
    let mut staged: Vec<NewRow> = rows
        .into_iter()
        .map(|r| {
            let cents = r.amount.map(money::to_cents);
            let (status, reason) = match (&r.problem, r.amount) {
                (Some(problem), _) => (
                    Status::Error,
                    Some(Reason::Unreadable {
                        problem: problem.clone(),
                    }),
                ),
                (None, Some(a)) if money::round(a).is_zero() => {
                    (Status::Error, Some(Reason::ZeroAmount))
                }
                (None, Some(a)) if a.abs() > money::MAX => (
                    Status::Error,
                    Some(Reason::Unreadable {
                        problem: read::Problem::Amount {
                            value: a.to_string(),
                        },
                    }),
                ),
                _ => (Status::New, None),
            };
            NewRow {
                line: r.line,
                date: r.date,
                cents,
                currency: r
                    .currency
                    .filter(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()))
                    .unwrap_or_else(|| account_currency.to_string()),
                payee: r.payee,
                memo: r.memo,
                status,
                reason,
                import_key: String::new(),
            }
        })
        .collect();
    let keyed: Vec<_> = staged
        .iter()
        .map(|r| match (r.status, r.date, r.cents) {
            (Status::New, Some(d), Some(c)) => {
                Some((d, c, reconcile::payee_key(&r.payee, &r.memo)))
            }
            _ => None,
        })
        .collect();
    for (row, key) in staged.iter_mut().zip(reconcile::import_keys(&keyed)) {
        row.import_key = key;
    }
    staged
}

// ---------------------------------------------------------------- reading

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct GetInput {
    id: Option<String>,
    status: Option<String>,
    offset: Option<i64>,
    limit: Option<i64>,
}

#[derive(Serialize)]
struct BatchWithRows {
    #[serde(flatten)]
    batch: BatchView,
    rows: Vec<RowView>,
}

async fn get(ctx: Ctx, input: GetInput) -> Result<Reply> {
    let user = ctx.user()?.clone();
    let id = required_batch_id(input.id)?;
    let status = match input.status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(Status::from_code(s).ok_or_else(|| {
            Error::invalid(
                "status",
                "must be one of new, duplicate, matched, conflict, error",
            )
        })?),
    };
    let offset = input.offset.unwrap_or(0);
    if offset < 0 {
        return Err(Error::invalid("offset", "must not be negative"));
    }
    let limit = input.limit.unwrap_or(PAGE_DEFAULT);
    if !(1..=PAGE_MAX).contains(&limit) {
        return Err(Error::invalid(
            "limit",
            format!("must be between 1 and {PAGE_MAX}"),
        ));
    }
    let out = ctx
        .state
        .db
        .run(move |c| {
            let b = batch_of(c, &user.id, &id)?;
            let rows = imports::rows(c, &b.id, status, offset, limit)?
                .into_iter()
                .map(|r| row_view(r, user.locale))
                .collect();
            Ok(BatchWithRows {
                batch: batch_view(c, b)?,
                rows,
            })
        })
        .await?;
    Reply::data(out)
}

async fn list(ctx: Ctx, _: super::NoInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    let batches = ctx
        .state
        .db
        .run(move |c| {
            imports::list(c, &user)?
                .into_iter()
                .map(|b| batch_view(c, b))
                .collect::<Result<Vec<_>>>()
        })
        .await?;
    Reply::data(batches)
}

// --------------------------------------------------------- reconciliation

/// Reconciles the batch's readable rows against the account as it is now
/// and stores each row's status; answers the rows. `tx` is a write
/// transaction.
fn reconcile_batch(
    tx: &Connection,
    user: &UserId,
    batch: &Batch,
    now: &str,
) -> Result<(Vec<StagedRow>, imports::Existing)> {
    let mut rows = imports::all_rows(tx, &batch.id)?;
    let readable: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status != Status::Error && r.date.is_some() && r.cents.is_some())
        .map(|(i, _)| i)
        .collect();
    let mut dates: Vec<NaiveDate> = readable.iter().filter_map(|&i| rows[i].date).collect();
    dates.sort_unstable();
    dates.dedup();
    let existing = imports::existing(tx, user, &batch.account_id, &dates)?;
    let staged: Vec<Staged> = readable
        .iter()
        .map(|&i| {
            let r = &rows[i];
            Staged {
                date: r.date.unwrap_or_default(),
                cents: r.cents.unwrap_or_default(),
                key: reconcile::payee_key(&r.payee, &r.memo),
                import_key: r.import_key.clone(),
            }
        })
        .collect();
    let outcomes =
        reconcile::reconcile(&staged, &existing.entries, &existing.dues, &existing.memory);
    {
        let refs: Vec<&StagedRow> = readable.iter().map(|&i| &rows[i]).collect();
        imports::save_outcomes(tx, &refs, &outcomes)?;
    }
    for (&i, o) in readable.iter().zip(outcomes) {
        let r = &mut rows[i];
        r.status = o.status;
        r.reason = o.reason;
        r.found = o.found;
        r.category_id = o.category_id;
    }
    if batch.status == "staged" {
        imports::set_status(tx, &batch.id, "reconciled", now)?;
    }
    Ok((rows, existing))
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ReconcileInput {
    id: Option<String>,
    ai: bool,
}

#[derive(Serialize)]
struct Reconciled {
    #[serde(flatten)]
    batch: BatchView,
    /// Only when `ai` was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    ai: Option<super::imports_ai::Summary>,
}

async fn reconcile_action(ctx: Ctx, input: ReconcileInput) -> Result<Reply> {
    let user = ctx.user()?.clone();
    let id = required_batch_id(input.id)?;
    let now = crate::clock::timestamp(ctx.state.clock.now());
    let u = user.id.clone();
    let want_ai = input.ai;
    let (batch, ai_work) = ctx
        .state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &u, &id)?;
            require_open(&b)?;
            let (rows, existing) = reconcile_batch(tx, &u, &b, &now)?;
            let work = want_ai
                .then(|| super::imports_ai::Work::collect(tx, &u, &rows, &existing))
                .transpose()?;
            let b = imports::find(tx, &u, &b.id)?.unwrap_or(b);
            Ok((b, work))
        })
        .await?;
    crate::memory::release_free();
    let ai = match ai_work {
        Some(work) => Some(super::imports_ai::suggest(&ctx.state, &user, &batch.id, work).await?),
        None => None,
    };
    let batch = ctx.state.db.run(move |c| batch_view(c, batch)).await?;
    Reply::data(Reconciled { batch, ai })
}

// -------------------------------------------------------------- decisions

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct DecideInput {
    id: Option<String>,
    row_id: Option<String>,
    /// Instead of `rowId`: decide every row of this status at once.
    all: Option<String>,
    decision: Option<String>,
}

#[derive(Serialize)]
struct Decided {
    decided: usize,
    batch: BatchView,
}

async fn decide(ctx: Ctx, input: DecideInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    let id = required_batch_id(input.id)?;
    let decision = match input.decision.as_deref().map(str::trim) {
        Some(d @ ("import" | "skip")) => d.to_string(),
        Some("") | None => return Err(Error::invalid("decision", "is required")),
        Some(_) => return Err(Error::invalid("decision", "must be import or skip")),
    };
    let row_id = optional_id(input.row_id);
    let all = match input.all.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(
            Status::from_code(s)
                .filter(|s| *s != Status::Error)
                .ok_or_else(|| {
                    Error::invalid("all", "must be one of new, duplicate, matched, conflict")
                })?,
        ),
    };
    let out = ctx
        .state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &id)?;
            require_open(&b)?;
            let decided = match (row_id, all) {
                (Some(_), Some(_)) => {
                    return Err(Error::invalid("rowId", "give rowId or all, not both"))
                }
                (None, None) => return Err(Error::invalid("rowId", "is required")),
                (Some(row_id), None) => {
                    let row = imports::find_row(tx, &user, &b.id, &row_id)?
                        .ok_or_else(|| Error::invalid("rowId", "not found"))?;
                    if row.status == Status::Error {
                        return Err(Error::invalid(
                            "rowId",
                            "is a row that could not be read; it cannot be imported or skipped",
                        ));
                    }
                    imports::set_decision(tx, &row.id, Some(&decision))?;
                    1
                }
                (None, Some(status)) => imports::set_decisions(tx, &b.id, Some(status), &decision)?,
            };
            Ok(Decided {
                decided,
                batch: batch_view(tx, b)?,
            })
        })
        .await?;
    Reply::data(out)
}

// ----------------------------------------------------------- confirmation

#[derive(Deserialize, Default)]
#[serde(default)]
struct IdOnly {
    id: Option<String>,
}

#[derive(Serialize)]
struct Confirmed {
    imported: usize,
    skipped: usize,
    batch: BatchView,
}

/// Rows a confirm writes, and records an undo removes, per write
/// transaction: each holds the database's write lock for a fraction of a
/// second, so other users' writes wait briefly instead of for the whole
/// file (see `docs/performance.md`).
pub const CHUNK_ROWS: usize = 5_000;

/// After each chunk the write lock stays free at least as long as the
/// chunk held it (within these bounds), so that writers waiting in
/// SQLite's busy handler, which looks again every 100 ms at most, get
/// their turn between two chunks.
const PAUSE_MIN: Duration = Duration::from_millis(20);
const PAUSE_MAX: Duration = Duration::from_millis(250);

/// The batches whose confirm, undo or cancel is running in this process:
/// a second one of the same batch is refused in words while the first
/// runs. What is not here but marked confirming in the database was
/// interrupted (the service stopped) and may be resumed.
static RUNNING: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Default::default);

/// A batch's place in [`RUNNING`], given up when dropped.
struct Running(String);

impl Running {
    /// `None` while another confirm, undo or cancel of the batch runs.
    fn claim(batch_id: &str) -> Option<Running> {
        let mut running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        running
            .insert(batch_id.to_string())
            .then(|| Running(batch_id.to_string()))
    }

    fn is_running(batch_id: &str) -> bool {
        RUNNING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(batch_id)
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

fn busy() -> Error {
    Error::invalid(
        "id",
        "is being confirmed or taken back; wait until it is done",
    )
}

/// The user's batch, claimed for a confirm, undo or cancel: another
/// user's batch is unknown, and one that is busy is refused.
async fn claim(state: &AppState, user: &UserId, id: String) -> Result<(Batch, Running)> {
    let u = user.clone();
    let b = state.db.run(move |c| batch_of(c, &u, &id)).await?;
    let running = Running::claim(&b.id).ok_or_else(busy)?;
    Ok((b, running))
}

/// Runs `step` in one write transaction after another until it answers
/// `None`, pausing between them (see [`PAUSE_MIN`]); answers the sum of
/// what the steps answered. Runs as its own task, so that a client that
/// goes away does not stop it between two chunks.
async fn in_chunks<F>(state: &AppState, step: F) -> Result<usize>
where
    F: Fn(&rusqlite::Transaction<'_>) -> Result<Option<usize>> + Clone + Send + Sync + 'static,
{
    let db = state.db.clone();
    tokio::spawn(async move {
        let mut total = 0;
        loop {
            let started = std::time::Instant::now();
            let step = step.clone();
            match db.transaction(move |tx| step(tx)).await? {
                Some(n) => total += n,
                None => return Ok(total),
            }
            let held = started.elapsed();
            tracing::debug!(
                held_ms = held.as_millis() as u64,
                total,
                "import chunk written"
            );
            crate::memory::release_free();
            tokio::time::sleep(held.clamp(PAUSE_MIN, PAUSE_MAX)).await;
        }
    })
    .await
    .map_err(anyhow::Error::from)?
}

/// What the first transaction of a confirm found: the confirm begun (or
/// an interrupted one to resume), or conflicts still open (their statuses
/// are kept, so the page shows what changed since the last reconcile).
enum Start {
    Go { resume: bool },
    Undecided(usize),
}

/// Confirms in chunks: the first transaction reconciles the batch again
/// (the account may have changed since), checks the decisions and the
/// limit and marks the batch confirming; then [`CHUNK_ROWS`] rows per
/// transaction are written in file order; the last one marks the batch
/// `confirmed`. A confirm that was interrupted (the service stopped) is
/// resumed by the next confirm without writing any row twice.
async fn confirm(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let user = ctx.user()?.clone();
    let id = required_batch_id(input.id)?;
    let now = crate::clock::timestamp(ctx.state.clock.now());
    let (b, _running) = claim(&ctx.state, &user.id, id).await?;
    let (u, batch_id, start_now) = (user.id.clone(), b.id.clone(), now.clone());
    let start = ctx
        .state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &u, &batch_id)?;
            require_unconfirmed(&b)?;
            if b.confirming() {
                return Ok(Start::Go { resume: true });
            }
            let (rows, _) = reconcile_batch(tx, &u, &b, &start_now)?;
            let undecided = rows
                .iter()
                .filter(|r| r.status == Status::Conflict && r.decision.is_none())
                .count();
            if undecided > 0 {
                return Ok(Start::Undecided(undecided));
            }
            let expenses = rows
                .iter()
                .filter(|r| is_written(r) && r.cents.is_some_and(|c| c < 0))
                .count() as i64;
            Cap::DailyExpenses.check_room(tx, &u, expenses)?;
            imports::begin_confirm(tx, &b.id, &start_now)?;
            Ok(Start::Go { resume: false })
        })
        .await;
    crate::memory::release_free();
    let resume = match start? {
        Start::Go { resume } => resume,
        Start::Undecided(n) => {
            return Err(Error::refused(format!(
                "{n} {} still need{} a decision: import or skip",
                if n == 1 { "conflict" } else { "conflicts" },
                if n == 1 { "s" } else { "" },
            )))
        }
    };

    // What an interrupted confirm wrote already, by import key.
    let written = if resume {
        let (u, batch_id) = (user.id.clone(), b.id.clone());
        ctx.state
            .db
            .run(move |c| imports::written_keys(c, &u, &batch_id))
            .await?
    } else {
        HashSet::new()
    };
    let written = Arc::new(written);
    let after = Arc::new(std::sync::atomic::AtomicI64::new(-1));
    let (u, batch_id, chunk_now) = (user.id.clone(), b.id.clone(), now.clone());
    let fallback = match user.locale {
        Locale::De => "Buchung",
        Locale::En => "Bank entry",
    };
    in_chunks(&ctx.state, move |tx| {
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
        let Some((last, _)) = rows.last() else {
            imports::finish_confirm(tx, &b.id, &chunk_now)?;
            return Ok(None);
        };
        let writes: Vec<Write<'_>> = rows
            .iter()
            .map(|(_, r)| r)
            .filter(|r| !written.contains(&r.import_key))
            .filter_map(|r| write_of(r, fallback))
            .collect();
        imports::write_chunk(tx, &u, &b, &writes, &chunk_now)?;
        // Only once the chunk is committed does the next one start after it.
        after.store(*last, std::sync::atomic::Ordering::Relaxed);
        Ok(Some(writes.len()))
    })
    .await?;

    let (u, batch_id) = (user.id.clone(), b.id.clone());
    let done = ctx
        .state
        .db
        .run(move |c| {
            let b = batch_of(c, &u, &batch_id)?;
            let imported = imports::written(c, &u, &b.id)? as usize;
            Ok(Confirmed {
                imported,
                skipped: (b.row_count as usize).saturating_sub(imported),
                batch: batch_view(c, b)?,
            })
        })
        .await?;
    Reply::data(done)
}

/// Whether a confirm writes the row: readable, and `new` without a
/// decision or decided `import` (as `imports::rows_to_write` selects).
fn is_written(r: &StagedRow) -> bool {
    r.status != Status::Error
        && r.date.is_some()
        && r.cents.is_some()
        && match r.decision.as_deref() {
            Some("import") => true,
            Some(_) => false,
            None => r.status == Status::New,
        }
}

/// The record a row becomes: named by its payee, else its memo, else
/// `fallback`.
fn write_of<'r>(r: &'r StagedRow, fallback: &'r str) -> Option<Write<'r>> {
    let (date, cents) = (r.date?, r.cents?);
    let name = [r.payee.as_str(), r.memo.as_str()]
        .into_iter()
        .find(|s| !s.trim().is_empty())
        .unwrap_or(fallback);
    Some(Write {
        row: r,
        date,
        cents,
        name: truncate(name, NAME_MAX),
        merchant: truncate(&r.payee, NAME_MAX),
        notes: truncate(&r.memo, NOTES_MAX),
    })
}

/// The first `max` characters of `s`, trimmed.
fn truncate(s: &str, max: usize) -> &str {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].trim_end(),
        None => s,
    }
}

/// Removes every record the batch wrote, in chunks; answers how many.
async fn remove_written(state: &AppState, user: &UserId, batch_id: &str) -> Result<usize> {
    let (u, batch_id) = (user.clone(), batch_id.to_string());
    in_chunks(state, move |tx| {
        let n = imports::remove_written(tx, &u, &batch_id, CHUNK_ROWS)?;
        Ok((n > 0).then_some(n))
    })
    .await
}

async fn cancel(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let user = ctx.user_id()?;
    let id = required_batch_id(input.id)?;
    let now = crate::clock::timestamp(ctx.state.clock.now());
    let (b, _running) = claim(&ctx.state, &user, id).await?;
    // An interrupted confirm: what it wrote goes first, then the batch.
    if b.confirming() {
        remove_written(&ctx.state, &user, &b.id).await?;
    }
    let batch = ctx
        .state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &b.id)?;
            match b.status.as_str() {
                "confirmed" => {
                    return Err(Error::invalid(
                        "id",
                        "is confirmed; undoImport takes it back",
                    ))
                }
                "cancelled" => {}
                _ if b.confirming() => imports::abandon_confirm(tx, &b.id, &now)?,
                _ => imports::cancel(tx, &b.id, &now)?,
            }
            let b = imports::find(tx, &user, &b.id)?.unwrap_or(b);
            batch_view(tx, b)
        })
        .await?;
    Reply::data(batch)
}

#[derive(Serialize)]
struct Undone {
    removed: usize,
    batch: BatchView,
}

/// Removes a confirmed batch's records in chunks; the batch stays
/// `confirmed` until the last is gone and then becomes `cancelled`, so an
/// undo that was interrupted is finished by the next one.
async fn undo(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let user = ctx.user_id()?;
    let id = required_batch_id(input.id)?;
    let now = crate::clock::timestamp(ctx.state.clock.now());
    let (b, _running) = claim(&ctx.state, &user, id).await?;
    if b.status != "confirmed" {
        return Err(Error::invalid(
            "id",
            "is not a confirmed import; only those can be undone",
        ));
    }
    let removed = remove_written(&ctx.state, &user, &b.id).await?;
    let out = ctx
        .state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &b.id)?;
            if b.status == "confirmed" {
                imports::cancel(tx, &b.id, &now)?;
            }
            let b = imports::find(tx, &user, &b.id)?.unwrap_or(b);
            Ok(Undone {
                removed,
                batch: batch_view(tx, b)?,
            })
        })
        .await?;
    Reply::data(out)
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
