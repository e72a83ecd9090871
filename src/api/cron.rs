//! `GET /api/cron/upcoming-payments` and `GET /api/cron/insights` for an
//! external scheduler, authorised by `Authorization: Bearer <CRON_SECRET>`
//! compared in constant time (`docs/planning.md`).

use crate::auth::secrets::constant_time_eq;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// The refusal, when the request may not run a job.
fn refusal(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    let Some(secret) = &state.config.cron_secret else {
        return Some(
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "CRON_SECRET not configured",
            )
                .into_response(),
        );
    };
    let expected = format!("Bearer {}", secret.expose());
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !constant_time_eq(given, &expected) {
        return Some((StatusCode::UNAUTHORIZED, "Unauthorized").into_response());
    }
    None
}

pub async fn upcoming_payments(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(r) = refusal(&state, &headers) {
        return r;
    }
    ran(crate::app::reminders::run(&state).await)
}

pub async fn insights(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(r) = refusal(&state, &headers) {
        return r;
    }
    ran(crate::app::insights::run(&state).await)
}

/// A job's reply: `success` and what it did, all zero when it could not
/// run (`{"success":false,"notified":0,"total":0}`).
fn ran<T: Serialize + Default>(summary: Option<T>) -> Response {
    #[derive(Serialize)]
    struct Ran<T> {
        success: bool,
        #[serde(flatten)]
        summary: T,
    }
    let success = summary.is_some();
    Json(Ran {
        success,
        summary: summary.unwrap_or_default(),
    })
    .into_response()
}
