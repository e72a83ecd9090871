//! The amount of a recurring expense or income over time (`docs/actions.md`,
//! Price changes).
//!
//! An item keeps its latest amount; each earlier amount is kept with the
//! day it stopped applying (`until`, exclusive). A due date before that day
//! is paid at the earlier amount, so raising a price from a chosen date
//! leaves the months before it as they were.

use super::recurrence::{Frequency, Schedule};
use crate::domain::money::Money;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

/// An amount that applied to due dates before `until`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Earlier {
    pub until: NaiveDate,
    pub amount: Money,
}

/// An item's amounts: the latest and the earlier ones, oldest first (as
/// `store::prices::parse` reads them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prices {
    pub latest: Decimal,
    pub earlier: Vec<Earlier>,
}

impl From<Decimal> for Prices {
    fn from(latest: Decimal) -> Prices {
        Prices {
            latest,
            earlier: Vec::new(),
        }
    }
}

impl Prices {
    /// The amount of a payment due on `day`.
    pub fn on(&self, day: NaiveDate) -> Decimal {
        self.earlier
            .iter()
            .find(|e| day < e.until)
            .map_or(self.latest, |e| e.amount.0)
    }

    /// Every amount converted by `f` (into the base currency).
    pub fn map(&self, f: impl Fn(Decimal) -> Decimal) -> Prices {
        Prices {
            latest: f(self.latest),
            earlier: self
                .earlier
                .iter()
                .map(|e| Earlier {
                    until: e.until,
                    amount: f(e.amount.0).into(),
                })
                .collect(),
        }
    }

    /// The amounts after `amount` is set to apply from `from` on, for an
    /// item first due on `start`: due dates before `from` keep what they
    /// had, those from it on get `amount`. From the start (or before), the
    /// item has one amount and no history.
    pub fn change(&self, from: NaiveDate, amount: Decimal, start: NaiveDate) -> Prices {
        if from <= start {
            return Prices::from(amount);
        }
        let before = self.on(from.pred_opt().unwrap_or(from));
        let mut earlier: Vec<Earlier> = self
            .earlier
            .iter()
            .filter(|e| e.until > start && e.until <= from)
            .copied()
            .collect();
        earlier.push(Earlier {
            until: from,
            amount: before.into(),
        });
        // A stretch with the same amount as the one after it is no change.
        let mut merged: Vec<Earlier> = Vec::with_capacity(earlier.len());
        for (i, e) in earlier.iter().enumerate() {
            let next = earlier.get(i + 1).map_or(amount, |n| n.amount.0);
            if e.amount != next {
                merged.push(*e);
            }
        }
        Prices {
            latest: amount,
            earlier: merged,
        }
    }

    /// What the payments of `schedule` due in the twelve months from
    /// `today` on (`today` included, the same day a year later not) cost,
    /// each at the amount of its day: a raise announced for next month
    /// counts from then, an end date stops the payments.
    pub fn next_twelve_months(&self, schedule: &Schedule, today: NaiveDate) -> Decimal {
        let last = today
            .checked_add_months(chrono::Months::new(12))
            .and_then(|d| d.pred_opt())
            .unwrap_or(today);
        schedule
            .due_dates(today, last)
            .into_iter()
            .map(|day| self.on(day))
            .sum()
    }

    /// The first day from which the latest amount applies, when it is not
    /// the only one.
    pub fn latest_from(&self) -> Option<NaiveDate> {
        self.earlier.last().map(|e| e.until)
    }
}

/// An update of a recurring item, as far as its amounts are concerned.
pub struct Update<'a> {
    pub amount: Decimal,
    pub currency: &'a str,
    /// The day the amount applies from, when the person chose one.
    pub from: Option<NaiveDate>,
    pub start: NaiveDate,
    /// A one-off (an income due once) has one amount.
    pub once: bool,
}

impl<'a> Update<'a> {
    /// The update of an item to `amount` in `currency` on `schedule`, from
    /// `from` when the person chose a day.
    pub fn of(
        amount: Decimal,
        currency: &'a str,
        from: Option<NaiveDate>,
        schedule: &Schedule,
    ) -> Update<'a> {
        Update {
            amount,
            currency,
            from,
            start: schedule.start,
            once: schedule.frequency == Frequency::Once,
        }
    }
}

impl Prices {
    /// The earlier amounts after `update` of an item that had these amounts
    /// in `currency`; `None` when they stay as they are. A new amount with
    /// no day chosen applies from `today`, so the past keeps its amounts; a
    /// chosen day on or before the start corrects every payment. A new
    /// currency or a one-off keeps no history.
    pub fn after_update(
        &self,
        currency: &str,
        update: &Update<'_>,
        today: NaiveDate,
    ) -> Option<Vec<Earlier>> {
        let forget = || (!self.earlier.is_empty()).then(Vec::new);
        if update.currency != currency || update.once {
            return forget();
        }
        let from = match update.from {
            Some(day) => day,
            None if update.amount != self.latest => today,
            // A later start leaves out the amounts that ended before it.
            None if self.earlier.iter().any(|e| e.until <= update.start) => {
                let kept = self.earlier.iter().filter(|e| e.until > update.start);
                return Some(kept.copied().collect());
            }
            None => return None,
        };
        let changed = self.change(from, update.amount, update.start);
        (changed.earlier != self.earlier).then_some(changed.earlier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }
    fn dec(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn a_raise_from_a_day_keeps_the_days_before_it() {
        let p = Prices::from(dec("13.99")).change(d("2026-11-01"), dec("15.99"), d("2024-01-15"));
        assert_eq!(p.on(d("2026-10-15")), dec("13.99"));
        assert_eq!(p.on(d("2026-10-31")), dec("13.99"));
        assert_eq!(p.on(d("2026-11-01")), dec("15.99"));
        assert_eq!(p.on(d("2027-05-15")), dec("15.99"));
        assert_eq!(p.latest_from(), Some(d("2026-11-01")));
    }

    #[test]
    fn a_change_from_the_start_rewrites_everything() {
        let p = Prices::from(dec("13.99"))
            .change(d("2026-11-01"), dec("15.99"), d("2024-01-15"))
            .change(d("2024-01-15"), dec("9.99"), d("2024-01-15"));
        assert_eq!(p, Prices::from(dec("9.99")));
    }

    #[test]
    fn an_earlier_change_replaces_the_later_ones() {
        let p = Prices::from(dec("10"))
            .change(d("2025-01-01"), dec("12"), d("2024-01-01"))
            .change(d("2026-01-01"), dec("14"), d("2024-01-01"))
            .change(d("2025-06-01"), dec("13"), d("2024-01-01"));
        assert_eq!(p.on(d("2024-12-31")), dec("10"));
        assert_eq!(p.on(d("2025-05-31")), dec("12"));
        assert_eq!(p.on(d("2025-06-01")), dec("13"));
        assert_eq!(p.on(d("2026-02-01")), dec("13"));
        assert_eq!(p.earlier.len(), 2);
    }

    #[test]
    fn the_same_amount_again_changes_nothing() {
        let p = Prices::from(dec("10")).change(d("2025-01-01"), dec("12"), d("2024-01-01"));
        assert_eq!(p.change(d("2025-03-01"), dec("12"), d("2024-01-01")), p);
        // Back to the old amount: no change is left.
        assert_eq!(
            p.change(d("2025-01-01"), dec("10"), d("2024-01-01")),
            Prices::from(dec("10"))
        );
    }

    #[test]
    fn a_change_in_the_future_applies_from_then() {
        let p = Prices::from(dec("13.99")).change(d("2027-01-01"), dec("15.99"), d("2024-01-15"));
        assert_eq!(p.on(d("2026-12-15")), dec("13.99"));
        assert_eq!(p.on(d("2027-01-15")), dec("15.99"));
        assert_eq!(p.latest, dec("15.99"));
    }

    #[test]
    fn the_next_twelve_months_cost_each_payment_at_the_amount_of_its_day() {
        let start = d("2024-01-15");
        let monthly = Schedule::new(Frequency::Monthly, start, None).unwrap();
        let today = d("2026-11-27");
        // 15.99 from December 1st: every payment from December 15th on.
        let p = Prices::from(dec("13.99")).change(d("2026-12-01"), dec("15.99"), start);
        assert_eq!(p.next_twelve_months(&monthly, today), dec("191.88"));
        // A raise from January: the December payment keeps 13.99.
        let p = Prices::from(dec("13.99")).change(d("2027-01-01"), dec("15.99"), start);
        assert_eq!(
            p.next_twelve_months(&monthly, today),
            dec("13.99") + dec("15.99") * Decimal::from(11)
        );
        // No change: twelve times the amount.
        let same = Prices::from(dec("13.99"));
        assert_eq!(same.next_twelve_months(&monthly, today), dec("167.88"));
        // Due today counts, the same day a year later does not.
        let on_the_day = Schedule::new(Frequency::Monthly, today, None).unwrap();
        assert_eq!(same.next_twelve_months(&on_the_day, today), dec("167.88"));
        // A yearly payment falls once in any twelve months.
        let yearly = Schedule::new(Frequency::Yearly, d("2025-06-01"), None).unwrap();
        let p = Prices::from(dec("90")).change(d("2027-01-01"), dec("120"), d("2025-06-01"));
        assert_eq!(p.next_twelve_months(&yearly, today), dec("120"));
        // An end date stops the payments.
        let ending = Schedule::new(Frequency::Monthly, start, Some(d("2027-02-28"))).unwrap();
        assert_eq!(same.next_twelve_months(&ending, today), dec("41.97"));
    }

    fn update(amount: &str, from: Option<&str>) -> Update<'static> {
        Update {
            amount: dec(amount),
            currency: "EUR",
            from: from.map(d),
            start: d("2024-01-15"),
            once: false,
        }
    }

    #[test]
    fn an_update_without_a_day_changes_the_amount_from_today() {
        let p = Prices::from(dec("13.99"));
        let today = d("2026-11-25");
        let earlier = p
            .after_update("EUR", &update("15.99", None), today)
            .unwrap();
        assert_eq!(
            earlier,
            vec![Earlier {
                until: today,
                amount: dec("13.99").into()
            }]
        );
        // The same amount and no day: nothing to do, a later raise stays.
        let later = p.change(d("2027-01-01"), dec("15.99"), d("2024-01-15"));
        assert_eq!(
            later.after_update("EUR", &update("15.99", None), today),
            None
        );
        // A chosen day is taken even when the amount is the same: the raise moves.
        let moved = later
            .after_update("EUR", &update("15.99", Some("2026-12-01")), today)
            .unwrap();
        assert_eq!(moved[0].until, d("2026-12-01"));
    }

    #[test]
    fn a_later_start_leaves_out_the_amounts_before_it() {
        let p = Prices::from(dec("10"))
            .change(d("2025-01-01"), dec("12"), d("2024-01-15"))
            .change(d("2026-01-01"), dec("14"), d("2024-01-15"));
        let mut u = update("14", None);
        u.start = d("2025-03-01");
        let kept = p.after_update("EUR", &u, d("2026-11-25")).unwrap();
        assert_eq!(
            kept,
            vec![Earlier {
                until: d("2026-01-01"),
                amount: dec("12").into()
            }]
        );
    }

    #[test]
    fn another_currency_or_a_one_off_keeps_no_history() {
        let p = Prices::from(dec("13.99")).change(d("2026-01-01"), dec("15.99"), d("2024-01-15"));
        let mut u = update("15.99", None);
        u.currency = "USD";
        assert_eq!(p.after_update("EUR", &u, d("2026-11-25")), Some(vec![]));
        let mut u = update("20", Some("2026-06-01"));
        u.once = true;
        assert_eq!(p.after_update("EUR", &u, d("2026-11-25")), Some(vec![]));
        assert_eq!(
            Prices::from(dec("1")).after_update("EUR", &u, d("2026-11-25")),
            None
        );
    }

    proptest! {
        /// Whatever changes came before, a change from a day leaves every
        /// earlier day's amount alone and sets every later one.
        #[test]
        fn a_change_touches_only_the_days_from_it(
            changes in proptest::collection::vec((0i64..800, 1u32..5000), 0..8),
            from in 0i64..800,
            amount in 1u32..5000,
            probe in 0i64..900,
        ) {
            let start = d("2024-01-01");
            let day = |n: i64| start + chrono::Duration::days(n);
            let mut p = Prices::from(Decimal::from(100));
            for (at, a) in changes {
                p = p.change(day(at), Decimal::from(a), start);
            }
            let q = p.change(day(from), Decimal::from(amount), start);
            if probe < from {
                prop_assert_eq!(q.on(day(probe)), p.on(day(probe)));
            } else {
                prop_assert_eq!(q.on(day(probe)), Decimal::from(amount));
            }
            // Oldest first, each a real change.
            prop_assert!(q.earlier.windows(2).all(|w| w[0].until < w[1].until && w[0].amount != w[1].amount));
            prop_assert!(q.earlier.last().is_none_or(|e| e.amount != q.latest));
        }
    }
}
