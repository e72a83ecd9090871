//! `/api/documents`: the session user's documents as files. The bytes are
//! served with the type they were stored as, `nosniff` and a sandboxing
//! Content-Security-Policy, so no document can run script in the app's
//! origin. See `docs/documents.md`.

use super::{error, failure, SessionUser};
use crate::app::documents;
use crate::domain::documents::{content_disposition, MAX_BYTES};
use crate::state::AppState;
use crate::store::documents::Upload;
use axum::extract::{Multipart, Path, State};
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
        Err(e) => failure(e),
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
        Err(e) => return failure(e),
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
        Err(e) => failure(e),
    }
}

/// `POST /api/documents`: a multipart upload, the file in part `file`,
/// optional fields `expenseId` or `dailyExpenseId` (UUIDs of the user's
/// records); 201 with the record.
pub async fn upload(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Ok(mut multipart) = multipart else {
        return error(
            StatusCode::BAD_REQUEST,
            "file: expected a multipart/form-data upload",
        );
    };
    let mut file: Option<(String, Vec<u8>)> = None;
    let (mut expense_id, mut daily_expense_id) = (None, None);
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return multipart_failure(e),
        };
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                let file_name = field.file_name().unwrap_or_default().to_string();
                match field.bytes().await {
                    Ok(b) => file = Some((file_name, b.to_vec())),
                    Err(e) => return multipart_failure(e),
                }
            }
            "expenseId" | "dailyExpenseId" => {
                let text = match field.text().await {
                    Ok(t) => t.trim().to_string(),
                    Err(e) => return multipart_failure(e),
                };
                if text.is_empty() {
                    continue;
                }
                if uuid::Uuid::parse_str(&text).is_err() {
                    return error(StatusCode::BAD_REQUEST, format!("{name}: must be a UUID"));
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
        return error(StatusCode::BAD_REQUEST, "file: is required");
    };
    let file_name = if file_name.trim().is_empty() {
        "document".to_string()
    } else {
        file_name
    };
    let upload = match Upload::check("file", &file_name, bytes, expense_id, daily_expense_id) {
        Ok(u) => u,
        Err(e) => return failure(e),
    };
    match documents::upload(&state, &session.user.id, upload).await {
        Ok(doc) => (StatusCode::CREATED, Json(doc)).into_response(),
        Err(e) => failure(e),
    }
}

fn multipart_failure(e: axum::extract::multipart::MultipartError) -> Response {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "file: must be at most 10 MiB",
        )
    } else {
        error(StatusCode::BAD_REQUEST, format!("file: {}", e.body_text()))
    }
}
