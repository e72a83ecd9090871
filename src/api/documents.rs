//! `/api/documents`: the session user's documents as files. The bytes are
//! served with the type they were stored as, `nosniff` and a sandboxing
//! Content-Security-Policy, so no document can run script in the app's
//! origin. See `docs/documents.md`.

use super::refusal;
use crate::app::documents;
use crate::domain::documents::{content_disposition, MAX_BYTES};
use crate::domain::locale::Locale;
use crate::error::{Error, Reason};
use crate::http::session::SessionUser;
use crate::http::upload::{Form, UploadFailure};
use crate::state::AppState;
use crate::store::documents::Upload;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// The body limit of an upload: the largest document and room for the
/// multipart framing and the other fields.
pub const UPLOAD_BODY_LIMIT: usize = MAX_BYTES + 64 * 1024;

/// `GET /api/documents`: 200 `{"documents":[…]}`, newest first.
pub async fn list(State(state): State<AppState>, SessionUser(session): SessionUser) -> Response {
    match documents::list(&state, &session.user.id, None, None).await {
        Ok(docs) => Json(json!({ "documents": docs })).into_response(),
        Err(e) => refusal(e, session.user.locale),
    }
}

/// `GET /api/documents/{id}`: the bytes, shown inline.
pub async fn get(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    Path(id): Path<String>,
) -> Response {
    let (doc, bytes) = match documents::read(&state, &session.user.id, &id).await {
        Ok(found) => found,
        Err(e) => return refusal(e, session.user.locale),
    };
    let mut res = bytes.into_response();
    let h = res.headers_mut();
    let value = |v: &str| HeaderValue::from_str(v).unwrap_or(HeaderValue::from_static(""));
    h.insert(header::CONTENT_TYPE, value(&doc.content_type));
    h.insert(
        header::CONTENT_DISPOSITION,
        value(&content_disposition(&doc.file_name)),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=3600"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    res
}

/// `DELETE /api/documents/{id}`: 204.
pub async fn delete(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    Path(id): Path<String>,
) -> Response {
    match documents::delete(&state, &session.user.id, &id).await {
        Ok(()) => StatusCode::NO_CONTENT.into_response(),
        Err(e) => refusal(e, session.user.locale),
    }
}

/// `POST /api/documents`: a multipart upload, the file in part `file`,
/// optional fields `expenseId` or `dailyExpenseId` (UUIDs of the user's
/// records); 201 with the record.
pub async fn upload(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    form: Result<Form, UploadFailure>,
) -> Response {
    let locale = session.user.locale;
    let refused = |field: &'static str, reason| refusal(Error::invalid(field, reason), locale);
    let form = match form {
        Ok(form) => form,
        Err(UploadFailure::NotAnUpload) => return refused("file", Reason::NotAnUpload),
        Err(UploadFailure::Broken { status, detail }) => {
            return upload_failure(status, detail, locale)
        }
    };
    let mut file: Option<(String, Vec<u8>)> = None;
    let (mut expense_id, mut daily_expense_id) = (None, None);
    for part in form.parts {
        let name = part.name.as_str();
        match name {
            "file" => file = Some((part.file_name, Vec::from(part.bytes))),
            "expenseId" | "dailyExpenseId" => {
                let text = part.text().trim().to_string();
                if text.is_empty() {
                    continue;
                }
                if uuid::Uuid::parse_str(&text).is_err() {
                    let field = if name == "expenseId" {
                        "expenseId"
                    } else {
                        "dailyExpenseId"
                    };
                    return refused(field, Reason::NotAnId);
                }
                if name == "expenseId" {
                    expense_id = Some(text);
                } else {
                    daily_expense_id = Some(text);
                }
            }
            _ => {}
        }
    }
    let Some((file_name, bytes)) = file else {
        return refused("file", Reason::Required);
    };
    let file_name = if file_name.trim().is_empty() {
        "document".to_string()
    } else {
        file_name
    };
    let upload = match Upload::check("file", &file_name, bytes, expense_id, daily_expense_id) {
        Ok(u) => u,
        Err(e) => return refusal(e, locale),
    };
    match documents::upload(&state, &session.user.id, upload).await {
        Ok(doc) => (StatusCode::CREATED, Json(doc)).into_response(),
        Err(e) => refusal(e, locale),
    }
}

/// A body cut off by the limit is a 413, one that stopped arriving a 408;
/// any other broken upload a 400.
fn upload_failure(status: StatusCode, detail: String, locale: Locale) -> Response {
    let reason = match status {
        StatusCode::PAYLOAD_TOO_LARGE => Reason::DocumentTooLarge,
        _ => Reason::MalformedUpload(detail),
    };
    let e = Error::invalid("file", reason);
    super::ApiError::new(status, e.text(locale)).into_response()
}
