//! The staged bank import's actions: `stageImport`, `getImport`,
//! `listImports`, `reconcileImport`, `decideImportConflict`,
//! `confirmImport`, `cancelImport` and `undoImport`, each over one use case
//! of [`crate::app::import`]. See `docs/import.md`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::import::{self, RowPage, Rows, Start, Upload, PAGE_DEFAULT, PAGE_MAX};
use crate::app::input::optional_id;
use crate::domain::import::read::Mapping;
use crate::domain::import::reconcile::Status;
use crate::domain::import::Decision;
use crate::error::{Error, Reason, Result};
use crate::http::paging::Paging;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session_large("stageImport", stage);
    r.session("getImport", get);
    r.session("listImports", list);
    r.session("reconcileImport", reconcile);
    r.session("decideImportConflict", decide);
    r.session("setImportRowCategory", set_row_category);
    r.session("acceptImportSuggestions", accept_suggestions);
    r.session("confirmImport", confirm);
    r.session("cancelImport", cancel);
    r.session("undoImport", undo);
}

fn required_batch_id(id: Option<String>) -> Result<String> {
    optional_id(id).ok_or_else(|| Error::invalid("id", Reason::Required))
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct StageInput {
    account_id: Option<String>,
    file_name: Option<String>,
    csv: Option<String>,
    csv_base64: Option<String>,
    mapping: Option<Mapping>,
    account_iban: Option<String>,
}

async fn stage(ctx: Ctx, input: StageInput) -> Result<Reply> {
    let user = ctx.user()?;
    let (bytes, file_field) = match (input.csv, input.csv_base64) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid("csv", Reason::CsvOrBase64));
        }
        (Some(text), None) => (text.into_bytes(), "csv"),
        (None, Some(b64)) => {
            let b64: String = b64.split_whitespace().collect();
            let bytes = STANDARD
                .decode(b64)
                .map_err(|_| Error::invalid("csvBase64", Reason::NotBase64))?;
            (bytes, "csvBase64")
        }
        (None, None) => return Err(Error::invalid("csv", Reason::Required)),
    };
    let upload = Upload {
        account_id: input.account_id,
        file_name: input.file_name.unwrap_or_default(),
        bytes,
        mapping: input.mapping,
        account_iban: input.account_iban,
        file_field,
    };
    Reply::data(import::stage(&ctx.state, user, upload).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct GetInput {
    id: Option<String>,
    status: Option<String>,
    /// The page ([`Paging`]).
    offset: Option<i64>,
    limit: Option<i64>,
    after: Option<String>,
}

async fn get(ctx: Ctx, input: GetInput) -> Result<Reply> {
    let user = ctx.user()?;
    let id = required_batch_id(input.id)?;
    let status = match input.status.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => {
            Some(Status::from_code(s).ok_or_else(|| Error::invalid("status", Reason::RowStatus))?)
        }
    };
    let page = Paging {
        limit: input.limit,
        offset: input.offset,
        after: input.after,
    }
    .check(PAGE_DEFAULT, PAGE_MAX)?;
    let start = match page.after {
        Some(row) => Start::After(row),
        None => Start::At(0),
    };
    let page = RowPage {
        status,
        start,
        offset: page.offset,
        limit: page.limit,
    };
    Reply::data(import::get(&ctx.state, user, id, page).await?)
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(import::list(&ctx.state, &ctx.user_id()?).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ReconcileInput {
    id: Option<String>,
    ai: bool,
}

async fn reconcile(ctx: Ctx, input: ReconcileInput) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    Reply::data(import::reconcile(&ctx.state, ctx.user()?, id, input.ai).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct DecideInput {
    id: Option<String>,
    row_id: Option<String>,
    /// Instead of `rowId`: decide every row of this status at once.
    all: Option<String>,
    decision: Option<String>,
}

async fn decide(ctx: Ctx, input: DecideInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    let id = required_batch_id(input.id)?;
    let decision = match input.decision.as_deref().map(str::trim) {
        Some("") | None => return Err(Error::invalid("decision", Reason::Required)),
        Some(d) => Decision::from_code(d)
            .ok_or_else(|| Error::invalid("decision", Reason::ImportOrSkip))?,
    };
    let all = match input.all.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(
            Status::from_code(s)
                .filter(|s| *s != Status::Error)
                .ok_or_else(|| Error::invalid("all", Reason::DecidableStatus))?,
        ),
    };
    let rows = match (optional_id(input.row_id), all) {
        (Some(_), Some(_)) => return Err(Error::invalid("rowId", Reason::RowOrAll)),
        (None, None) => return Err(Error::invalid("rowId", Reason::Required)),
        (Some(row_id), None) => Rows::One(row_id),
        (None, Some(status)) => Rows::All(status),
    };
    Reply::data(import::decide(&ctx.state, &user, id, rows, decision).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RowCategoryInput {
    id: Option<String>,
    row_id: Option<String>,
    /// Null or empty: no category.
    category_id: Option<String>,
}

/// `setImportRowCategory {id, rowId, categoryId | null}` → the row.
async fn set_row_category(ctx: Ctx, input: RowCategoryInput) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    let row_id =
        optional_id(input.row_id).ok_or_else(|| Error::invalid("rowId", Reason::Required))?;
    let category = optional_id(input.category_id);
    Reply::data(import::set_row_category(&ctx.state, ctx.user()?, id, row_id, category).await?)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct IdOnly {
    id: Option<String>,
}

/// `acceptImportSuggestions {id}` → `{accepted}`.
async fn accept_suggestions(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    Reply::data(import::accept_suggestions(&ctx.state, &ctx.user_id()?, id).await?)
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ConfirmInput {
    id: Option<String>,
    /// Set the account's balance to the file's closing balance.
    set_balance: bool,
}

async fn confirm(ctx: Ctx, input: ConfirmInput) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    Reply::data(import::confirm(&ctx.state, ctx.user()?, id, input.set_balance).await?)
}

async fn cancel(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    Reply::data(import::cancel(&ctx.state, &ctx.user_id()?, id).await?)
}

async fn undo(ctx: Ctx, input: IdOnly) -> Result<Reply> {
    let id = required_batch_id(input.id)?;
    Reply::data(import::undo(&ctx.state, &ctx.user_id()?, id).await?)
}
