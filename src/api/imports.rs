//! `POST /api/imports`: the browser's upload of a bank file to stage, as
//! multipart: `file`, `accountId`, and optionally `mapping` as JSON.
//! 201 with the batch, as `stageImport` answers it. See `docs/import.md`.

use super::{error, failure, SessionUser};
use crate::app::import::{stage, Upload};
use crate::domain::import::read::Mapping;
use crate::state::AppState;
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The largest file, and the body limit with room for the other fields.
pub const FILE_MAX: usize = 64 * 1024 * 1024;
pub const BODY_LIMIT: usize = FILE_MAX + 256 * 1024;

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
    let mut account_id = None;
    let mut account_iban = None;
    let mut mapping: Option<Mapping> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return multipart_failure(e),
        };
        match field.name().unwrap_or_default() {
            "file" => {
                let name = field.file_name().unwrap_or_default().to_string();
                match field.bytes().await {
                    Ok(b) => file = Some((name, Vec::from(b))),
                    Err(e) => return multipart_failure(e),
                }
            }
            "accountId" => match field.text().await {
                Ok(t) => account_id = Some(t),
                Err(e) => return multipart_failure(e),
            },
            "accountIban" => match field.text().await {
                Ok(t) => account_iban = Some(t),
                Err(e) => return multipart_failure(e),
            },
            "mapping" => {
                let text = match field.text().await {
                    Ok(t) => t,
                    Err(e) => return multipart_failure(e),
                };
                if text.trim().is_empty() {
                    continue;
                }
                let value: serde_json::Value = match serde_json::from_str(&text) {
                    Ok(v) => v,
                    Err(_) => return error(StatusCode::BAD_REQUEST, "mapping: is not JSON"),
                };
                match crate::app::input::decode::<Mapping>(value) {
                    Ok(m) => mapping = Some(m),
                    Err(crate::Error::Invalid { field, reason }) => {
                        let field = if field == "body" {
                            "mapping".to_string()
                        } else {
                            format!("mapping.{field}")
                        };
                        return error(StatusCode::BAD_REQUEST, format!("{field}: {reason}"));
                    }
                    Err(e) => return failure(e),
                }
            }
            _ => {}
        }
    }
    let Some((file_name, bytes)) = file else {
        return error(StatusCode::BAD_REQUEST, "file: is required");
    };
    if bytes.len() > FILE_MAX {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "file: must be at most 64 MiB",
        );
    }
    let upload = Upload {
        account_id,
        file_name,
        bytes,
        mapping,
        account_iban,
        file_field: "file",
    };
    match stage(&state, &session.user, upload).await {
        Ok(batch) => (StatusCode::CREATED, Json(batch)).into_response(),
        Err(e) => failure(e),
    }
}

fn multipart_failure(e: axum::extract::multipart::MultipartError) -> Response {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "file: must be at most 64 MiB",
        )
    } else {
        error(StatusCode::BAD_REQUEST, format!("file: {}", e.body_text()))
    }
}
