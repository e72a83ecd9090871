//! `GET /api/v1/net-worth?months=12`: net worth month by month, oldest
//! first, ending with the current month, by account type, in the base
//! currency (`app::reports::net_worth`, as `getNetWorth` answers it).

use super::auth::ApiUser;
use super::{Params, RestError};
use crate::app::reports::{self, net_worth};
use crate::domain::net_worth::{DEFAULT_MONTHS, MAX_MONTHS};
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use axum::Json;

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<impl IntoResponse, RestError> {
    let params = Params::from_query(query)?;
    let months = params.int("months", DEFAULT_MONTHS, 1..=MAX_MONTHS)?;
    let reply = reports::read(&state, &api.user, move |c, user, rates, today| {
        net_worth::net_worth(c, user, rates, today, months)
    })
    .await?;
    Ok(Json(reply))
}
