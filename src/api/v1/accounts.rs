//! `GET /api/v1/accounts?forecastMonths=3`: every account with its balance
//! and a forecast from next month (cashflow view, base currency).

use super::auth::ApiUser;
use super::cache::Stamp;
use super::{json_bytes, ApiError, Params};
use crate::app::AppState;
use crate::domain::forecast::{account_forecast, AccountEntry, AccountMonth, Flow};
use crate::domain::money;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::Result;
use crate::services::rates::RateStore;
use crate::store::accounts::Account;
use crate::store::daily_expenses::{self, Filter};
use crate::store::users::User;
use crate::store::{accounts, expenses, incomes, transfers};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthJson {
    pub year: i32,
    pub month: u32,
    #[serde(serialize_with = "money::json::serialize")]
    pub income: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub expenses: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub transfers_in: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub transfers_out: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub net: Decimal,
    #[serde(serialize_with = "money::json::option::serialize")]
    pub balance: Option<Decimal>,
}

impl From<AccountMonth> for MonthJson {
    fn from(m: AccountMonth) -> Self {
        MonthJson {
            year: m.year,
            month: m.month,
            income: m.income,
            expenses: m.expenses,
            transfers_in: m.transfers_in,
            transfers_out: m.transfers_out,
            net: m.net,
            balance: m.balance,
        }
    }
}

/// The forecast object of an account (SPEC.md section 2).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastJson {
    pub months: u32,
    pub is_cumulative: bool,
    #[serde(serialize_with = "money::json::option::serialize")]
    pub projected_balance: Option<Decimal>,
    pub monthly: Vec<MonthJson>,
}

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

/// Every entry of every account of the user that falls due in
/// `[from, to]`, in the base currency, grouped by account.
pub fn entries_by_account(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HashMap<String, Vec<AccountEntry>>> {
    let rates = rates.current();
    let base = user.base_currency.as_str();
    let convert = |a: Decimal, cur: &str| rates.convert(a, cur, base).unwrap_or(a);
    let mut map: HashMap<String, Vec<AccountEntry>> = HashMap::new();
    let mut add = |account: &str, flow, amount, schedule| {
        map.entry(account.to_string())
            .or_default()
            .push(AccountEntry {
                flow,
                amount,
                schedule,
            });
    };
    for e in expenses::list(c, &user.id, false)? {
        add(
            &e.account_id,
            Flow::Expense,
            convert(e.amount, &e.currency),
            e.schedule(),
        );
    }
    for i in incomes::list(c, &user.id)? {
        add(
            &i.account_id,
            Flow::Income,
            convert(i.amount, &i.currency),
            i.schedule(),
        );
    }
    for t in transfers::list(c, &user.id)? {
        let amount = convert(t.amount, &t.currency);
        add(&t.from_account_id, Flow::TransferOut, amount, t.schedule());
        add(&t.to_account_id, Flow::TransferIn, amount, t.schedule());
    }
    let planned = Filter {
        from: Some(from),
        to: Some(to),
        ..Filter::default()
    };
    for d in daily_expenses::list(c, &user.id, &planned)? {
        add(
            &d.account_id,
            Flow::Expense,
            convert(d.amount, &d.currency),
            Schedule::once(d.date),
        );
    }
    Ok(map)
}

/// The forecast of `account` over `months` months from the month of `first`.
pub fn forecast_of(
    account: &Account,
    balance_in_base: Decimal,
    entries: &[AccountEntry],
    first: NaiveDate,
    months: u32,
) -> ForecastJson {
    let cumulative = account.kind != "checking";
    let monthly = account_forecast(
        entries,
        first,
        months as usize,
        cumulative.then_some(balance_in_base),
    );
    ForecastJson {
        months,
        is_cumulative: cumulative,
        projected_balance: monthly.last().and_then(|m| m.balance),
        monthly: monthly.into_iter().map(MonthJson::from).collect(),
    }
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
