//! Forecasts: `getAccountForecast {accountId, months?}`, the account
//! forecast object of SPEC.md (months from next month, cashflow view, base
//! currency), shared with `/api/v1/accounts` and the forecast page.

use super::input;
use super::{Ctx, Registry, Reply};
use crate::domain::forecast::{account_forecast, AccountEntry, AccountMonth, Flow};
use crate::domain::money;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::{Error, Result};
use crate::services::rates::RateStore;
use crate::store::accounts::{self, Account};
use crate::store::daily_expenses::{self, Filter};
use crate::store::users::User;
use crate::store::{expenses, incomes, transfers};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

pub fn register(r: &mut Registry) {
    r.session("getAccountForecast", get);
}

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

/// The forecast of one of `user`'s accounts: `months` months from the month
/// after `today`; `None` when the user has no such account.
pub fn for_account(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    account_id: &str,
    months: u32,
    today: NaiveDate,
) -> Result<Option<(Account, Decimal, ForecastJson)>> {
    let Some(account) = accounts::find(c, &user.id, account_id)? else {
        return Ok(None);
    };
    let first = add_months(month_start(today), 1);
    let last = month_end(add_months(first, months as i32 - 1));
    let entries = entries_by_account(c, user, rates, first, last)?;
    let in_base = rates
        .current()
        .convert(account.balance, &account.currency, &user.base_currency)
        .unwrap_or(account.balance);
    let forecast = forecast_of(
        &account,
        in_base,
        entries.get(&account.id).map(Vec::as_slice).unwrap_or(&[]),
        first,
        months,
    );
    Ok(Some((account, in_base, forecast)))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ForecastInput {
    #[serde(default)]
    account_id: Option<String>,
    #[serde(default)]
    months: Value,
}

/// Months of a forecast: 1 to 24, 12 when not given.
pub fn parse_months(value: &Value) -> Result<u32> {
    match value {
        Value::Null => Ok(12),
        Value::Number(n) => match n.as_u64() {
            Some(m) if (1..=24).contains(&m) => Ok(m as u32),
            _ => Err(Error::invalid(
                "months",
                "must be a whole number from 1 to 24",
            )),
        },
        _ => Err(Error::invalid(
            "months",
            "must be a whole number from 1 to 24",
        )),
    }
}

async fn get(ctx: Ctx, input: ForecastInput) -> Result<Reply> {
    let account_id = input::optional_id(input.account_id)
        .ok_or_else(|| Error::invalid("accountId", "is required"))?;
    let months = parse_months(&input.months)?;
    let user = ctx.user()?.clone();
    let today = ctx.state.clock.today();
    let state = ctx.state.clone();
    let forecast = ctx
        .state
        .db
        .run(move |c| for_account(c, &user, &state.rates, &account_id, months, today))
        .await?
        .ok_or_else(|| Error::invalid("accountId", "not found"))?;
    Reply::data(forecast.2)
}
