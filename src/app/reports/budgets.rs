//! The budgets of a month (`listBudgets`, `/api/v1/budgets`, the budgets
//! page, the dashboard's bars, the insights, the assistant): each budget
//! against the category's spending as the dashboard's "spending by
//! category" counts it ([`views::expenses_by_category`] over the same
//! [`Ledger`]), so the two never differ.

use super::dashboard::{self, load_ledger, Dashboard, Ledger};
use crate::domain::budgets::{self, Change, Status};
use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start};
use crate::domain::views;
use crate::error::Result;
use crate::store;
use crate::store::categories::Category;
use crate::store::users::User;
use chrono::{Datelike, Duration, NaiveDate};
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;

#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub category_id: String,
    pub name: String,
    pub icon: String,
    pub color: String,
    pub amount: Money,
    pub rollover: bool,
    pub carried: Money,
    pub available: Money,
    pub spent: Money,
    pub remaining: Money,
    pub percent: Option<i64>,
    pub status: Status,
}

#[derive(Serialize, Clone, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Budgets {
    /// `YYYY-MM`.
    pub month: String,
    pub currency: String,
    pub budgets: Vec<Budget>,
}

impl Budgets {
    /// The budget of one category, if it has one this month.
    pub fn of(&self, category_id: &str) -> Option<&Budget> {
        self.budgets.iter().find(|b| b.category_id == category_id)
    }
}

/// Every category's budget changes; the first month whose spending the
/// budgets of the month of `first` need (rollover reaches back).
pub struct Plan {
    changes: HashMap<String, Vec<Change>>,
    pub earliest: NaiveDate,
    /// No rollover is walked from before this month ([`rollover_floor`]).
    floor: NaiveDate,
}

/// How many months before the month shown a rollover is walked from at
/// most (`docs/budgets.md`, Rollover).
pub const ROLLOVER_REACH: i32 = 120;

/// The month a rollover run is carried from at the earliest, for the month
/// of `first`: where the user's data starts (the earlier of the account's
/// creation and the first spending, a one-time expense's date or a recurring
/// expense's start), and never more than [`ROLLOVER_REACH`] months back. A
/// budget set from 1900 is therefore walked over the months that can hold
/// spending, not 1,500 empty ones.
fn rollover_floor(c: &Connection, user: &User, first: NaiveDate) -> Result<NaiveDate> {
    let spending: Option<String> = c
        .prepare_cached(
            "SELECT MIN(d) FROM (
                 SELECT MIN(date) AS d FROM daily_expenses WHERE user_id = ?1
                 UNION ALL SELECT MIN(start_date) FROM expenses WHERE user_id = ?1)",
        )?
        .query_row([&user.id], |r| r.get(0))?;
    let parse = |s: &str| NaiveDate::parse_from_str(s.get(..10)?, "%Y-%m-%d").ok();
    let created = parse(&user.created_at).unwrap_or(first);
    let start = spending
        .as_deref()
        .and_then(parse)
        .map_or(created, |s| s.min(created));
    Ok(month_start(start).max(add_months(first, -ROLLOVER_REACH)))
}

/// The budget changes of `user` and how far back the month of `first` needs spending.
pub fn plan(c: &Connection, user: &User, first: NaiveDate) -> Result<Plan> {
    let first = month_start(first);
    let changes = store::budgets::all(c, &user.id)?;
    let floor = if changes.is_empty() {
        first
    } else {
        rollover_floor(c, user, first)?
    };
    let earliest = changes
        .values()
        .filter_map(|ch| budgets::months_needed_from(ch, first, floor))
        .min()
        .unwrap_or(first)
        .min(first);
    Ok(Plan {
        changes,
        earliest,
        floor,
    })
}

/// The budgets of the month of `first` over a ledger that holds the
/// months from `plan.earliest` on (the dashboard's, when it reaches back
/// far enough).
pub fn from_ledger(plan: &Plan, ledger: &Ledger, user: &User, first: NaiveDate) -> Budgets {
    let first = month_start(first);
    // Every month's spending by category from the earliest a budget needs,
    // in one pass over the ledger.
    let span = month_index(plan.earliest, first).map_or(0, |i| i + 1);
    let spending = views::expenses_by_category_months(&ledger.items, plan.earliest, span);
    let spent_in = |category: &str, m: NaiveDate| -> Decimal {
        month_index(plan.earliest, m)
            .and_then(|i| spending.get(i))
            .and_then(|sums| sums.get(&Some(category.to_string())))
            .copied()
            .unwrap_or_default()
    };
    let mut list: Vec<Budget> = Vec::new();
    for (category_id, changes) in &plan.changes {
        let Some(category) = ledger.categories.get(category_id) else {
            continue;
        };
        let Some(m) = budgets::month_from(changes, first, plan.floor, |m| spent_in(category_id, m))
        else {
            continue;
        };
        let rollover = budgets::in_force(changes, first).is_some_and(|c| c.rollover);
        list.push(line(category, m, rollover));
    }
    list.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.category_id.cmp(&b.category_id))
    });
    Budgets {
        month: first.format("%Y-%m").to_string(),
        currency: user.base_currency.clone(),
        budgets: list,
    }
}

/// How many months the month of `m` is after the month of `from`.
fn month_index(from: NaiveDate, m: NaiveDate) -> Option<usize> {
    usize::try_from((m.year() - from.year()) * 12 + m.month() as i32 - from.month() as i32).ok()
}

fn line(category: &Category, m: budgets::Month, rollover: bool) -> Budget {
    Budget {
        category_id: category.id.clone(),
        name: category.name.clone(),
        icon: category.icon.clone(),
        color: category.color.clone(),
        amount: m.amount.into(),
        rollover,
        carried: m.carried.into(),
        available: m.available.into(),
        spent: m.spent.into(),
        remaining: m.remaining.into(),
        percent: m.percent,
        status: m.status,
    }
}

/// Each category's budget amount in force in the month of `first` (no
/// rollover: what a month ahead is planned with).
pub fn amounts(c: &Connection, user: &User, first: NaiveDate) -> Result<Vec<(String, Decimal)>> {
    let first = month_start(first);
    Ok(store::budgets::all(c, &user.id)?
        .into_iter()
        .filter_map(|(k, changes)| Some((k, budgets::in_force(&changes, first)?.amount?)))
        .collect())
}

/// The budgets of `user` in the month of `first`.
pub fn budgets(
    c: &Connection,
    user: &User,
    rates: &Rates,
    first: NaiveDate,
    today: NaiveDate,
) -> Result<Budgets> {
    let first = month_start(first);
    let plan = plan(c, user, first)?;
    if plan.changes.is_empty() {
        return Ok(from_ledger(&plan, &Ledger::default(), user, first));
    }
    let ledger = load_ledger(c, user, rates, plan.earliest, month_end(first), today)?;
    Ok(from_ledger(&plan, &ledger, user, first))
}

/// The dashboard and the budgets of the month of `first`, over one ledger
/// that reaches back as far as either needs.
pub fn dashboard_and_budgets(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    first: NaiveDate,
    today: NaiveDate,
) -> Result<(Dashboard, Budgets)> {
    let plan = plan(c, user, first)?;
    let from = add_months(first, -11).min(plan.earliest);
    let to = month_end(first).max(today + Duration::days(dashboard::UPCOMING_DAYS));
    let ledger = load_ledger(c, user, rates, from, to, today)?;
    Ok((
        dashboard::build(&ledger, user, first, today),
        from_ledger(&plan, &ledger, user, first),
    ))
}

/// [`budgets`] of the month of `first`, kept while the user's data, the
/// rates and the day stand still ([`super::read_kept`]): the budgets page,
/// `listBudgets` and `/api/v1/budgets`.
pub async fn kept(
    state: &crate::state::AppState,
    user: &User,
    first: NaiveDate,
) -> Result<std::sync::Arc<Budgets>> {
    let first = month_start(first);
    let key = format!("budgets:{first}");
    super::read_kept(state, user, &key, move |c, user, rates, today| {
        budgets(c, user, rates, first, today)
    })
    .await
}

/// [`dashboard_and_budgets`], kept like [`kept`]: the dashboard page.
pub async fn dashboard_kept(
    state: &crate::state::AppState,
    user: &User,
    first: NaiveDate,
) -> Result<std::sync::Arc<(Dashboard, Budgets)>> {
    let first = month_start(first);
    let key = format!("dashboard:{first}");
    super::read_kept(state, user, &key, move |c, user, rates, today| {
        dashboard_and_budgets(c, user, rates, first, today)
    })
    .await
}
