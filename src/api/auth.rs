//! `/api/auth/*`: outside the session check; answers about the session itself.

use crate::http::session::SessionUser;
use axum::Json;
use serde_json::json;

/// `GET /api/auth/session`: the signed-in user, or 401.
pub async fn session(SessionUser(s): SessionUser) -> Json<serde_json::Value> {
    Json(json!({
        "user": { "id": s.user.id, "email": s.user.email, "name": s.user.name }
    }))
}
