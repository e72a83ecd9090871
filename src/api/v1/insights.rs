//! `GET /api/v1/insights`: unread, unexpired insights, newest first, at most 50.

use super::auth::ApiUser;
use super::RestError;
use crate::app::insights;
use crate::state::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
) -> Result<impl IntoResponse, RestError> {
    let list = insights::unread(&state, &api.user.id).await?;
    Ok(Json(json!({ "insights": list })))
}
