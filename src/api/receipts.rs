//! `POST /api/receipt-scan` (`docs/receipts.md`): a photo of a receipt in,
//! its merchant, date, total, currency, items and a category out, read by
//! the vision model and checked here (`domain::receipts`).
//!
//! Checked in this order: session (401), AI configured (400), at most
//! [`PER_MINUTE`] scans per user in any 60 seconds (429 with
//! `Retry-After`), then the file: a JPEG or PNG by its first bytes, of a
//! sane size by its header, scaled down to what vision models read before
//! it is sent (`domain::receipts::prepare`); refusals of the file are in
//! the user's language. Every reply is `{"success":true,"data"}`
//! or `{"success":false,"error"}`; a provider that fails is a 502, an
//! answer that cannot be used a 422, never a 500.

use crate::auth::session::Session;
use crate::domain::currency::Currency;
use crate::domain::merchant;
use crate::domain::receipts::{self, image_kind, CategoryChoice, Kind, Receipt, MAX_IMAGE_BYTES};
use crate::i18n::messages::localize;
use crate::services::ai::{self, ChatRequest, JsonSchema, Message, Part};
use crate::state::AppState;
use crate::store::categories::Category;
use crate::store::{merchants, table};
use axum::body::Bytes;
use axum::extract::multipart::MultipartError;
use axum::extract::{FromRequest, Multipart, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::json;

/// Scans per user in any 60 seconds.
pub const PER_MINUTE: u32 = 5;

/// The body limit of the route: the largest image plus room for the
/// multipart framing (a file a little over 5 MiB is a 400 naming `file`;
/// a body beyond this is a 413).
pub const BODY_LIMIT: usize = MAX_IMAGE_BYTES + 64 * 1024;

/// The text sent with the image.
const ASK: &str = "Read this receipt.";

fn failure(status: StatusCode, message: impl Into<String>) -> Response {
    (
        status,
        Json(json!({ "success": false, "error": message.into() })),
    )
        .into_response()
}

#[derive(Serialize)]
struct Success<'a> {
    success: bool,
    data: &'a Receipt,
}

pub async fn scan(State(state): State<AppState>, req: Request) -> Response {
    let Some(session) = req.extensions().get::<Session>().cloned() else {
        return failure(StatusCode::UNAUTHORIZED, "unauthorized");
    };
    let Some(ai) = state.ai.clone() else {
        return failure(
            StatusCode::BAD_REQUEST,
            "receipt scanning is off: the server has no AI provider (AI_API_KEY is not set)",
        );
    };
    let user = session.user.id.clone();
    if let Err(wait) = state
        .receipt_scans
        .admit(user.as_str(), PER_MINUTE, state.clock.now())
    {
        let mut res = failure(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many receipt scans: at most {PER_MINUTE} a minute; try again in {wait} s"),
        );
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        return res;
    }
    let locale = session.user.locale;
    let (kind, image) = match read_image(&state, req).await {
        Ok(found) => found,
        Err((status, message)) => return failure(status, localize(&message, locale)),
    };
    let (kind, image) = match sendable(kind, image).await {
        Ok(found) => found,
        Err((status, message)) => return failure(status, localize(&message, locale)),
    };

    let u = user.clone();
    let categories = match state.db.run(move |c| table::all::<Category>(c, &u)).await {
        Ok(list) => list
            .into_iter()
            .map(|c| CategoryChoice {
                id: c.id,
                name: c.name,
            })
            .collect::<Vec<_>>(),
        Err(e) => {
            e.log();
            return failure(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
        }
    };
    let base =
        Currency::parse("baseCurrency", &session.user.base_currency).unwrap_or(Currency::EUR);

    // The instructions go with the image in the user's message: some local
    // vision models pay little attention to a system message.
    let mut request = ChatRequest::new(
        ai.vision_model(),
        vec![Message::user_parts(vec![
            Part::Text(format!("{}\n\n{ASK}", receipts::instructions(&categories))),
            Part::ImageUrl(ai::data_uri(kind.content_type(), &image)),
        ])],
    );
    request.json_schema = Some(JsonSchema {
        name: "receipt".into(),
        schema: receipts::answer_schema(),
    });
    // The request holds the image now; free the upload during the wait.
    drop(image);
    let answer = match ai.complete_json(&request).await {
        Ok(answer) => answer,
        Err(e) if e.is_unusable_answer() => {
            tracing::info!(model = %ai.vision_model(), error = %e, "receipt scan: unusable answer");
            return failure(StatusCode::UNPROCESSABLE_ENTITY, e.to_string());
        }
        Err(e) => {
            tracing::warn!(model = %ai.vision_model(), error = %e, "receipt scan: the AI provider failed");
            return failure(StatusCode::BAD_GATEWAY, e.to_string());
        }
    };
    let mut receipt = match receipts::check_answer(&answer, &categories, &base) {
        Ok(r) => r,
        Err(why) => {
            tracing::info!(model = %ai.vision_model(), why, "receipt scan: unusable answer");
            return failure(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("the AI answer could not be used: {why}"),
            );
        }
    };

    // What the user chose for this merchant before beats the model's guess.
    let key = receipt
        .merchant
        .as_deref()
        .map(merchant::normalize)
        .unwrap_or_default();
    if !key.is_empty() {
        match state
            .db
            .run(move |c| merchants::category_for(c, &user, &key))
            .await
        {
            Ok(Some((learned, _))) if categories.iter().any(|c| c.id == learned) => {
                receipt.category_id = Some(learned);
            }
            Ok(_) => {}
            Err(e) => e.log(),
        }
    }
    Json(Success {
        success: true,
        data: &receipt,
    })
    .into_response()
}

/// One image decoded at a time, whoever asks: a large photo takes up to
/// [`receipts::prepare`]'s allocation limit while it is scaled down.
static DECODING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// The image as the vision model gets it ([`receipts::prepare`], off the
/// async threads), or the refusal naming `file`.
async fn sendable(kind: Kind, image: Bytes) -> Result<(Kind, Bytes), Refusal> {
    let internal = || {
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error".to_string(),
        )
    };
    // The header alone refuses, or lets a small image through unchanged.
    match receipts::dimensions(kind, &image) {
        Some((w, h)) if w.max(h) <= receipts::SENT_SIDE && w > 0 && h > 0 => {
            return Ok((kind, image))
        }
        None => {
            return Err((
                StatusCode::BAD_REQUEST,
                receipts::ImageRefusal::Unreadable.message(),
            ))
        }
        Some(_) => {}
    }
    let _turn = DECODING.acquire().await.map_err(|_| internal())?;
    let prepared = tokio::task::spawn_blocking(move || {
        receipts::prepare(kind, &image).map(|scaled| match scaled {
            Some(jpeg) => (Kind::Jpeg, Bytes::from(jpeg)),
            None => (kind, image),
        })
    })
    .await
    .map_err(|_| internal())?;
    prepared.map_err(|refusal| (StatusCode::BAD_REQUEST, refusal.message()))
}

/// A refusal of the upload: its status and `field: message` in English.
type Refusal = (StatusCode, String);

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
    let mut form = Multipart::from_request(req, state).await.map_err(|_| {
        (
            StatusCode::BAD_REQUEST,
            "file: expected a multipart/form-data upload with the image in the part \"file\""
                .to_string(),
        )
    })?;
    let mut file = None;
    while let Some(field) = form.next_field().await.map_err(malformed)? {
        let is_file = field.name() == Some("file");
        let bytes = field.bytes().await.map_err(malformed)?;
        if is_file && file.is_none() {
            file = Some(bytes);
        }
    }
    let invalid = |message: &str| (StatusCode::BAD_REQUEST, format!("file: {message}"));
    let Some(bytes) = file else {
        return Err(invalid("is required: a JPEG or PNG photo of the receipt"));
    };
    if bytes.is_empty() {
        return Err(invalid("is empty"));
    }
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(invalid("must be at most 5 MiB (5,242,880 bytes)"));
    }
    match image_kind(&bytes) {
        Some(kind) => Ok((kind, bytes)),
        None => Err(invalid("must be a JPEG or PNG image")),
    }
}

fn too_large() -> Refusal {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        "body: too large (the image may be at most 5 MiB)".to_string(),
    )
}

/// A body cut off by the limit is a 413; any other broken upload a 400.
fn malformed(e: MultipartError) -> Refusal {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large()
    } else {
        (
            StatusCode::BAD_REQUEST,
            format!(
                "file: the multipart/form-data body is malformed ({})",
                e.body_text()
            ),
        )
    }
}
