//! `GET /api/v1/summary?upcomingDays=7&forecastMonths=3`: the month in both
//! views, recurring costs, what is due, the forecast and the insight counts
//! (`app::reports::summary::read`, kept while nothing it reads changed),
//! with `generatedAt` in front.

use super::auth::ApiUser;
use super::{Params, RestError};
use crate::app::reports::summary::{self, Report};
use crate::clock::timestamp;
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// The reply: when it was made, then the report.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reply<'a> {
    generated_at: &'a str,
    #[serde(flatten)]
    report: &'a Report,
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, RestError> {
    let params = Params::from_query(query)?;
    let days = params.int("upcomingDays", 7, 1..=90)?;
    let months = params.int("forecastMonths", 3, 1..=24)?;
    let now = state.clock.now();
    let report = summary::read(&state, &api.user, api.data_version, days, months, now).await?;
    let generated_at = timestamp(now);
    Ok(Json(Reply {
        generated_at: &generated_at,
        report: &report,
    })
    .into_response())
}
