//! Net worth over the months, from the balances each account had
//! (`docs/actions.md`, Net worth): for every month, each account's last
//! recorded balance on or before the month's last day (today for the
//! current month), converted to the base currency at today's rates, summed
//! by account type. An account counts from the month it was created (or
//! of an older statement's balance set on it); one without a recorded
//! balance counts its balance from its creation day.

use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start};
use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use std::collections::HashMap;

/// The most months a net-worth series covers: ten years.
pub const MAX_MONTHS: u32 = 120;
/// The months a net-worth series covers when none are asked for.
pub const DEFAULT_MONTHS: u32 = 12;

/// A balance an account had on a day, in the account's currency.
#[derive(Clone, Debug, PartialEq)]
pub struct BalancePoint {
    pub account_id: String,
    pub date: NaiveDate,
    pub balance: Decimal,
}

/// What net worth needs to know of an account.
#[derive(Clone, Debug)]
pub struct AccountBalance<'a> {
    pub id: &'a str,
    /// `checking`, `savings` or `etf`.
    pub kind: &'a str,
    pub currency: &'a str,
    /// The day the account counts from: its creation day, or the earlier
    /// day of a balance set from a statement older than the account.
    pub since: NaiveDate,
    /// Its balance now: what it counts with when nothing is recorded.
    pub balance: Decimal,
}

/// A month's net worth by account type, in the base currency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ByType {
    pub checking: Money,
    pub savings: Money,
    pub etf: Money,
}

impl ByType {
    fn add(&mut self, kind: &str, amount: Decimal) {
        match kind {
            "savings" => self.savings += amount,
            "etf" => self.etf += amount,
            // The store allows only the three types; checking is the rest.
            _ => self.checking += amount,
        }
    }

    pub fn total(&self) -> Decimal {
        Decimal::from(self.checking + self.savings + self.etf)
    }
}

/// One month of net worth: `{month: "YYYY-MM", total, byType}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthPoint {
    /// The month's first day; written `YYYY-MM`.
    #[serde(serialize_with = "year_month")]
    pub month: NaiveDate,
    pub total: Money,
    pub by_type: ByType,
}

fn year_month<S: Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{:04}-{:02}", d.year(), d.month()))
}

/// Net worth for the `months` months ending with the month of `today`,
/// oldest first: each account's balance as of the month's last day (today
/// for the current month) from `history`, converted to `base` at `rates`.
/// An account counts from the month of its `since`; before its first recorded
/// balance it counts with that one, and without any recorded balance with
/// its balance now.
pub fn monthly(
    accounts: &[AccountBalance<'_>],
    history: &[BalancePoint],
    rates: &Rates,
    base: &str,
    today: NaiveDate,
    months: u32,
) -> Vec<MonthPoint> {
    let mut by_account: HashMap<&str, Vec<&BalancePoint>> = HashMap::new();
    for p in history {
        by_account.entry(p.account_id.as_str()).or_default().push(p);
    }
    for points in by_account.values_mut() {
        points.sort_by_key(|p| p.date);
    }
    let this_month = month_start(today);
    let first = add_months(this_month, 1 - months.max(1) as i32);
    (0..months.max(1) as i32)
        .map(|i| {
            let month = add_months(first, i);
            let end = if month == this_month {
                today
            } else {
                month_end(month)
            };
            let mut by_type = ByType::default();
            for a in accounts
                .iter()
                .filter(|a| month_start(a.since) <= month && a.since <= today)
            {
                let balance = match by_account.get(a.id) {
                    Some(points) => {
                        let upto = points.partition_point(|p| p.date <= end);
                        match upto {
                            0 => points[0].balance,
                            n => points[n - 1].balance,
                        }
                    }
                    None => a.balance,
                };
                by_type.add(a.kind, rates.to_base(balance, a.currency, base));
            }
            MonthPoint {
                month,
                total: by_type.total().into(),
                by_type,
            }
        })
        .collect()
}

/// The months of `points` from the first month with data on: the month
/// the earliest of `accounts` counts from (its creation, or an older
/// recorded balance), so that a chart does not draw the months before any
/// balance as zero. The current month is always kept.
pub fn from_first_data(
    mut points: Vec<MonthPoint>,
    accounts: &[AccountBalance<'_>],
) -> Vec<MonthPoint> {
    let first = accounts.iter().map(|a| month_start(a.since)).min();
    let keep_from = match first {
        Some(first) => points
            .iter()
            .position(|p| p.month >= first)
            .unwrap_or(points.len().saturating_sub(1)),
        None => points.len().saturating_sub(1),
    };
    points.drain(..keep_from);
    points
}

/// Net worth now and how it changed over the months shown: "€26,541.88,
/// +€5,499 in 12 months".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trend {
    /// The last month's total (today's).
    pub total: Decimal,
    /// The last month's total less the first month's.
    pub change: Decimal,
    /// How many months the series covers.
    pub months: u32,
}

/// The [`Trend`] of a series, oldest first; `None` when it is empty.
pub fn trend(points: &[MonthPoint]) -> Option<Trend> {
    let (first, last) = (points.first()?, points.last()?);
    Some(Trend {
        total: last.total.0,
        change: Decimal::from(last.total - first.total),
        months: points.len() as u32,
    })
}

/// How many months reach back from the month of `today` to the month of
/// `earliest` (both counted), at least 1 and at most [`MAX_MONTHS`]: the
/// series "all" of a user whose oldest account was created on `earliest`.
pub fn months_since(earliest: NaiveDate, today: NaiveDate) -> u32 {
    let span =
        (today.year() - earliest.year()) * 12 + today.month() as i32 - earliest.month() as i32 + 1;
    span.clamp(1, MAX_MONTHS as i32) as u32
}

/// Whether the history has only begun: no account has more than one
/// recorded balance (each has the one it was created or upgraded with), so
/// every line is flat and the page says that history starts now.
pub fn only_begun(history: &[BalancePoint]) -> bool {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    history.iter().all(|p| {
        let n = seen.entry(p.account_id.as_str()).or_default();
        *n += 1;
        *n <= 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    fn point(account: &str, date: &str, balance: &str) -> BalancePoint {
        BalancePoint {
            account_id: account.into(),
            date: day(date),
            balance: dec(balance),
        }
    }

    fn account<'a>(
        id: &'a str,
        kind: &'a str,
        currency: &'a str,
        created: &str,
    ) -> AccountBalance<'a> {
        AccountBalance {
            id,
            kind,
            currency,
            since: day(created),
            balance: Decimal::ZERO,
        }
    }

    fn totals(points: &[MonthPoint]) -> Vec<(String, Decimal)> {
        points
            .iter()
            .map(|p| (p.month.format("%Y-%m").to_string(), p.total.0))
            .collect()
    }

    #[test]
    fn each_month_takes_the_last_balance_on_or_before_its_last_day() {
        let accounts = [account("giro", "checking", "EUR", "2026-01-10")];
        let history = [
            point("giro", "2026-01-10", "100"),
            point("giro", "2026-02-28", "250"),
            point("giro", "2026-03-01", "300"),
            point("giro", "2026-03-20", "-40.50"),
            // After today: not yet.
            point("giro", "2026-04-20", "999"),
        ];
        let out = monthly(
            &accounts,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-15"),
            4,
        );
        assert_eq!(
            totals(&out),
            vec![
                ("2026-01".into(), dec("100")),
                ("2026-02".into(), dec("250")),
                ("2026-03".into(), dec("-40.50")),
                ("2026-04".into(), dec("-40.50")),
            ]
        );
        assert_eq!(out[2].by_type.checking, dec("-40.50"));
        assert_eq!(out[2].by_type.savings, Decimal::ZERO);
    }

    #[test]
    fn an_account_counts_from_its_creation_month_only() {
        let accounts = [
            account("giro", "checking", "EUR", "2025-06-01"),
            account("depot", "etf", "EUR", "2026-02-17"),
        ];
        let history = [
            point("giro", "2025-06-01", "1000"),
            point("depot", "2026-02-17", "5000"),
            point("depot", "2026-03-31", "5200"),
        ];
        let out = monthly(
            &accounts,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-02"),
            4,
        );
        assert_eq!(
            totals(&out),
            vec![
                ("2026-01".into(), dec("1000")),
                ("2026-02".into(), dec("6000")),
                ("2026-03".into(), dec("6200")),
                ("2026-04".into(), dec("6200")),
            ]
        );
        assert_eq!(out[0].by_type.etf, Decimal::ZERO);
        assert_eq!(out[3].by_type.etf, dec("5200"));
        assert_eq!(out[3].by_type.checking, dec("1000"));
    }

    #[test]
    fn balances_convert_at_todays_rates_and_sum_by_type() {
        let rates = Rates::over_builtin(day("2026-04-01"), [("USD", dec("1.25"))]);
        let accounts = [
            account("usd", "savings", "USD", "2026-01-01"),
            account("eur", "savings", "EUR", "2026-01-01"),
            account("etf", "etf", "EUR", "2026-01-01"),
        ];
        let history = [
            point("usd", "2026-01-01", "125"),
            point("usd", "2026-03-15", "250"),
            point("eur", "2026-01-01", "10.01"),
            point("etf", "2026-01-01", "7"),
        ];
        let out = monthly(&accounts, &history, &rates, "EUR", day("2026-04-01"), 3);
        // January at today's rate too: 125 USD is 100 EUR.
        assert_eq!(out[0].month, day("2026-02-01"));
        assert_eq!(out[0].by_type.savings, dec("110.01"));
        assert_eq!(out[1].by_type.savings, dec("210.01"));
        assert_eq!(out[1].by_type.etf, dec("7"));
        assert_eq!(out[1].total, dec("217.01"));
        // In US dollars: euros are converted, dollars stay.
        let usd = monthly(&accounts, &history, &rates, "USD", day("2026-04-01"), 1);
        assert_eq!(usd[0].by_type.savings, dec("262.51"));
    }

    #[test]
    fn without_a_recorded_balance_an_account_counts_its_balance_now() {
        let mut a = account("giro", "checking", "EUR", "2026-03-05");
        a.balance = dec("80");
        let out = monthly(&[a], &[], &Rates::builtin(), "EUR", day("2026-04-01"), 3);
        assert_eq!(
            totals(&out),
            vec![
                ("2026-02".into(), Decimal::ZERO),
                ("2026-03".into(), dec("80")),
                ("2026-04".into(), dec("80")),
            ]
        );
        // Before its first recorded balance it counts with that one.
        let b = account("giro", "checking", "EUR", "2026-03-05");
        let out = monthly(
            &[b],
            &[point("giro", "2026-04-01", "60")],
            &Rates::builtin(),
            "EUR",
            day("2026-04-01"),
            2,
        );
        assert_eq!(out[0].total, dec("60"));
    }

    #[test]
    fn the_series_ends_with_the_current_month_and_has_as_many_months_as_asked() {
        let out = monthly(&[], &[], &Rates::builtin(), "EUR", day("2026-01-31"), 13);
        assert_eq!(out.len(), 13);
        assert_eq!(out[0].month, day("2025-01-01"));
        assert_eq!(out[12].month, day("2026-01-01"));
        assert!(out.iter().all(|p| p.total.is_zero()));
        assert_eq!(
            serde_json::to_string(&out[12]).unwrap(),
            r#"{"month":"2026-01","total":0.00,"byType":{"checking":0.00,"savings":0.00,"etf":0.00}}"#
        );
    }

    #[test]
    fn a_series_starts_with_the_first_month_that_has_data() {
        let accounts = [
            account("giro", "checking", "EUR", "2026-02-10"),
            account("depot", "etf", "EUR", "2026-03-01"),
        ];
        let history = [
            point("giro", "2026-02-10", "1000"),
            point("giro", "2026-04-01", "1500"),
            point("depot", "2026-03-01", "500"),
        ];
        let all = monthly(
            &accounts,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-15"),
            12,
        );
        assert_eq!(all.len(), 12);
        let shown = from_first_data(all, &accounts);
        assert_eq!(
            totals(&shown),
            vec![
                ("2026-02".into(), dec("1000")),
                ("2026-03".into(), dec("1500")),
                ("2026-04".into(), dec("2000")),
            ]
        );
        assert_eq!(
            trend(&shown),
            Some(Trend {
                total: dec("2000"),
                change: dec("1000"),
                months: 3
            })
        );
        // An older recorded balance (a statement's) moves the start back.
        let mut older = accounts.clone();
        older[0].since = day("2025-12-31");
        let all = monthly(
            &older,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-15"),
            12,
        );
        assert_eq!(from_first_data(all, &older)[0].month, day("2025-12-01"));
        // Data older than the span: every month shown.
        let all = monthly(
            &older,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-15"),
            2,
        );
        assert_eq!(from_first_data(all, &older).len(), 2);
    }

    #[test]
    fn a_new_user_sees_this_month_only() {
        let accounts = [account("giro", "checking", "EUR", "2026-04-15")];
        let history = [point("giro", "2026-04-15", "26541.88")];
        let all = monthly(
            &accounts,
            &history,
            &Rates::builtin(),
            "EUR",
            day("2026-04-15"),
            12,
        );
        let shown = from_first_data(all, &accounts);
        assert_eq!(totals(&shown), vec![("2026-04".into(), dec("26541.88"))]);
        assert_eq!(trend(&shown).unwrap().months, 1);
        assert_eq!(trend(&shown).unwrap().change, Decimal::ZERO);
        // Without accounts the current month is kept, and no trend without months.
        let none = monthly(&[], &[], &Rates::builtin(), "EUR", day("2026-04-15"), 12);
        assert_eq!(from_first_data(none, &[]).len(), 1);
        assert_eq!(trend(&[]), None);
    }

    #[test]
    fn all_months_reach_back_to_the_oldest_account_within_ten_years() {
        assert_eq!(months_since(day("2026-04-30"), day("2026-04-01")), 1);
        assert_eq!(months_since(day("2025-05-31"), day("2026-04-01")), 12);
        assert_eq!(
            months_since(day("2001-01-01"), day("2026-04-01")),
            MAX_MONTHS
        );
        assert_eq!(months_since(day("2027-01-01"), day("2026-04-01")), 1);
    }

    #[test]
    fn history_has_only_begun_while_no_account_has_two_balances() {
        assert!(only_begun(&[]));
        assert!(only_begun(&[
            point("a", "2026-01-01", "1"),
            point("b", "2026-01-01", "2")
        ]));
        assert!(!only_begun(&[
            point("a", "2026-01-01", "1"),
            point("b", "2026-01-01", "2"),
            point("a", "2026-02-01", "3"),
        ]));
    }
}
