//! `GET /api/v1/accounts?forecastMonths=3`: every account with its balance
//! and a forecast from next month (cashflow view, base currency).

use super::auth::ApiUser;
use super::{json_bytes, Params, RestError};
use crate::app::reports::forecasts::{outlooks, ForecastJson};
use crate::cache::Stamp;
use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::error::Result;
use crate::state::AppState;
use crate::store::users::User;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::NaiveDate;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AccountJson {
    id: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    currency: String,
    balance: Money,
    balance_in_base_currency: Money,
    created_at: String,
    forecast: ForecastJson,
}

fn compute(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    months: u32,
) -> Result<Vec<u8>> {
    let base = user.base_currency.as_str();
    let list: Vec<AccountJson> = outlooks(c, user, rates, today, months)?
        .into_iter()
        .map(|o| AccountJson {
            id: o.account.id,
            name: o.account.name,
            kind: o.account.kind,
            currency: o.account.currency,
            balance: o.account.balance,
            balance_in_base_currency: o.balance_in_base.into(),
            created_at: o.account.created_at,
            forecast: o.forecast,
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
) -> Result<Response, RestError> {
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
        .run(move |c| compute(c, &user, &st.rates.current(), today, months))
        .await?;
    let body = axum::body::Bytes::from(body);
    state.accounts_cache.put(key, stamp, body.clone());
    Ok(json_bytes(body))
}
