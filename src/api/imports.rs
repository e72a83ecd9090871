//! `POST /api/imports`: the browser's upload of a bank file to stage, as
//! multipart: `file`, `accountId`, and optionally `mapping` as JSON.
//! 201 with the batch, as `stageImport` answers it. See `docs/import.md`.

use super::refusal;
use crate::app::import::{stage, Upload};
use crate::domain::import::read::Mapping;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason};
use crate::http::session::SessionUser;
use crate::http::upload::{Form, UploadFailure};
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The largest file, and the body limit with room for the other fields.
pub const FILE_MAX: usize = 64 * 1024 * 1024;
pub const BODY_LIMIT: usize = FILE_MAX + 256 * 1024;

pub async fn upload(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    form: Result<Form, UploadFailure>,
) -> Response {
    let locale = session.user.locale;
    let refused = |field: &str, reason| refusal(Error::invalid(field.to_string(), reason), locale);
    let form = match form {
        Ok(form) => form,
        Err(UploadFailure::NotAnUpload) => return refused("file", Reason::NotAnUpload),
        Err(UploadFailure::Broken { status, detail }) => {
            return upload_failure(status, detail, locale)
        }
    };
    let mut file: Option<(String, Vec<u8>)> = None;
    let mut account_id = None;
    let mut account_iban = None;
    let mut mapping: Option<Mapping> = None;
    for part in form.parts {
        match part.name.as_str() {
            "file" => file = Some((part.file_name, Vec::from(part.bytes))),
            "accountId" => account_id = Some(part.text()),
            "accountIban" => account_iban = Some(part.text()),
            "mapping" => {
                let text = part.text();
                if text.trim().is_empty() {
                    continue;
                }
                let value: serde_json::Value = match serde_json::from_str(&text) {
                    Ok(v) => v,
                    Err(_) => return refused("mapping", Reason::NotJson),
                };
                match crate::app::input::decode::<Mapping>(value) {
                    Ok(m) => mapping = Some(m),
                    Err(crate::Error::Invalid { field, reason }) => {
                        let field = if field == "body" {
                            "mapping".to_string()
                        } else {
                            format!("mapping.{field}")
                        };
                        return refused(&field, reason);
                    }
                    Err(e) => return refusal(e, locale),
                }
            }
            _ => {}
        }
    }
    let Some((file_name, bytes)) = file else {
        return refused("file", Reason::Required);
    };
    if bytes.len() > FILE_MAX {
        return too_large(locale);
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
        Err(e) => staging_refused(e, locale),
    }
}

/// A refused upload, with what it offers next ([`Error::offered`]).
fn staging_refused(e: Error, locale: Locale) -> Response {
    let offer = e
        .offered()
        .map(|(key, list)| (key, serde_json::Value::from(list.to_vec())));
    let refused = super::ApiError::worded(e, locale);
    match offer {
        Some((key, list)) => refused.offering(key, list),
        None => refused.into_response(),
    }
}

/// 413 naming the file and its limit.
fn too_large(locale: Locale) -> Response {
    let e = Error::invalid("file", Reason::FileTooLarge(FILE_MAX / (1024 * 1024)));
    super::ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, e.text(locale)).into_response()
}

/// A body cut off by the limit is a 413, one that stopped arriving a 408;
/// any other broken upload a 400.
fn upload_failure(status: StatusCode, detail: String, locale: Locale) -> Response {
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(locale),
        status => {
            let e = Error::invalid("file", Reason::MalformedUpload(detail));
            super::ApiError::new(status, e.text(locale)).into_response()
        }
    }
}
