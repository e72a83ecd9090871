//! `POST /api/imports`: the browser's upload of a bank file to stage, as
//! multipart: `file`, `accountId`, and optionally `mapping` as JSON.
//! 201 with the batch, as `stageImport` answers it. See `docs/import.md`.

use super::{refusal, SessionUser};
use crate::app::import::{stage, Upload};
use crate::domain::import::read::Mapping;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason};
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
    let locale = session.user.locale;
    let refused = |field: &str, reason| refusal(Error::invalid(field.to_string(), reason), locale);
    let Ok(mut multipart) = multipart else {
        return refused("file", Reason::NotAnUpload);
    };
    let mut file: Option<(String, Vec<u8>)> = None;
    let mut account_id = None;
    let mut account_iban = None;
    let mut mapping: Option<Mapping> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return multipart_failure(e, locale),
        };
        match field.name().unwrap_or_default() {
            "file" => {
                let name = field.file_name().unwrap_or_default().to_string();
                match field.bytes().await {
                    Ok(b) => file = Some((name, Vec::from(b))),
                    Err(e) => return multipart_failure(e, locale),
                }
            }
            "accountId" => match field.text().await {
                Ok(t) => account_id = Some(t),
                Err(e) => return multipart_failure(e, locale),
            },
            "accountIban" => match field.text().await {
                Ok(t) => account_iban = Some(t),
                Err(e) => return multipart_failure(e, locale),
            },
            "mapping" => {
                let text = match field.text().await {
                    Ok(t) => t,
                    Err(e) => return multipart_failure(e, locale),
                };
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
fn multipart_failure(e: axum::extract::multipart::MultipartError, locale: Locale) -> Response {
    match super::upload_status(&e) {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(locale),
        status => {
            let e = Error::invalid("file", Reason::MalformedUpload(e.body_text()));
            super::ApiError::new(status, e.text(locale)).into_response()
        }
    }
}
