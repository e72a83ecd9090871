//! Balance history and net worth over the months, for `listBalanceHistory`,
//! `getNetWorth`, `/api/v1/net-worth`, the accounts page and the forecast
//! page alike (`docs/actions.md`, Net worth). The numbers are
//! `domain::net_worth`'s; this reads what they need.

use crate::domain::money::Money;
use crate::domain::net_worth::{
    from_first_data, monthly, months_since, only_begun, trend, AccountBalance, BalancePoint,
    MonthPoint, Trend, DEFAULT_MONTHS, MAX_MONTHS,
};
use crate::domain::rates::Rates;
use crate::error::{Error, Result};
use crate::store::accounts::Account;
use crate::store::users::User;
use crate::store::{balance_history, table};
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;

/// One recorded balance of an account: `{date, balance}`, in the account's
/// currency.
#[derive(Debug, Serialize)]
pub struct DatedBalance {
    pub date: NaiveDate,
    pub balance: Money,
}

/// The recorded balances of one of `user`'s accounts, oldest first;
/// another user's account is refused like an unknown one, naming
/// `accountId`.
pub fn history(c: &Connection, user: &User, account_id: &str) -> Result<Vec<DatedBalance>> {
    if table::find::<Account>(c, &user.id, account_id)?.is_none() {
        return Err(Error::unknown("accountId"));
    }
    Ok(balance_history::of_account(c, &user.id, account_id)?
        .into_iter()
        .map(|p| DatedBalance {
            date: p.date,
            balance: p.balance.into(),
        })
        .collect())
}

/// The months of a net-worth series as an input gives them: 1 to
/// [`MAX_MONTHS`], [`DEFAULT_MONTHS`] when absent; refused naming `months`.
pub fn months(value: &Value) -> Result<u32> {
    crate::app::input::whole_number("months", value, DEFAULT_MONTHS, 1, MAX_MONTHS)
}

/// `{currency, points}`: net worth month by month, in the base currency.
#[derive(Debug, Serialize)]
pub struct NetWorth {
    pub currency: String,
    pub points: Vec<MonthPoint>,
}

/// The day an account was created (its `created_at` is a timestamp).
fn created_on(a: &Account, today: NaiveDate) -> NaiveDate {
    a.created_at
        .get(..10)
        .and_then(|d| d.parse().ok())
        .unwrap_or(today)
}

/// The day an account counts from in net worth: its creation day, or the
/// day of an earlier recorded balance (a statement older than the account
/// set its balance, `docs/import.md`).
fn since(a: &Account, history: &[BalancePoint], today: NaiveDate) -> NaiveDate {
    history
        .iter()
        .filter(|p| p.account_id == a.id)
        .map(|p| p.date)
        .fold(created_on(a, today), NaiveDate::min)
}

fn balances<'a>(
    accounts: &'a [Account],
    history: &[BalancePoint],
    today: NaiveDate,
) -> Vec<AccountBalance<'a>> {
    accounts
        .iter()
        .map(|a| AccountBalance {
            id: &a.id,
            kind: &a.kind,
            currency: &a.currency,
            since: since(a, history, today),
            balance: a.balance.0,
        })
        .collect()
}

/// Net worth of `user` for the `months` months ending with the month of
/// `today` (`months` checked by [`months`]).
pub fn net_worth(
    c: &Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    months: u32,
) -> Result<NetWorth> {
    let accounts = table::all::<Account>(c, &user.id)?;
    let history = balance_history::all(c, &user.id)?;
    Ok(series(user, rates, today, months, &accounts, &history))
}

fn series(
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    months: u32,
    accounts: &[Account],
    history: &[BalancePoint],
) -> NetWorth {
    NetWorth {
        currency: user.base_currency.clone(),
        points: monthly(
            &balances(accounts, history, today),
            history,
            rates,
            &user.base_currency,
            today,
            months.clamp(1, MAX_MONTHS),
        ),
    }
}

/// How far back the accounts page's chart reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// The last so many months, this one included.
    Months(u32),
    /// Back to the month of the oldest account (at most [`MAX_MONTHS`]).
    All,
}

/// Net worth as the accounts page draws it.
pub struct Chart {
    /// The span's months from the first month with data on.
    pub net_worth: NetWorth,
    /// Net worth now and its change over the months drawn.
    pub trend: Option<Trend>,
    /// No account has more than the one balance it began with (created,
    /// or kept from before the history): the page says history starts now.
    pub only_begun: bool,
    /// Whether the user has any account.
    pub has_accounts: bool,
}

/// The accounts page's chart of `user` over `span`, from the first month
/// with data on (the months before any balance are left out, not drawn as
/// zero; `getNetWorth` answers every month asked for).
pub fn chart(
    c: &Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    span: Span,
) -> Result<Chart> {
    let accounts = table::all::<Account>(c, &user.id)?;
    let history = balance_history::all(c, &user.id)?;
    let months = match span {
        Span::Months(n) => n,
        Span::All => accounts
            .iter()
            .map(|a| since(a, &history, today))
            .min()
            .map_or(1, |oldest| months_since(oldest, today)),
    };
    let mut net_worth = series(user, rates, today, months, &accounts, &history);
    net_worth.points = from_first_data(net_worth.points, &balances(&accounts, &history, today));
    Ok(Chart {
        trend: trend(&net_worth.points),
        net_worth,
        only_begun: only_begun(&history),
        has_accounts: !accounts.is_empty(),
    })
}

/// The balances `account` ended the last `months` full months with, in the
/// base currency, oldest first, from the month it counts from on: the past
/// the forecast page draws before the expected balances.
pub fn past_balances(
    c: &Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    account: &Account,
    months: u32,
) -> Result<Vec<(NaiveDate, Decimal)>> {
    let history = balance_history::of_account(c, &user.id, &account.id)?;
    // This month is today's balance, which the forecast starts from.
    let months = months.min(months_since(since(account, &history, today), today) - 1);
    if months == 0 {
        return Ok(Vec::new());
    }
    let points = monthly(
        &balances(std::slice::from_ref(account), &history, today),
        &history,
        rates,
        &user.base_currency,
        today,
        months + 1,
    );
    Ok(points
        .into_iter()
        .take(months as usize)
        .map(|p| (p.month, p.total.0))
        .collect())
}
