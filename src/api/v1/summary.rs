//! `GET /api/v1/summary?upcomingDays=7&forecastMonths=3`: the month in both
//! views, recurring costs, what is due, the forecast and the insight counts
//! (`app::reports::summary::reply`, kept while nothing it reads changed).

use super::auth::ApiUser;
use super::{json_bytes, Params, RestError};
use crate::app::reports::summary;
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, RestError> {
    let params = Params::from_query(query)?;
    let days = params.int("upcomingDays", 7, 1..=90)?;
    let months = params.int("forecastMonths", 3, 1..=24)?;
    let now = state.clock.now();
    let body = summary::reply(&state, &api.user, api.data_version, days, months, now).await?;
    Ok(json_bytes(body))
}
