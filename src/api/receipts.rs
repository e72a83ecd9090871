//! `POST /api/receipt-scan` (`docs/receipts.md`): a photo of a receipt in,
//! its merchant, date, total, currency, items and a category out, read by
//! the vision model and checked in `app::receipts`. This door reads the
//! upload and words the answer.
//!
//! Checked in this order: session (401), AI configured (400), at most
//! [`PER_MINUTE`] scans per user in any 60 seconds (429 with
//! `Retry-After`), then the file: a JPEG or PNG by its first bytes, of a
//! sane size by its header, scaled down to what vision models read before
//! it is sent (`domain::receipts::prepare`). Every reply is
//! `{"success":true,"data"}` or `{"success":false,"error"}`, the error in
//! the user's language; a provider that fails is a 502, an answer that
//! cannot be used a 422, never a 500, each a plain sentence (the cause is
//! logged in `app::receipts`).

use super::ai_turn::{AiTurn, AiUse};
use super::ApiError;
use crate::app::receipts::{self, ScanFailure};
use crate::auth::rate_limit::SlidingWindow;
use crate::domain::receipts::{image_kind, Kind, Receipt, MAX_IMAGE_BYTES};
use crate::error::{AiTask, Error, Reason};
use crate::http::upload::{Form, UploadFailure};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// Scans per user in any 60 seconds.
pub const PER_MINUTE: u32 = 5;

/// The body limit of the route: the largest image plus room for the
/// multipart framing (a file a little over 5 MiB is a 400 naming `file`;
/// a body beyond this is a 413).
pub const BODY_LIMIT: usize = MAX_IMAGE_BYTES + 64 * 1024;

#[derive(Serialize)]
struct Success<'a> {
    success: bool,
    data: Scanned<'a>,
}

/// The receipt, and its items as the notes of the expense take them, in
/// the user's number style.
#[derive(Serialize)]
struct Scanned<'a> {
    #[serde(flatten)]
    receipt: &'a Receipt,
    notes: String,
}

/// The receipt scan's use of the AI provider.
pub struct ReceiptScan;

impl AiUse for ReceiptScan {
    const PER_MINUTE: u32 = PER_MINUTE;
    const OFF_STATUS: StatusCode = StatusCode::BAD_REQUEST;
    const TASK: AiTask = AiTask::Receipt;

    fn window(state: &AppState) -> &SlidingWindow {
        &state.receipt_scans
    }

    fn reject(e: ApiError) -> Response {
        e.enveloped()
    }
}

pub async fn scan(
    State(state): State<AppState>,
    turn: AiTurn<ReceiptScan>,
    req: Request,
) -> Response {
    let user = turn.session.user;
    let failure = |status, message: String| ApiError::new(status, message).enveloped();
    let (kind, image) = match read_image(&state, req).await {
        Ok(found) => found,
        Err((status, refusal)) => return failure(status, refusal.text(user.locale)),
    };
    match receipts::scan(&state, &turn.ai, &user, kind, Vec::from(image)).await {
        Ok(receipt) => Json(Success {
            success: true,
            data: Scanned {
                notes: crate::i18n::format::receipt_items(&receipt.items, user.locale),
                receipt: &receipt,
            },
        })
        .into_response(),
        Err(ScanFailure::Image(reason)) => failure(
            StatusCode::BAD_REQUEST,
            Error::invalid("file", reason).text(user.locale),
        ),
        Err(ScanFailure::Unusable) => failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            Error::refused(Reason::AiUnusable(AiTask::Receipt)).text(user.locale),
        ),
        Err(ScanFailure::Provider) => failure(
            StatusCode::BAD_GATEWAY,
            Error::refused(Reason::AiUnavailable(AiTask::Receipt)).text(user.locale),
        ),
        Err(ScanFailure::Internal(e)) => {
            e.log();
            failure(StatusCode::INTERNAL_SERVER_ERROR, e.text(user.locale))
        }
    }
}

/// A refusal of the upload: its status and the field's error.
type Refusal = (StatusCode, Error);

/// The first part named `file`, checked: present, at most 5 MiB, a JPEG or
/// PNG by its first bytes (the part's file name and content type are never
/// asked). Other parts are read and ignored.
async fn read_image(state: &AppState, req: Request) -> Result<(Kind, Bytes), Refusal> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_LIMIT as u64) {
        return Err(too_large());
    }
    let form = match Form::from_request(req, state).await {
        Ok(form) => form,
        Err(UploadFailure::NotAnUpload) => {
            return Err((
                StatusCode::BAD_REQUEST,
                Error::invalid("file", Reason::ExpectedMultipart),
            ))
        }
        Err(UploadFailure::Broken { status, detail }) => return Err(malformed(status, detail)),
    };
    let file = form
        .parts
        .into_iter()
        .find(|part| part.name == "file")
        .map(|part| part.bytes);
    let invalid = |reason| (StatusCode::BAD_REQUEST, Error::invalid("file", reason));
    let Some(bytes) = file else {
        return Err(invalid(Reason::ReceiptRequired));
    };
    if bytes.is_empty() {
        return Err(invalid(Reason::Empty));
    }
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(invalid(Reason::ReceiptTooLarge));
    }
    match image_kind(&bytes) {
        Some(kind) => Ok((kind, bytes)),
        None => Err(invalid(Reason::NotJpegOrPng)),
    }
}

fn too_large() -> Refusal {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Error::invalid("body", Reason::ReceiptUploadTooLarge),
    )
}

/// A body cut off by the limit is a 413, one that stopped arriving a 408;
/// any other broken upload a 400.
fn malformed(status: StatusCode, detail: String) -> Refusal {
    match status {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        status => (
            status,
            Error::invalid("file", Reason::MalformedUpload(detail)),
        ),
    }
}
