//! Web-push routes: the public key, subscribing and unsubscribing
//! (`docs/push.md`). Session required.

use super::error;
use crate::app::reminders;
use crate::http::session::SessionUser;
use crate::services::push::{check_endpoint, check_resolved, PushService};
use crate::state::AppState;
use crate::store::push_subscriptions::{Saved, MAX_PER_USER};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;
use serde_json::json;

/// `GET /api/push/vapid-public-key`: `{"key": …}`, or 503 `{"key": null}`
/// when the VAPID configuration is incomplete (then a browser must not
/// subscribe: nothing could ever be sent to it).
pub async fn public_key(State(state): State<AppState>, _: SessionUser) -> Response {
    match PushService::from_config(&state.config) {
        Some(push) => Json(json!({ "key": push.public_key() })).into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "key": null })),
        )
            .into_response(),
    }
}

#[derive(Deserialize)]
struct Keys {
    p256dh: Option<String>,
    auth: Option<String>,
}

/// The browser's PushSubscription JSON.
#[derive(Deserialize)]
struct SubscriptionBody {
    endpoint: Option<serde_json::Value>,
    keys: Option<Keys>,
}

fn unprocessable(message: &str) -> Response {
    error(StatusCode::UNPROCESSABLE_ENTITY, message)
}

/// A base64url value that decodes to exactly `len` bytes; the error names
/// `field`. Stored without padding.
fn key(field: &str, value: Option<&str>, len: usize) -> Result<(String, Vec<u8>), String> {
    let v = value.unwrap_or("").trim_end_matches('=');
    match URL_SAFE_NO_PAD.decode(v) {
        Ok(b) if b.len() == len => Ok((v.to_string(), b)),
        _ => Err(format!("{field}: must be base64url of {len} bytes")),
    }
}

/// The browser's key must be a point on P-256 in uncompressed form, or no
/// message could ever be encrypted for it.
fn p256dh(value: Option<&str>) -> Result<String, String> {
    let (text, bytes) = key("keys.p256dh", value, 65)?;
    if bytes[0] != 0x04 || p256::PublicKey::from_sec1_bytes(&bytes).is_err() {
        return Err("keys.p256dh: must be an uncompressed P-256 public key".into());
    }
    Ok(text)
}

/// `POST /api/push/subscribe`: 201 for a new subscription, 200 for one
/// already stored.
pub async fn subscribe(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    body: Bytes,
) -> Response {
    let Ok(sub) = serde_json::from_slice::<SubscriptionBody>(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "body: expected the browser's PushSubscription JSON",
        );
    };
    let endpoint = match sub.endpoint {
        Some(serde_json::Value::String(s)) if !s.is_empty() => s,
        _ => return unprocessable("endpoint: must be a non-empty string"),
    };
    let checked = match check_endpoint(&endpoint, state.config.push_allow_loopback_http) {
        Ok(checked) => checked,
        Err(why) => return unprocessable(&format!("endpoint: {why}")),
    };
    if let Err(why) = check_resolved(&checked, &state.config.push_resolve).await {
        return unprocessable(&format!("endpoint: {why}"));
    }
    let keys = sub.keys.unwrap_or(Keys {
        p256dh: None,
        auth: None,
    });
    let p256dh = match p256dh(keys.p256dh.as_deref()) {
        Ok(k) => k,
        Err(why) => return unprocessable(&why),
    };
    let auth = match key("keys.auth", keys.auth.as_deref(), 16) {
        Ok((k, _)) => k,
        Err(why) => return unprocessable(&why),
    };
    let saved = reminders::subscribe(
        &state,
        &session.user.id,
        &session.id,
        endpoint,
        p256dh,
        auth,
    )
    .await;
    match saved {
        Ok(Saved::Created) => (StatusCode::CREATED, Json(json!({ "ok": true }))).into_response(),
        Ok(Saved::Updated) => Json(json!({ "ok": true })).into_response(),
        Ok(Saved::TooMany) => unprocessable(&format!(
            "endpoint: at most {MAX_PER_USER} subscriptions per user; turn reminders off on another device first"
        )),
        Err(e) => {
            e.log();
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}

#[derive(Deserialize)]
struct UnsubscribeBody {
    endpoint: Option<String>,
}

/// `DELETE /api/push/subscribe {"endpoint"}`: removes it (idempotent).
pub async fn unsubscribe(
    State(state): State<AppState>,
    SessionUser(session): SessionUser,
    body: Bytes,
) -> Response {
    let endpoint = match serde_json::from_slice::<UnsubscribeBody>(&body) {
        Ok(UnsubscribeBody { endpoint: Some(e) }) if !e.is_empty() => e,
        Ok(_) => return unprocessable("endpoint: must be a non-empty string"),
        Err(_) => return error(StatusCode::BAD_REQUEST, "body: expected {\"endpoint\": …}"),
    };
    match reminders::unsubscribe(&state, &session.user.id, endpoint).await {
        Ok(_) => Json(json!({ "ok": true })).into_response(),
        Err(e) => {
            e.log();
            error(StatusCode::INTERNAL_SERVER_ERROR, "internal error")
        }
    }
}
