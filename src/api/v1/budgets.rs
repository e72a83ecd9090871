//! `GET /api/v1/budgets?month=YYYY-MM`: each category's budget of a month
//! (this month when `month` is absent), as `listBudgets` computes it.

use super::auth::ApiUser;
use super::{Params, RestError};
use crate::app::reports::budgets;
use crate::domain::budgets::Status;
use crate::domain::money::Money;
use crate::domain::recurrence::month_start;
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use axum::Json;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Budget<'a> {
    category_id: &'a str,
    category: &'a str,
    icon: &'a str,
    budget: Money,
    available: Money,
    spent: Money,
    remaining: Money,
    percent: Option<i64>,
    status: Status,
}

#[derive(Serialize)]
struct Reply<'a> {
    month: &'a str,
    currency: &'a str,
    budgets: Vec<Budget<'a>>,
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<impl IntoResponse, RestError> {
    let params = Params::from_query(q)?;
    let first = match params.month("month")? {
        Some(first) => first,
        None => month_start(state.clock.today()),
    };
    let month = budgets::kept(&state, &api.user, first).await?;
    Ok(Json(Reply {
        month: &month.month,
        currency: &month.currency,
        budgets: month
            .budgets
            .iter()
            .map(|b| Budget {
                category_id: &b.category_id,
                category: &b.name,
                icon: &b.icon,
                budget: b.amount,
                available: b.available,
                spent: b.spent,
                remaining: b.remaining,
                percent: b.percent,
                status: b.status,
            })
            .collect(),
    })
    .into_response())
}
