//! The staged bank import's use cases: stage a file, read a batch,
//! reconcile it against the account, decide conflicts, confirm, cancel and
//! undo. Nothing reaches the user's records before [`confirm`]. The doors
//! (`stageImport` and its siblings, `POST /api/imports`, the import page)
//! call these and encode what they answer. See `docs/import.md`.

mod claims;
mod confirm;
mod existing;
pub mod parsing;
mod reconciliation;
mod suggest;

pub use claims::CHUNK_ROWS;
pub use confirm::{cancel, confirm, undo, Confirmed, Undone};
pub use reconciliation::{reconcile, Reconciled};
pub use suggest::Summary;

use crate::app::input::optional_id;
use crate::domain::documents::clean_name;
use crate::domain::import::read::{self, Choice, Format, Mapping, ReadError, MAX_ROWS};
use crate::domain::import::reconcile::{self, Kind, Status};
use crate::domain::import::{BatchStatus, Decision, Source};
use crate::domain::locale::Locale;
use crate::domain::money;
use crate::domain::money::Money;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::imports::{self, Batch, NewRow, StagedRow};
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use rusqlite::Connection;
use serde::Serialize;

/// A page of a batch's rows: by default and at most.
pub const PAGE_DEFAULT: i64 = 200;
pub const PAGE_MAX: i64 = 1_000;

/// A batch as the doors answer it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchView {
    pub id: String,
    pub status: BatchStatus,
    pub file_name: String,
    pub account_id: String,
    pub created_at: String,
    pub confirmed_at: Option<String>,
    pub format: Format,
    /// `file` for an upload, `fints` for a bank sync.
    pub source: Source,
    pub row_count: i64,
    pub counts: Counts,
    /// Conflicts not decided yet: the batch cannot be confirmed before.
    /// The import page's script shows it after each decision.
    pub undecided: i64,
}

impl BatchView {
    /// Rows can still be decided, and the batch confirmed or cancelled.
    pub fn is_open(&self) -> bool {
        self.status.is_open()
    }

    /// Cancelled after a confirm: undone.
    pub fn is_undone(&self) -> bool {
        self.status == BatchStatus::Cancelled && self.confirmed_at.is_some()
    }
}

#[derive(Serialize, Default, Clone, Debug)]
pub struct Counts {
    pub new: i64,
    pub duplicate: i64,
    pub matched: i64,
    pub conflict: i64,
    pub error: i64,
}

impl Counts {
    pub fn of(&self, status: Status) -> i64 {
        match status {
            Status::New => self.new,
            Status::Duplicate => self.duplicate,
            Status::Matched => self.matched,
            Status::Conflict => self.conflict,
            Status::Error => self.error,
        }
    }

    pub fn total(&self) -> i64 {
        Status::ALL.into_iter().map(|s| self.of(s)).sum()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RowView {
    pub id: String,
    pub line: i64,
    pub date: Option<NaiveDate>,
    pub amount: Option<Money>,
    pub currency: String,
    pub payee: String,
    pub memo: String,
    pub category_id: Option<String>,
    /// The AI's suggestion (reconcileImport with `ai`), until accepted.
    pub suggested_category_id: Option<String>,
    pub status: Status,
    pub reason: Option<String>,
    #[serde(rename = "match")]
    pub found: Option<MatchView>,
    pub decision: Option<Decision>,
    /// Where the row is in its file (0, 1, 2 …): the key of the page that
    /// begins with it.
    #[serde(skip)]
    pub position: i64,
}

#[derive(Serialize)]
pub struct MatchView {
    pub kind: Kind,
    pub id: String,
    pub date: NaiveDate,
    pub amount: Money,
    pub name: String,
}

pub(crate) fn batch_view(c: &Connection, b: Batch) -> Result<BatchView> {
    let n = imports::counts(c, &b.id)?;
    let undecided = imports::undecided(c, &b.id)?;
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
        source: b.source,
        row_count: b.row_count,
        undecided,
    })
}

fn row_view(r: StagedRow, locale: Locale) -> RowView {
    RowView {
        id: r.id,
        line: r.line,
        date: r.date,
        amount: r.cents.map(money::from_cents).map(Money),
        currency: r.currency,
        payee: r.payee,
        memo: r.memo,
        category_id: r.category_id,
        suggested_category_id: r.suggested_category_id,
        status: r.status,
        reason: r
            .reason
            .map(|why| crate::i18n::import::reason(&why, locale)),
        found: r.found.map(|f| MatchView {
            kind: f.kind,
            id: f.id,
            date: f.date,
            // The record's amount as the user sees it: positive.
            amount: Money::from(money::from_cents(f.cents.abs())),
            name: f.name,
        }),
        decision: r.decision,
        position: r.position,
    }
}

/// The user's batch, or the failure an unknown id gets (another user's
/// batch is unknown too).
pub(crate) fn batch_of(c: &Connection, user: &UserId, id: &str) -> Result<Batch> {
    imports::find(c, user, id)?.ok_or_else(|| Error::unknown("id"))
}

/// Refuses a batch that can no longer change, or whose confirm has begun.
pub(crate) fn require_open(b: &Batch) -> Result<()> {
    require_unconfirmed(b)?;
    if b.confirming() {
        if claims::is_running(&b.id) {
            return Err(claims::busy());
        }
        return Err(Error::invalid("id", Reason::ImportInterrupted));
    }
    Ok(())
}

/// Refuses a batch that is confirmed or cancelled.
pub(crate) fn require_unconfirmed(b: &Batch) -> Result<()> {
    match b.status {
        BatchStatus::Confirmed => Err(Error::invalid("id", Reason::AlreadyConfirmed)),
        BatchStatus::Cancelled => Err(Error::invalid("id", Reason::Cancelled)),
        _ => Ok(()),
    }
}

// ---------------------------------------------------------------- staging

/// A file to stage, from the action or from `POST /api/imports`.
pub struct Upload {
    pub account_id: Option<String>,
    pub file_name: String,
    pub bytes: Vec<u8>,
    pub mapping: Option<Mapping>,
    /// Which account of a statement file with several to read.
    pub account_iban: Option<String>,
    /// The input field that carried the bytes, named by a refusal.
    pub file_field: &'static str,
}

/// Reads and stages a file: the batch, with every row `new` or `error`.
pub async fn stage(state: &AppState, user: &User, upload: Upload) -> Result<BatchView> {
    let account_id = optional_id(upload.account_id)
        .ok_or_else(|| Error::invalid("accountId", Reason::Required))?;
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
    let (currency, known, remembered) = state
        .db
        .run(move |c| {
            let currency = account_currency(c, &u, &a)?;
            require_room(c, &u)?;
            let remembered = imports::last_mapping(c, &u, &a)?
                .and_then(|m| serde_json::from_str::<Mapping>(&m).ok());
            Ok((
                currency,
                imports::statement_accounts(c, &u, &a)?,
                remembered,
            ))
        })
        .await?;

    let bytes = upload.bytes;
    let statement = crate::domain::import::statement::sniff(&bytes).map(|k| k.code());
    let mapping = upload.mapping;
    let choice = Choice {
        given: upload.account_iban,
        known,
    };
    // A layout that is not recognised is read with the mapping the
    // account's last such file was read with, when that fits.
    let (statement, remembered_used) = parsing::read(&user.id, field, move |budget| {
        let file = read::Upload::new(bytes);
        match file.read(mapping.as_ref(), &choice, budget) {
            Err(ReadError::UnknownLayout { columns }) => match remembered {
                Some(m) => match file.read(Some(&m), &choice, budget) {
                    Ok(s) => Ok((s, Some(m))),
                    Err(e @ ReadError::Stopped(_)) => Err(e),
                    Err(_) => Err(ReadError::UnknownLayout { columns }),
                },
                None => Err(ReadError::UnknownLayout { columns }),
            },
            other => other.map(|s| (s, None)),
        }
    })
    .await?
    .map_err(|e| refusal(field, statement, e))?;
    let mapping_json = match (mapping_json, remembered_used) {
        (None, Some(m)) => Some(serde_json::to_string(&m).map_err(anyhow::Error::from)?),
        (given, _) => given,
    };
    let staging = Staging {
        account_id,
        file_name,
        format: statement.format,
        mapping: mapping_json,
        rows: statement.rows,
        currency,
    };
    stage_rows(state, &user.id, staging, batch_view).await
}

/// Bookings a bank sync fetched for one account (docs/bank-sync.md), to
/// stage as one batch.
pub struct BankStatement {
    /// The user's account the bank account is linked to.
    pub account_id: String,
    /// Names the bank and the dates.
    pub file_name: String,
    /// One MT940 text, or the camt.052 documents of every page.
    pub documents: Vec<Vec<u8>>,
    /// The bank's booked balance (HKSAL), kept as the batch's closing
    /// balance.
    pub closing_balance: Option<read::ClosingBalance>,
}

/// The field a bank's statement is refused on: the sync's.
const BANK_FIELD: &str = "statement";

/// Stages what a bank sync fetched as ONE batch with `source: fints`,
/// reconciled at once, all in one write transaction, so a crash leaves the
/// whole batch or none. Pending (not yet booked) entries are left out; a
/// booking an earlier sync or file brought is `duplicate`. `also` runs in
/// the same transaction with the latest booking day (to record how far the
/// sync got). `None` when the bank sent no booked entry.
pub async fn stage_from_bank<F>(
    state: &AppState,
    user: &User,
    statement: BankStatement,
    also: F,
) -> Result<Option<BatchView>>
where
    F: FnOnce(&Connection, NaiveDate) -> Result<()> + Send + 'static,
{
    let BankStatement {
        account_id,
        file_name,
        documents,
        closing_balance,
    } = statement;
    let (u, a) = (user.id.clone(), account_id.clone());
    let currency = state.db.run(move |c| account_currency(c, &u, &a)).await?;
    let read = parsing::read(&user.id, BANK_FIELD, move |budget| {
        let choice = Choice::default();
        let mut format: Option<Format> = None;
        let mut rows = Vec::new();
        for doc in &documents {
            match read::read_within(doc, None, &choice, budget) {
                Ok(s) => {
                    format.get_or_insert(s.format);
                    rows.extend(s.rows);
                }
                Err(ReadError::Empty) => {}
                Err(e) => return Err(e),
            }
        }
        Ok((format, rows))
    })
    .await?
    .map_err(|e| refusal(BANK_FIELD, None, e))?;
    let (format, rows) = read;
    let rows: Vec<read::Row> = rows
        .into_iter()
        .filter(|r| !matches!(r.problem, Some(read::Problem::Pending { .. })))
        .collect();
    let Some(mut format) = format.filter(|_| !rows.is_empty()) else {
        return Ok(None);
    };
    if closing_balance.is_some() {
        format.closing_balance = closing_balance;
    }
    let latest = rows.iter().filter_map(|r| r.date).max();
    let staging = Staging {
        account_id,
        file_name: clean_name(&file_name).unwrap_or_else(|| "bank.txt".to_string()),
        format,
        mapping: None,
        rows,
        currency,
    };
    let (user_id, now) = (user.id.clone(), crate::clock::timestamp(state.clock.now()));
    let (view, version) = stage_rows(state, &user.id, staging, move |tx, b| {
        imports::set_source(tx, &b.id, Source::Fints)?;
        let version = reconciliation::reconcile_staged_in(tx, &user_id, &b.id)?;
        imports::set_status(tx, &b.id, BatchStatus::Reconciled, &now)?;
        if let Some(day) = latest {
            also(tx, day)?;
        }
        let b = batch_of(tx, &user_id, &b.id)?;
        Ok((batch_view(tx, b)?, version))
    })
    .await?;
    claims::reconciled(&view.id, version);
    Ok(Some(view))
}

/// The currency of the user's account `account_id`; another user's
/// account is unknown, refused naming `accountId`.
fn account_currency(c: &Connection, user: &UserId, account_id: &str) -> Result<String> {
    store::require_owned_field::<Account>(c, user, "accountId", account_id)?;
    store::accounts::currency(c, user, account_id)?.ok_or_else(|| Error::unknown("accountId"))
}

/// What a file or a bank sync brought, read, for one account.
struct Staging {
    account_id: String,
    file_name: String,
    format: Format,
    /// The mapping a CSV file was read with, as JSON.
    mapping: Option<String>,
    rows: Vec<read::Row>,
    /// The account's: a row's currency when it names none.
    currency: String,
}

/// Stages what was read as one batch: its rows made off the async threads,
/// then the batch and its rows written in one write transaction, in which
/// `then` runs with the batch; what the rows held is given back after.
async fn stage_rows<T, F>(state: &AppState, user: &UserId, staging: Staging, then: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Connection, Batch) -> Result<T> + Send + 'static,
{
    let Staging {
        account_id,
        file_name,
        format,
        mapping,
        rows,
        currency,
    } = staging;
    let rows = tokio::task::spawn_blocking(move || new_rows(rows, &currency))
        .await
        .map_err(anyhow::Error::from)?;
    let user_id = user.clone();
    let now = crate::clock::timestamp(state.clock.now());
    let staged = state
        .db
        .transaction(move |tx| {
            let b = NewBatch {
                account_id: &account_id,
                file_name: &file_name,
                format: &format,
                mapping: mapping.as_deref(),
                rows: &rows,
            }
            .insert(tx, &user_id, &now)?;
            then(tx, b)
        })
        .await;
    crate::memory::release_free();
    staged
}

/// A batch to write, with its rows.
struct NewBatch<'a> {
    account_id: &'a str,
    file_name: &'a str,
    format: &'a Format,
    mapping: Option<&'a str>,
    rows: &'a [NewRow],
}

impl NewBatch<'_> {
    /// Writes the batch in the write transaction `tx`, checking the room
    /// again there: two uploads may have passed the first check together.
    fn insert(&self, tx: &Connection, user: &UserId, now: &str) -> Result<Batch> {
        require_room(tx, user)?;
        imports::insert_batch(
            tx,
            user,
            self.account_id,
            self.file_name,
            self.format,
            self.mapping,
            self.rows,
            now,
        )
    }
}

/// Refuses another batch while the most allowed wait for a confirm.
fn require_room(c: &Connection, user: &UserId) -> Result<()> {
    if imports::open_count(c, user)? >= imports::OPEN_BATCHES_MAX {
        return Err(Error::refused(Reason::OpenImports(
            imports::OPEN_BATCHES_MAX as usize,
        )));
    }
    Ok(())
}

/// Characters of a column an unknown layout's refusal offers.
const LAYOUT_COLUMN_CHARS: usize = 100;

/// A file-level refusal, naming the field; `statement` is the format's
/// code when the file is a statement (CAMT, MT940, OFX, QIF).
fn refusal(field: &'static str, statement: Option<&'static str>, e: ReadError) -> Error {
    match e {
        ReadError::Empty => Error::invalid(field, Reason::NoRows),
        ReadError::Unreadable { rows } => Error::invalid(field, Reason::RowsUnreadable(rows)),
        ReadError::Binary(Some(kind)) => Error::invalid(field, Reason::NotABankFile(kind)),
        ReadError::Binary(None) => Error::invalid(field, Reason::NotCsv),
        ReadError::TooManyRows => Error::invalid(field, Reason::TooManyRows(MAX_ROWS)),
        // A statement file has tags or lines, not quotes: its own words.
        ReadError::FieldTooLong { line } => match statement {
            Some(kind) => Error::invalid(
                field,
                Reason::StatementFieldTooLong {
                    kind,
                    kib: read::FIELD_MAX / 1024,
                    line,
                },
            ),
            None => Error::invalid(
                field,
                Reason::FieldTooLong {
                    kib: read::FIELD_MAX / 1024,
                    line,
                },
            ),
        },
        ReadError::TooMuch { part, line } => Error::invalid(
            field,
            Reason::TooMuchInFile {
                part,
                most: read::most(part),
                line,
            },
        ),
        ReadError::TooManyAccounts => Error::invalid(
            field,
            Reason::TooManyAccounts(crate::domain::import::statement::MAX_ACCOUNTS),
        ),
        ReadError::Stopped(stop) => parsing::stopped(field, stop),
        // A header may have millions of columns: the refusal offers the
        // first ones, each cut short, and counts them all.
        ReadError::UnknownLayout { columns } => {
            let total = columns.len();
            let columns = columns
                .into_iter()
                .take(crate::error::LAYOUT_COLUMNS_OFFERED)
                .map(|c| match c.char_indices().nth(LAYOUT_COLUMN_CHARS) {
                    Some((i, _)) => format!("{}…", &c[..i]),
                    None => c,
                })
                .collect();
            Error::invalid("mapping", Reason::UnknownLayout { columns, total })
        }
        ReadError::Mapping { field, reason } => Error::invalid(field, reason),
        ReadError::Statement { kind, line } => {
            Error::invalid(field, Reason::StatementUnreadable { kind, line })
        }
        ReadError::SeveralAccounts { accounts } => {
            Error::invalid("accountIban", Reason::StatementAccounts(accounts))
        }
        ReadError::NoSuchAccount { accounts, .. } => {
            Error::invalid("accountIban", Reason::AccountNotInFile(accounts))
        }
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
                    Some(reconcile::Reason::Unreadable {
                        problem: problem.clone(),
                    }),
                ),
                (None, Some(a)) if money::round(a).is_zero() => {
                    (Status::Error, Some(reconcile::Reason::ZeroAmount))
                }
                (None, Some(a)) if a.abs() > money::MAX => (
                    Status::Error,
                    Some(reconcile::Reason::Unreadable {
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

#[derive(Serialize)]
pub struct BatchWithRows {
    #[serde(flatten)]
    pub batch: BatchView,
    pub rows: Vec<RowView>,
}

/// Which of a batch's rows to read: those of `status` (all when `None`)
/// in file order from `start`, past `offset` more, at most `limit`.
pub struct RowPage {
    /// Only rows of this status.
    pub status: Option<Status>,
    pub start: Start,
    pub offset: i64,
    pub limit: i64,
}

/// Where a page of a batch's rows begins, by key: as cheap however deep.
pub enum Start {
    /// At this file position (0: the file's first row).
    At(i64),
    /// Just after the batch's row with this id (the last of the page
    /// before); another id is refused naming `after`.
    After(String),
}

/// The user's batch with a page of its rows: a read within the read
/// budget ([`crate::store::Db::read`]), busy past it.
pub async fn get(
    state: &AppState,
    user: &User,
    id: String,
    page: RowPage,
) -> Result<BatchWithRows> {
    let user = user.clone();
    state
        .db
        .read(move |c| {
            let b = batch_of(c, &user.id, &id)?;
            let from = match page.start {
                Start::At(at) => at.max(0),
                Start::After(row) => {
                    imports::position(c, &b.id, &row)?.ok_or_else(|| Error::unknown("after"))? + 1
                }
            };
            let rows = imports::rows(c, &b.id, page.status, from, page.offset, page.limit)?
                .into_iter()
                .map(|r| row_view(r, user.locale))
                .collect();
            Ok(BatchWithRows {
                batch: batch_view(c, b)?,
                rows,
            })
        })
        .await
}

/// Where a page of a batch's rows that begins at file position `at`
/// stands among the rows of `status` (all when `None`).
pub struct Place {
    /// How many of them come before it.
    pub before: i64,
    /// The file position the page of `page` rows before it begins at.
    pub previous: i64,
}

/// [`Place`] of the page at file position `at` of the user's batch `id`:
/// counted in an index and found from `at` backwards, never by passing
/// over the rows before it.
pub async fn place(
    state: &AppState,
    user: &UserId,
    id: String,
    status: Option<Status>,
    at: i64,
    page: i64,
) -> Result<Place> {
    let user = user.clone();
    state
        .db
        .read(move |c| {
            let b = batch_of(c, &user, &id)?;
            Ok(Place {
                before: imports::rows_before(c, &b.id, status, at)?,
                previous: imports::position_before(c, &b.id, status, at, page)?,
            })
        })
        .await
}

/// The user's batches, newest first.
pub async fn list(state: &AppState, user: &UserId) -> Result<Vec<BatchView>> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            imports::list(c, &user)?
                .into_iter()
                .map(|b| batch_view(c, b))
                .collect::<Result<Vec<_>>>()
        })
        .await
}

/// How many records a confirmed batch wrote (and still has).
/// Of `batches`, the ids of those confirmed without writing a record:
/// nothing to undo, and not "imported".
pub async fn confirmed_empty(
    state: &AppState,
    user: &UserId,
    batches: &[BatchView],
) -> Result<std::collections::HashSet<String>> {
    let user = user.clone();
    let ids: Vec<String> = batches
        .iter()
        .filter(|b| b.status == BatchStatus::Confirmed)
        .map(|b| b.id.clone())
        .collect();
    state
        .db
        .run(move |c| {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            imports::write::confirmed_empty(c, &user, &ids)
        })
        .await
}

pub async fn written(state: &AppState, user: &UserId, batch_id: &str) -> Result<i64> {
    let (user, id) = (user.clone(), batch_id.to_string());
    state
        .db
        .run(move |c| imports::write::written(c, &user, &id))
        .await
}

// -------------------------------------------------------------- decisions

/// The rows a decision is for.
pub enum Rows {
    One(String),
    /// Every row of this status (never `error`).
    All(Status),
}

#[derive(Serialize)]
pub struct Decided {
    pub decided: usize,
    pub batch: BatchView,
}

/// Decides one row, or every row of a status, of an open batch.
pub async fn decide(
    state: &AppState,
    user: &UserId,
    id: String,
    rows: Rows,
    decision: Decision,
) -> Result<Decided> {
    let user = user.clone();
    state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &id)?;
            require_open(&b)?;
            let decided = match rows {
                Rows::One(row_id) => {
                    let row = readable_row(tx, &user, &b, &row_id)?;
                    imports::set_decision(tx, &row.id, Some(decision))?;
                    1
                }
                Rows::All(status) => imports::set_decisions(tx, &b.id, Some(status), decision)?,
            };
            Ok(Decided {
                decided,
                batch: batch_view(tx, b)?,
            })
        })
        .await
}

/// The row `row_id` of the batch `b`, refused when it could not be read
/// (nothing can be decided about it).
fn readable_row(c: &Connection, user: &UserId, b: &Batch, row_id: &str) -> Result<StagedRow> {
    let row = imports::find_row(c, user, &b.id, row_id)?.ok_or_else(|| Error::unknown("rowId"))?;
    if row.status == Status::Error {
        return Err(Error::invalid("rowId", Reason::UnreadableRow));
    }
    Ok(row)
}

// ------------------------------------------------------------ categories

/// Gives the row `row_id` of the user's open batch the user's category
/// `category_id` (None: no category), kept through later reconciliations;
/// answers the row. Only rows of money out, which become one-time
/// expenses, have a category.
pub async fn set_row_category(
    state: &AppState,
    user: &User,
    id: String,
    row_id: String,
    category_id: Option<String>,
) -> Result<RowView> {
    let (u, locale) = (user.id.clone(), user.locale);
    state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &u, &id)?;
            require_open(&b)?;
            let row = readable_row(tx, &u, &b, &row_id)?;
            if row.cents.is_some_and(|c| c > 0) {
                return Err(Error::invalid("rowId", Reason::MoneyInHasNoCategory));
            }
            if let Some(category) = &category_id {
                store::require_owned_field::<Category>(tx, &u, "categoryId", category)?;
            }
            imports::choose_category(tx, &u, &b.id, &row.id, category_id.as_deref())?;
            let row = imports::find_row(tx, &u, &b.id, &row.id)?.ok_or(Error::NotFound)?;
            Ok(row_view(row, locale))
        })
        .await
}

#[derive(Serialize)]
pub struct Accepted {
    /// Rows that got the AI's suggestion as their category.
    pub accepted: usize,
}

/// Gives every row of money out of the user's open batch that has no
/// category the one the AI suggested.
pub async fn accept_suggestions(state: &AppState, user: &UserId, id: String) -> Result<Accepted> {
    let user = user.clone();
    state
        .db
        .transaction(move |tx| {
            let b = batch_of(tx, &user, &id)?;
            require_open(&b)?;
            Ok(Accepted {
                accepted: imports::accept_suggestions(tx, &user, &b.id)?,
            })
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::records::{self, AccountInput};
    use crate::app::testing::{fields, Fixture};
    use serde_json::json;

    fn input<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    async fn stored(f: &Fixture, user: &UserId) -> User {
        let user = user.clone();
        f.state
            .db
            .run(move |c| crate::store::users::find(c, &user))
            .await
            .unwrap()
            .expect("stored")
    }

    /// A file of a layout no bank uses, read with the user's mapping.
    fn upload(account_id: Option<&str>, lines: &[&str]) -> Upload {
        let mut csv = "Datum;Betrag;Empfänger;Zweck\n".to_string();
        for l in lines {
            csv.push_str(l);
            csv.push('\n');
        }
        Upload {
            account_id: account_id.map(str::to_string),
            file_name: "umsatz.csv".into(),
            bytes: csv.into_bytes(),
            mapping: Some(input(
                json!({"date": "Datum", "amount": "Betrag", "payee": "Empfänger",
                "memo": "Zweck", "dateFormat": "%d.%m.%Y", "decimalSeparator": ","}),
            )),
            account_iban: None,
            file_field: "file",
        }
    }

    #[tokio::test]
    async fn a_file_staged_again_after_its_confirm_finds_its_rows_imported_before() {
        let f = Fixture::on("2026-03-15");
        let anna = f.user("anna@example.org").await;
        let giro: AccountInput =
            input(json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "500"}));
        let giro = records::create(&f.state, &anna, giro).await.unwrap().id;
        let user = stored(&f, &anna).await;
        let lines = [
            "10.03.2026;-3,20;Bäcker;Brötchen",
            "11.03.2026;-12,00;Drogerie;",
            "gestern;-1,00;Kiosk;",
        ];

        let first = stage(&f.state, &user, upload(Some(&giro), &lines))
            .await
            .unwrap();
        assert_eq!(first.row_count, 3);
        let c = &first.counts;
        assert_eq!(
            (c.new, c.duplicate, c.error),
            (2, 0, 1),
            "yesterday is no day: {c:?}"
        );
        assert!(first.is_open());
        assert_eq!(
            written(&f.state, &anna, &first.id).await.unwrap(),
            0,
            "nothing booked before a confirm"
        );
        confirm(&f.state, &user, first.id.clone(), false)
            .await
            .unwrap();
        assert_eq!(
            written(&f.state, &anna, &first.id).await.unwrap(),
            2,
            "the readable rows"
        );

        // Staged, every readable row is new; reconciled against the
        // account, the two imported before are duplicates.
        let again = stage(&f.state, &user, upload(Some(&giro), &lines))
            .await
            .unwrap();
        assert_eq!(again.counts.new, 2);
        let again = reconcile(&f.state, &user, again.id, false)
            .await
            .unwrap()
            .batch;
        let c = &again.counts;
        assert_eq!((c.new, c.duplicate, c.error), (0, 2, 1), "{c:?}");
    }

    #[tokio::test]
    async fn a_batch_needs_an_account_of_the_users_own_and_is_not_seen_by_another() {
        let f = Fixture::on("2026-03-15");
        let (anna, bob) = (
            f.user("anna@example.org").await,
            f.user("bob@example.org").await,
        );
        let user = stored(&f, &anna).await;
        let e = stage(
            &f.state,
            &user,
            upload(None, &["11.03.2026;-12,00;Drogerie;"]),
        )
        .await
        .err()
        .expect("refused");
        assert_eq!(fields(&e), [("accountId".to_string(), Reason::Required)]);

        let bobs: AccountInput =
            input(json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}));
        let bobs = records::create(&f.state, &bob, bobs).await.unwrap().id;
        let e = stage(
            &f.state,
            &user,
            upload(Some(&bobs), &["11.03.2026;-12,00;Drogerie;"]),
        )
        .await
        .err()
        .expect("refused");
        assert!(
            matches!(&e, Error::UnknownId(field) if field == "accountId"),
            "{e:?}"
        );

        let bob_user = stored(&f, &bob).await;
        let batch = stage(
            &f.state,
            &bob_user,
            upload(Some(&bobs), &["11.03.2026;-12,00;Drogerie;"]),
        )
        .await
        .unwrap();
        let e = decide(
            &f.state,
            &anna,
            batch.id.clone(),
            Rows::All(Status::New),
            Decision::Skip,
        )
        .await
        .err()
        .expect("refused");
        assert!(
            matches!(&e, Error::UnknownId(field) if field == "id"),
            "{e:?}"
        );
        assert!(list(&f.state, &anna).await.unwrap().is_empty());
        let decided = decide(
            &f.state,
            &bob,
            batch.id,
            Rows::All(Status::New),
            Decision::Skip,
        )
        .await
        .unwrap();
        assert_eq!(decided.decided, 1);
    }
}
