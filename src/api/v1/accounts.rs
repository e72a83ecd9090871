//! `GET /api/v1/accounts?forecastMonths=3`: every account with its balance
//! and a forecast from next month (cashflow view, base currency).

use super::auth::ApiUser;
use super::{json_bytes, ApiError, Params};
use crate::actions::forecasts::{entries_by_account, forecast_of, ForecastJson};
use crate::domain::money;
use crate::domain::recurrence::{add_months, month_end, month_start};
use crate::error::Result;
use crate::reports::cache::Stamp;
use crate::services::rates::RateStore;
use crate::state::AppState;
use crate::store::accounts;
use crate::store::users::User;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountJson {
    id: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    currency: String,
    #[serde(serialize_with = "money::json::serialize")]
    balance: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    balance_in_base_currency: Decimal,
    created_at: String,
    forecast: ForecastJson,
}

fn compute(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    today: NaiveDate,
    months: u32,
) -> Result<Vec<u8>> {
    let first = add_months(month_start(today), 1);
    let last = month_end(add_months(first, months as i32 - 1));
    let entries = entries_by_account(c, user, rates, first, last)?;
    let table = rates.current();
    let base = user.base_currency.as_str();
    let list: Vec<AccountJson> = accounts::list(c, &user.id)?
        .into_iter()
        .map(|a| {
            let in_base = table
                .convert(a.balance, &a.currency, base)
                .unwrap_or(a.balance);
            let forecast = forecast_of(
                &a,
                in_base,
                entries.get(&a.id).map(Vec::as_slice).unwrap_or(&[]),
                first,
                months,
            );
            AccountJson {
                id: a.id,
                name: a.name,
                kind: a.kind,
                currency: a.currency,
                balance: a.balance,
                balance_in_base_currency: in_base,
                created_at: a.created_at,
                forecast,
            }
        })
        .collect();
    #[derive(Serialize)]
    struct Reply<'a> {
        currency: &'a str,
        accounts: Vec<AccountJson>,
    }
    serde_json::to_vec(&Reply {
        currency: base,
        accounts: list,
    })
    .map_err(|e| crate::Error::Internal(e.into()))
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, ApiError> {
    let params = Params::from_query(query)?;
    let months = params.int("forecastMonths", 3, 1..=24)?;
    let today = state.clock.today();
    let stamp = Stamp {
        data_version: api.data_version,
        rates_generation: state.rates.generation(),
        today,
    };
    let key = format!("{}:{months}", api.user.id);
    if let Some(body) = state.accounts_cache.get(&key, stamp) {
        return Ok(json_bytes(body));
    }
    let st = state.clone();
    let user = api.user;
    let body = state
        .db
        .run(move |c| compute(c, &user, &st.rates, today, months))
        .await
        .map_err(ApiError::internal)?;
    let body = axum::body::Bytes::from(body);
    state.accounts_cache.put(key, stamp, body.clone());
    Ok(json_bytes(body))
}
