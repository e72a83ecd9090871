//! Documents (`docs/documents.md`): a checked upload kept within the
//! user's quota, the bytes read back, the list, deleting one, and
//! attaching one to an expense or a one-time expense. The action door takes
//! files as base64 and `/api/documents` as multipart; both call these.

use crate::error::{Error, Result};
use crate::state::AppState;
use crate::store::daily_expenses::{self, DailyExpense};
use crate::store::documents::{self, Document, Filter, Upload};
use crate::store::expenses::{self, Expense};
use crate::store::require_owned_field;
use crate::store::users::UserId;
use rusqlite::Connection;

/// Keeps a checked upload ([`Upload::check`]) within the user's quota.
pub async fn upload(state: &AppState, user: &UserId, upload: Upload) -> Result<Document> {
    let now = crate::clock::timestamp(state.clock.now());
    documents::save(
        &state.db,
        &state.files,
        user,
        upload,
        state.config.document_quota,
        now,
        attachable,
    )
    .await
}

/// Fails naming its field unless the expense and the one-time expense a
/// document is attached to (either may be none) are the user's.
fn attachable(
    c: &Connection,
    user: &UserId,
    expense: Option<&str>,
    daily: Option<&str>,
) -> Result<()> {
    if let Some(e) = expense {
        require_owned_field::<Expense>(c, user, "expenseId", e)?;
    }
    if let Some(d) = daily {
        require_owned_field::<DailyExpense>(c, user, "dailyExpenseId", d)?;
    }
    Ok(())
}

/// A document and its bytes; another user's id is not found.
pub async fn read(state: &AppState, user: &UserId, id: &str) -> Result<(Document, Vec<u8>)> {
    documents::read(&state.db, &state.files, user, id)
        .await?
        .ok_or(Error::NotFound)
}

/// The user's documents, newest first; only one record's when asked.
pub async fn list(
    state: &AppState,
    user: &UserId,
    expense_id: Option<String>,
    daily_expense_id: Option<String>,
) -> Result<Vec<Document>> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            let filter = Filter {
                expense_id: expense_id.as_deref(),
                daily_expense_id: daily_expense_id.as_deref(),
            };
            documents::list(c, &user, &filter)
        })
        .await
}

/// The documents page: every document with the name of what it is attached
/// to, the bytes used, and what a document can be attached to.
pub struct Overview {
    pub documents: Vec<(Document, Option<documents::Named>)>,
    pub used_bytes: i64,
    /// The recurring expenses.
    pub recurring: Vec<Expense>,
    /// The latest one-time expenses, at most [`RECENT`].
    pub recent: Vec<DailyExpense>,
}

/// One-time expenses offered to attach a document to.
pub const RECENT: u32 = 100;

/// The user's documents and what they can be attached to.
pub async fn overview(state: &AppState, user: &UserId) -> Result<Overview> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            let recent = daily_expenses::Filter {
                limit: Some(RECENT),
                ..daily_expenses::Filter::default()
            };
            Ok(Overview {
                documents: documents::list_named(c, &user)?,
                used_bytes: documents::used_bytes(c, &user)?,
                recurring: expenses::list(c, &user, false)?,
                recent: daily_expenses::list(c, &user, &recent)?,
            })
        })
        .await
}

/// Deletes a document and its file; another user's id is not found.
pub async fn delete(state: &AppState, user: &UserId, id: &str) -> Result<()> {
    if !documents::delete(&state.db, &state.files, user, id).await? {
        return Err(Error::NotFound);
    }
    Ok(())
}

/// Attaches a document to one of the user's expenses or one-time
/// expenses, or (with neither) to none.
pub async fn attach(
    state: &AppState,
    user: &UserId,
    id: String,
    expense: Option<String>,
    daily: Option<String>,
) -> Result<Document> {
    let user = user.clone();
    state
        .db
        .transaction(move |tx| {
            attachable(tx, &user, expense.as_deref(), daily.as_deref())?;
            documents::attach(tx, &user, &id, expense.as_deref(), daily.as_deref())?
                .ok_or(Error::NotFound)
        })
        .await
}
