//! The summary of `/api/v1/summary`: the current month in both views,
//! recurring costs, what is due in the next days, a forecast of the coming
//! months and the counts of unread insights; [`read`] answers it, kept
//! while the user's data, the rates, the day and the insights stand.

use crate::app::reports::dashboard::{load_ledger, Ledger, MonthView, Payment};
use crate::cache::{Stamp, Until};
use crate::clock::{parse_timestamp, timestamp};
use crate::domain::forecast::summary_forecast;
use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start};
use crate::domain::views::{self, Kind, RecurringCosts, View};
use crate::error::Result;
use crate::state::AppState;
use crate::store::insights::{self, Insight, UNREAD_MAX};
use crate::store::users::{User, UserId};
use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use rusqlite::Connection;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthBlock {
    pub year: i32,
    pub month: u32,
    pub cashflow: MonthView,
    pub reserve: MonthView,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Upcoming {
    pub days: u32,
    pub count: usize,
    pub total: Money,
    pub next: Option<Payment>,
    pub payments: Vec<Payment>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastMonth {
    pub year: i32,
    pub month: u32,
    pub income: Money,
    pub expenses: Money,
    /// Cumulative surplus from the current month through this one.
    pub balance: Money,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Forecast {
    pub months: u32,
    pub projected_income: Money,
    pub projected_expenses: Money,
    pub projected_balance: Money,
    pub monthly: Vec<ForecastMonth>,
}

/// Everything of the summary computed from the user's data (cached while
/// the data, the rates and the day stay the same).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub currency: String,
    pub total_assets: Money,
    pub has_multi_currency: bool,
    pub month: MonthBlock,
    pub recurring: RecurringCosts,
    pub upcoming: Upcoming,
    pub forecast: Forecast,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsightCounts {
    pub unread: usize,
    pub by_severity: BTreeMap<&'static str, usize>,
    pub by_type: BTreeMap<&'static str, usize>,
}

pub const SEVERITIES: [&str; 3] = ["info", "warning", "critical"];
pub const TYPES: [&str; 5] = [
    "spending_anomaly",
    "budget_warning",
    "saving_opportunity",
    "subscription_alert",
    "trend_info",
];

/// Counts of unread, unexpired insights (at most the [`UNREAD_MAX`] newest), with every
/// severity and type present.
fn count_insights(list: &[Insight]) -> InsightCounts {
    let mut by_severity: BTreeMap<&'static str, usize> =
        SEVERITIES.iter().map(|s| (*s, 0)).collect();
    let mut by_type: BTreeMap<&'static str, usize> = TYPES.iter().map(|t| (*t, 0)).collect();
    for i in list {
        if let Some(n) = SEVERITIES
            .iter()
            .find(|s| **s == i.severity)
            .and_then(|s| by_severity.get_mut(s))
        {
            *n += 1;
        }
        if let Some(n) = TYPES
            .iter()
            .find(|t| **t == i.kind)
            .and_then(|t| by_type.get_mut(t))
        {
            *n += 1;
        }
    }
    InsightCounts {
        unread: list.len(),
        by_severity,
        by_type,
    }
}

/// The counts of the user's unread, unexpired insights at `at`, and when
/// the first of them expires (a cached summary is good until then).
fn insights_at(
    c: &Connection,
    user: &UserId,
    at: &str,
) -> Result<(InsightCounts, Option<DateTime<Utc>>)> {
    let list = insights::unread(c, user, at, UNREAD_MAX)?;
    let until = insights::next_expiry(c, user, at)?
        .as_deref()
        .and_then(parse_timestamp);
    Ok((count_insights(&list), until))
}

/// The days a ledger for the summary must cover.
pub fn window(today: NaiveDate, days: u32, months: u32) -> (NaiveDate, NaiveDate) {
    let first = month_start(today);
    let from = add_months(first, -1);
    let to = (today + Duration::days(i64::from(days)))
        .max(month_end(add_months(first, months as i32 - 1)));
    (from, to)
}

/// Computes the summary of `ledger` on `today`.
fn compute(ledger: &Ledger, user: &User, today: NaiveDate, days: u32, months: u32) -> Summary {
    let first = month_start(today);
    let items = &ledger.items;
    let cash = views::monthly_totals(items, add_months(first, -1), 2, View::Cashflow);
    let reserve = views::monthly_totals(items, add_months(first, -1), 2, View::Reserve);
    let recurring = views::recurring_costs(items, first);
    let due_items = items
        .iter()
        .filter(|i| i.kind != Kind::DailyExpense)
        .chain(ledger.planned.iter());
    let payments: Vec<Payment> = views::upcoming(
        due_items,
        today,
        today + Duration::days(i64::from(days) - 1),
    )
    .into_iter()
    .filter_map(|d| ledger.payment(d.item, d.date))
    .collect();
    let monthly: Vec<ForecastMonth> = summary_forecast(items, first, months as usize)
        .into_iter()
        .map(|m| ForecastMonth {
            year: m.year,
            month: m.month,
            income: m.income.into(),
            expenses: m.expenses.into(),
            balance: m.balance.into(),
        })
        .collect();
    let projected_income = monthly.iter().map(|m| m.income).sum();
    let projected_expenses = monthly.iter().map(|m| m.expenses).sum();
    Summary {
        currency: user.base_currency.clone(),
        total_assets: ledger.total_assets.into(),
        has_multi_currency: ledger.has_multi_currency,
        month: MonthBlock {
            year: first.year(),
            month: first.month(),
            cashflow: MonthView::new(cash[1], cash[0]),
            reserve: MonthView::new(reserve[1], reserve[0]),
        },
        recurring,
        upcoming: Upcoming {
            days,
            count: payments.len(),
            total: payments.iter().map(|p| p.amount).sum(),
            next: payments.first().cloned(),
            payments,
        },
        forecast: Forecast {
            months,
            projected_income,
            projected_expenses,
            projected_balance: projected_income - projected_expenses,
            monthly,
        },
    }
}

/// The summary of `user` on `today`: payments due in the next `days` days,
/// a forecast of `months` months from the current one.
fn summary(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
    days: u32,
    months: u32,
) -> Result<Summary> {
    let (from, to) = window(today, days, months);
    let ledger = load_ledger(c, user, rates, from, to, today)?;
    Ok(compute(&ledger, user, today, days, months))
}

/// The summary with the counts of the unread insights, as
/// `/api/v1/summary` answers it (the door puts `generatedAt` in front).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    #[serde(flatten)]
    pub summary: Summary,
    pub insights: InsightCounts,
}

/// The [`Report`] of `user` (whose data version is `data_version`) at
/// `now`: [`summary`] over `days` and `months` and the insight counts. It
/// is kept in [`AppState::summary_cache`](crate::state::Inner::summary_cache)
/// while the user's data (insights included: their table moves the data
/// version too), the rates and the day stand still, and on the clock only
/// until the first unread insight expires.
pub async fn read(
    state: &AppState,
    user: &User,
    data_version: i64,
    days: u32,
    months: u32,
    now: DateTime<Utc>,
) -> Result<std::sync::Arc<Report>> {
    let today = now.date_naive();
    let stamp = Stamp {
        data_version,
        rates_generation: state.rates.generation(),
        today,
    };
    let key = format!("{}:{days}:{months}", user.id);
    if let Some(hit) = state
        .summary_cache
        .get(&key, stamp)
        .filter(|c| c.valid_at(now))
        .and_then(|c| c.value.downcast::<Report>().ok())
    {
        return Ok(hit);
    }
    let (st, user, at) = (state.clone(), user.clone(), timestamp(now));
    let (report, until) = state
        .db
        .run(move |c| {
            let summary = summary(c, &user, &st.rates.current(), today, days, months)?;
            let (insights, until) = insights_at(c, &user.id, &at)?;
            Ok((std::sync::Arc::new(Report { summary, insights }), until))
        })
        .await?;
    let value: crate::cache::AnyReport = report.clone();
    state.summary_cache.put(key, stamp, Until { value, until });
    Ok(report)
}
