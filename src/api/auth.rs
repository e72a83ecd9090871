//! `/api/auth/*`: outside the session check; answers about the session itself.

use crate::api::error;
use crate::auth::session::Session;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::json;

/// `GET /api/auth/session`: the signed-in user, or 401.
pub async fn session(session: Option<Extension<Session>>) -> Response {
    match session {
        Some(Extension(s)) => Json(json!({
            "user": { "id": s.user.id, "email": s.user.email, "name": s.user.name }
        }))
        .into_response(),
        None => error(StatusCode::UNAUTHORIZED, "unauthorized"),
    }
}
