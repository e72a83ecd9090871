//! Account forecasts (months from next month, cashflow view, base
//! currency), for `getAccountForecast`, `/api/v1/accounts` and the forecast
//! page alike.

use crate::domain::forecast::{
    account_forecast, due_between, everyday, expected_balances, lowest_daily, net_between,
    AccountEntry, AccountMonth, Everyday, Flow, EVERYDAY_MONTHS,
};
use crate::domain::money::Money;
use crate::domain::prices::Prices;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::Result;
use crate::store::accounts::Account;
use crate::store::daily_expenses::{self, Filter};
use crate::store::expenses;
use crate::store::incomes::Income;
use crate::store::table;
use crate::store::transfers::Transfer;
use crate::store::users::User;
use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthJson {
    pub year: i32,
    pub month: u32,
    pub income: Money,
    pub expenses: Money,
    pub transfers_in: Money,
    pub transfers_out: Money,
    pub net: Money,
    pub balance: Option<Money>,
}

impl From<AccountMonth> for MonthJson {
    fn from(m: AccountMonth) -> Self {
        MonthJson {
            year: m.year,
            month: m.month,
            income: m.income.into(),
            expenses: m.expenses.into(),
            transfers_in: m.transfers_in.into(),
            transfers_out: m.transfers_out.into(),
            net: m.net.into(),
            balance: m.balance.map(Money),
        }
    }
}

/// The forecast object of an account (`docs/api.md`, Account object).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastJson {
    pub months: u32,
    pub is_cumulative: bool,
    pub projected_balance: Option<Money>,
    pub monthly: Vec<MonthJson>,
}

/// Every entry of every account of the user that falls due in
/// `[from, to]`, in the base currency, grouped by account.
pub fn entries_by_account(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<HashMap<String, Vec<AccountEntry>>> {
    let base = user.base_currency.as_str();
    let convert = |a: Decimal, cur: &str| rates.to_base(a, cur, base);
    let mut map: HashMap<String, Vec<AccountEntry>> = HashMap::new();
    let mut add = |account: &str, flow, amount: Prices, schedule| {
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
            e.prices().map(|a| convert(a, &e.plan.currency)),
            e.plan.schedule(),
        );
    }
    for i in table::all::<Income>(c, &user.id)? {
        add(
            &i.account_id,
            Flow::Income,
            i.prices().map(|a| convert(a, &i.plan.currency)),
            i.plan.schedule(),
        );
    }
    for t in table::all::<Transfer>(c, &user.id)? {
        let amount = Prices::from(convert(*t.plan.amount, &t.plan.currency));
        add(
            &t.from_account_id,
            Flow::TransferOut,
            amount.clone(),
            t.plan.schedule(),
        );
        add(
            &t.to_account_id,
            Flow::TransferIn,
            amount,
            t.plan.schedule(),
        );
    }
    let planned = Filter {
        from: Some(from),
        to: Some(to),
        ..Filter::default()
    };
    for d in daily_expenses::list(c, &user.id, &planned)? {
        add(
            &d.entry.account_id,
            Flow::Expense,
            convert(*d.entry.amount, &d.entry.currency).into(),
            Schedule::once(d.entry.date),
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
        projected_balance: monthly.last().and_then(|m| m.balance).map(Money),
        monthly: monthly.into_iter().map(MonthJson::from).collect(),
    }
}

/// An account as its forecast shows it: its balance in the base currency
/// and the months ahead.
pub struct AccountOutlook {
    pub account: Account,
    pub balance_in_base: Decimal,
    pub forecast: ForecastJson,
}

/// Every account of `user` with its forecast of `months` months from the
/// month after `today`.
pub fn outlooks(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    months: u32,
) -> Result<Vec<AccountOutlook>> {
    outlooks_of(
        c,
        user,
        rates,
        today,
        months,
        table::all::<Account>(c, &user.id)?,
    )
}

/// The forecast of one of `user`'s accounts; `None` when the user has no
/// such account.
pub fn for_account(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    account_id: &str,
    months: u32,
    today: NaiveDate,
) -> Result<Option<AccountOutlook>> {
    let Some(account) = table::find::<Account>(c, &user.id, account_id)? else {
        return Ok(None);
    };
    Ok(outlooks_of(c, user, rates, today, months, vec![account])?.pop())
}

fn outlooks_of(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    months: u32,
    accounts: Vec<Account>,
) -> Result<Vec<AccountOutlook>> {
    let first = add_months(month_start(today), 1);
    let last = month_end(add_months(first, months as i32 - 1));
    let entries = entries_by_account(c, user, rates, first, last)?;
    Ok(accounts
        .into_iter()
        .map(|account| {
            let balance_in_base =
                rates.to_base(account.balance.0, &account.currency, &user.base_currency);
            let forecast = forecast_of(
                &account,
                balance_in_base,
                entries.get(&account.id).map(Vec::as_slice).unwrap_or(&[]),
                first,
                months,
            );
            AccountOutlook {
                account,
                balance_in_base,
                forecast,
            }
        })
        .collect())
}

/// What the page adds to an account's forecast (not in the REST API, whose
/// fields docs/api.md fixes): the expected balance from today's on, the rest of
/// this month included, and for a checking account everyday spending taken
/// off.
pub struct Expected {
    /// A checking account's everyday spending a month: the median of its
    /// one-time expenses in the last full months
    /// with the budgets of the categories it pays in their place
    /// ([`everyday`]).
    pub everyday: Option<Everyday>,
    /// The balance expected at each forecast month's end.
    pub with_everyday: Vec<Decimal>,
    /// The same from the entries alone.
    pub entries_only: Vec<Decimal>,
    /// The lowest balance expected from today on, day by day, and its day.
    pub lowest: (NaiveDate, Decimal),
}

/// The forecast of one of `user`'s accounts as the page shows it: the REST
/// API's object and the expected balance, from one read of the account's
/// entries; `None` when the user has no such account.
pub fn with_expected(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    account_id: &str,
    months: u32,
    today: NaiveDate,
) -> Result<Option<(AccountOutlook, Expected)>> {
    let Some(account) = table::find::<Account>(c, &user.id, account_id)? else {
        return Ok(None);
    };
    let first = add_months(month_start(today), 1);
    let last = month_end(add_months(first, months as i32 - 1));
    // From tomorrow: the forecast counts what is due from next month on,
    // the expected balance the rest of this month too.
    let entries = match today.succ_opt() {
        Some(tomorrow) => entries_by_account(c, user, rates, tomorrow, last)?
            .remove(&account.id)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let balance_in_base = rates.to_base(account.balance.0, &account.currency, &user.base_currency);
    let forecast = forecast_of(&account, balance_in_base, &entries, first, months);
    let outlook = AccountOutlook {
        account,
        balance_in_base,
        forecast,
    };
    let expected = expected(c, user, rates, &outlook, &entries, today)?;
    Ok(Some((outlook, expected)))
}

/// The expected balances of an account's `outlook` on `today`, from its
/// `entries` due from tomorrow on.
fn expected(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    outlook: &AccountOutlook,
    entries: &[AccountEntry],
    today: NaiveDate,
) -> Result<Expected> {
    let base = user.base_currency.as_str();
    let this_month = month_start(today);
    let everyday = if outlook.account.kind == "checking" {
        let since = add_months(this_month, -EVERYDAY_MONTHS);
        let until = this_month.pred_opt().unwrap_or(this_month);
        let months = EVERYDAY_MONTHS as usize;
        let index = |month: NaiveDate| {
            usize::try_from(
                (month.year() - since.year()) * 12 + month.month() as i32 - since.month() as i32,
            )
            .ok()
            .filter(|i| *i < months)
        };
        let mut spent: Vec<(Option<String>, Vec<Decimal>)> = Vec::new();
        for (month, category, currency, sum) in
            daily_expenses::account_month_sums(c, &user.id, &outlook.account.id, since, until)?
        {
            let Some(i) = index(month) else { continue };
            let at = match spent.iter().position(|(k, _)| *k == category) {
                Some(at) => at,
                None => {
                    spent.push((category, vec![Decimal::ZERO; months]));
                    spent.len() - 1
                }
            };
            spent[at].1[i] += rates.to_base(sum, &currency, base);
        }
        let budgets = super::budgets::amounts(c, user, this_month)?;
        let mut all: HashMap<String, Decimal> = HashMap::new();
        if !budgets.is_empty() {
            for (_, category, currency, sum) in
                daily_expenses::month_sums(c, &user.id, since, month_start(until))?
            {
                if let Some(k) = category {
                    *all.entry(k).or_default() += rates.to_base(sum, &currency, base);
                }
            }
        }
        Some(everyday(&spent, &all, &budgets, months))
    } else {
        None
    };
    let spending = everyday.as_ref().map_or(Decimal::ZERO, |e| e.total);
    let end = month_end(today);
    let last = month_end(add_months(this_month, outlook.forecast.months as i32));
    let rest = today
        .succ_opt()
        .filter(|d| *d <= end)
        .map_or(Decimal::ZERO, |tomorrow| {
            net_between(entries, tomorrow, end)
        });
    let left_share = Decimal::from((end - today).num_days()) / Decimal::from(end.day());
    let nets: Vec<Decimal> = outlook.forecast.monthly.iter().map(|m| m.net.0).collect();
    let line =
        |spending| expected_balances(outlook.balance_in_base, rest, left_share, &nets, spending);
    Ok(Expected {
        everyday,
        with_everyday: line(spending),
        entries_only: line(Decimal::ZERO),
        lowest: lowest_daily(outlook.balance_in_base, entries, today, last, spending),
    })
}

/// How far back [`since_balance_set`] counts: a balance set longer ago is
/// named with its day only.
pub const BALANCE_HINT_DAYS: i64 = 92;

/// The day an account's balance was last set, when known.
pub fn balance_set_on(a: &Account) -> Option<NaiveDate> {
    crate::clock::parse_timestamp(a.balance_set_at.as_deref()?).map(|t| t.date_naive())
}

/// The entries due on each of `user`'s accounts since the day its balance
/// was last set, through `today`: how many, and what they move (base
/// currency); for the balances set in the last [`BALANCE_HINT_DAYS`] days.
/// Entries never move a balance, so these are what the bank may have
/// booked since (the accounts page names them).
pub fn since_balance_set(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    accounts: &[Account],
    today: NaiveDate,
) -> Result<HashMap<String, (usize, Decimal)>> {
    let oldest = today - chrono::Duration::days(BALANCE_HINT_DAYS);
    let recent: Vec<(&Account, NaiveDate)> = accounts
        .iter()
        .filter_map(|a| Some((a, balance_set_on(a)?)))
        .filter(|(_, d)| *d >= oldest && *d < today)
        .collect();
    let Some(from) = recent.iter().map(|(_, d)| *d).min() else {
        return Ok(HashMap::new());
    };
    let entries = entries_by_account(c, user, rates, from, today)?;
    Ok(recent
        .into_iter()
        .filter_map(|(a, set_on)| {
            let after = set_on.succ_opt()?;
            let mine = entries.get(&a.id)?;
            Some((a.id.clone(), due_between(mine, after, today)))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::records::{self, AccountInput, DailyInput, IncomeInput, TransferInput};
    use crate::app::testing::Fixture;
    use crate::store::users::{self, UserId};
    use serde_json::{json, Value};

    fn input<T: serde::de::DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).unwrap()
    }

    async fn account(f: &Fixture, user: &UserId, kind: &str, balance: &str) -> String {
        let new: AccountInput =
            input(json!({"name": kind, "type": kind, "currency": "EUR", "balance": balance}));
        records::create(&f.state, user, new).await.unwrap().id
    }

    async fn outlooks_of(f: &Fixture, user: &UserId, months: u32) -> Vec<AccountOutlook> {
        let (user, today) = (user.clone(), f.state.clock.today());
        f.state
            .db
            .run(move |c| {
                let user = users::find(c, &user)?.expect("stored");
                outlooks(c, &user, &Rates::builtin(), today, months)
            })
            .await
            .unwrap()
    }

    /// A household on 15 March: the salary on checking, a standing order
    /// to savings, one planned purchase in April; the forecast starts with
    /// April, and only the user's own entries count.
    #[tokio::test]
    async fn a_forecast_counts_the_users_entries_from_next_month_on_per_account() {
        let f = Fixture::on("2026-03-15");
        let (anna, bob) = (
            f.user("anna@example.org").await,
            f.user("bob@example.org").await,
        );
        let giro = account(&f, &anna, "checking", "1000").await;
        let savings = account(&f, &anna, "savings", "5000").await;
        let salary: IncomeInput = input(
            json!({"name": "Gehalt", "amount": "2000", "frequency": "monthly",
            "startDate": "2026-01-28", "accountId": giro}),
        );
        records::create(&f.state, &anna, salary).await.unwrap();
        let order: TransferInput = input(json!({"fromAccountId": giro, "toAccountId": savings,
            "amount": "300", "frequency": "monthly", "startDate": "2026-01-01"}));
        records::create(&f.state, &anna, order).await.unwrap();
        for (date, amount) in [("2026-03-20", "999"), ("2026-04-10", "50")] {
            let planned: DailyInput = input(
                json!({"name": "Fahrrad", "amount": amount, "date": date, "accountId": giro}),
            );
            records::create(&f.state, &anna, planned).await.unwrap();
        }
        // Bob's salary is not Anna's.
        let bobs = account(&f, &bob, "checking", "0").await;
        let his: IncomeInput = input(
            json!({"name": "Gehalt", "amount": "7000", "frequency": "monthly",
            "startDate": "2026-01-01", "accountId": bobs}),
        );
        records::create(&f.state, &bob, his).await.unwrap();

        let all = outlooks_of(&f, &anna, 3).await;
        assert_eq!(all.len(), 2, "anna's two accounts");
        let of = |id: &str| &all.iter().find(|o| o.account.id == id).unwrap().forecast;

        let g = of(&giro);
        assert!(!g.is_cumulative, "a checking account shows its cashflow");
        let months: Vec<(i32, u32)> = g.monthly.iter().map(|m| (m.year, m.month)).collect();
        assert_eq!(
            months,
            [(2026, 4), (2026, 5), (2026, 6)],
            "from next month on"
        );
        let net: Vec<Decimal> = g.monthly.iter().map(|m| m.net.0).collect();
        assert_eq!(
            net,
            [
                Decimal::new(1650, 0),
                Decimal::new(1700, 0),
                Decimal::new(1700, 0)
            ]
        );
        assert_eq!(
            g.monthly[0].expenses,
            Decimal::new(50, 0),
            "March's purchase is not ahead"
        );
        assert_eq!(g.monthly[0].transfers_out, Decimal::new(300, 0));

        let s = of(&savings);
        assert!(s.is_cumulative, "savings grow from their balance");
        assert_eq!(s.monthly[0].transfers_in, Decimal::new(300, 0));
        assert_eq!(
            s.projected_balance.map(Decimal::from),
            Some(Decimal::new(5900, 0))
        );
    }
}
