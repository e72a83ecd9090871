//! Documents: `uploadDocument`, `downloadDocument`, `listDocuments`,
//! `deleteDocument`, `attachDocument`. See `docs/documents.md`.

use super::{Ctx, Registry, Reply};
use crate::app::documents;
use crate::app::input::{optional_id, required_id, IdInput};
use crate::error::{Error, Reason, Result};
use crate::store::documents::Upload;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};

pub fn register(r: &mut Registry) {
    r.session_large("uploadDocument", upload);
    r.session("downloadDocument", download);
    r.session("listDocuments", list);
    r.session("deleteDocument", delete);
    r.session("attachDocument", attach);
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct UploadInput {
    file_name: Option<String>,
    /// Accepted and ignored: the kind is read from the bytes.
    #[allow(dead_code)]
    content_type: Option<serde_json::Value>,
    data_base64: Option<String>,
    expense_id: Option<String>,
    daily_expense_id: Option<String>,
}

async fn upload(ctx: Ctx, input: UploadInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    let file_name = input.file_name.unwrap_or_default();
    let data = input
        .data_base64
        .filter(|d| !d.trim().is_empty())
        .ok_or_else(|| Error::invalid("dataBase64", Reason::Required))?;
    // A data URL's prefix ("data:image/png;base64,") is allowed and ignored.
    let data = data
        .split_once(";base64,")
        .map_or(data.as_str(), |(_, d)| d);
    let bytes = STANDARD
        .decode(data.trim())
        .map_err(|_| Error::invalid("dataBase64", Reason::NotBase64))?;
    let upload = Upload::check(
        "dataBase64",
        &file_name,
        bytes,
        optional_id(input.expense_id),
        optional_id(input.daily_expense_id),
    )?;
    Reply::data(documents::upload(&ctx.state, &user, upload).await?)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Download {
    id: String,
    file_name: String,
    content_type: String,
    data_base64: String,
}

async fn download(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let user = ctx.user_id()?;
    let (doc, bytes) = documents::read(&ctx.state, &user, &id).await?;
    Reply::data(Download {
        id: doc.id,
        file_name: doc.file_name,
        content_type: doc.content_type,
        data_base64: STANDARD.encode(bytes),
    })
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct ListInput {
    expense_id: Option<String>,
    daily_expense_id: Option<String>,
}

async fn list(ctx: Ctx, input: ListInput) -> Result<Reply> {
    let (expense, daily) = (input.expense_id, input.daily_expense_id);
    Reply::data(documents::list(&ctx.state, &ctx.user_id()?, expense, daily).await?)
}

async fn delete(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let user = ctx.user_id()?;
    documents::delete(&ctx.state, &user, &id).await?;
    Reply::data(())
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AttachInput {
    id: Option<String>,
    expense_id: Option<String>,
    daily_expense_id: Option<String>,
}

/// `attachDocument {id, expenseId | dailyExpenseId}`; with neither, detached.
async fn attach(ctx: Ctx, input: AttachInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let (expense, daily) = (
        optional_id(input.expense_id),
        optional_id(input.daily_expense_id),
    );
    Reply::data(documents::attach(&ctx.state, &ctx.user_id()?, id, expense, daily).await?)
}
