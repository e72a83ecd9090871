//! Documents (`docs/documents.md`): a checked upload kept within the
//! user's quota, the bytes read back, the list, deleting one, and
//! attaching one to an expense or a one-time expense. The action door takes
//! files as base64 and `/api/documents` as multipart; both call these.

use crate::error::{Error, Result};
use crate::state::AppState;
use crate::store::documents::{self, Document, Filter, Upload};
use crate::store::users::UserId;
use crate::store::{require_owned_field, Owned};

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
    )
    .await
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
            if let Some(e) = &expense {
                require_owned_field(tx, Owned::Expense, &user, "expenseId", e)?;
            }
            if let Some(d) = &daily {
                require_owned_field(tx, Owned::DailyExpense, &user, "dailyExpenseId", d)?;
            }
            documents::attach(tx, &user, &id, expense.as_deref(), daily.as_deref())?
                .ok_or(Error::NotFound)
        })
        .await
}
