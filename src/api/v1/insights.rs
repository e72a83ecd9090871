//! `GET /api/v1/insights`: unread, unexpired insights, newest first, at most 50.

use super::auth::ApiUser;
use super::ApiError;
use crate::clock::timestamp;
use crate::state::AppState;
use crate::store::insights;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

/// Insights listed (and counted by the summary) at most.
pub const MAX: u32 = 50;

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
) -> Result<impl IntoResponse, ApiError> {
    let (user, now) = (api.user.id, timestamp(state.clock.now()));
    let list = state
        .db
        .run(move |c| insights::unread(c, &user, &now, MAX))
        .await?;
    Ok(Json(json!({ "insights": list })))
}
