//! Contract terms and cancellation deadlines (`docs/planning.md`,
//! Cancellation deadlines): a recurring expense may carry the term of the
//! contract behind it, how long each renewal runs and the notice; from them
//! and a day "today" follow the term's current end and the last day a
//! cancellation reaches it ("kündbar bis").
//!
//! Months are counted from the term's end in calendar months, the last day
//! of a month staying the last day ([`shift_months`]: 31.01 − 1 month is
//! 31.12, 30.04 − 2 months is 28.02 or 29.02, 28.02.2027 + 12 months is
//! 29.02.2028). A deadline passed without a cancellation moves the term on
//! by its renewal, again and again, until the deadline is today or later;
//! a contract renewing by 0 months then runs on with no fixed term and can
//! be ended any day, at today plus the notice.

use super::recurrence::month_end;
use chrono::{Duration, Months, NaiveDate};

/// Renewals, in months, accepted at most (ten years).
pub const RENEWAL_MAX: u32 = 120;
/// Notice, in months, accepted at most.
pub const NOTICE_MONTHS_MAX: u32 = 60;
/// Notice, in days, accepted at most.
pub const NOTICE_DAYS_MAX: u32 = 1_825;
/// Renewals [`Terms::on`] counts at most: a monthly renewal from 1900
/// reaches 2200 in 3,612.
const MAX_RENEWALS: u32 = 10_000;
/// The renewal when none is given: a year.
pub const RENEWAL_DEFAULT: u32 = 12;

/// How long before a term's end a cancellation must be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice {
    Months(u32),
    Days(u32),
}

impl Notice {
    /// The last day a cancellation reaches a term ending on `end`.
    pub fn before(self, end: NaiveDate) -> NaiveDate {
        match self {
            Notice::Months(n) => shift_months(end, -i32::try_from(n).unwrap_or(i32::MAX)),
            Notice::Days(n) => end
                .checked_sub_signed(Duration::days(i64::from(n)))
                .unwrap_or(NaiveDate::MIN),
        }
    }

    /// The end a cancellation made on `day` reaches when the contract can
    /// be ended any day.
    pub fn after(self, day: NaiveDate) -> NaiveDate {
        match self {
            Notice::Months(n) => shift_months(day, i32::try_from(n).unwrap_or(i32::MAX)),
            Notice::Days(n) => day
                .checked_add_signed(Duration::days(i64::from(n)))
                .unwrap_or(NaiveDate::MAX),
        }
    }
}

/// A contract's terms as given: the end of a term (`None` for a contract
/// that runs on with no fixed term), the months each renewal runs (0: no
/// fixed term after it) and the notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Terms {
    pub term_end: Option<NaiveDate>,
    pub renewal_months: u32,
    pub notice: Notice,
}

/// Where a contract stands on a day: the end of its current term and the
/// last day a cancellation reaches that end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub term_end: NaiveDate,
    pub cancel_by: NaiveDate,
    /// The contract runs on with no fixed term: it can be ended any day,
    /// so `cancel_by` is today whatever today is, and nothing is missed.
    pub runs_on: bool,
}

impl Terms {
    /// The current term and its deadline on `today`: the given term while
    /// its deadline is today or later; after that the term moved on by the
    /// renewal as often as needed, or, renewing by 0 months (or with no
    /// term given), cancellable today to today plus the notice.
    pub fn on(&self, today: NaiveDate) -> Deadline {
        let any_day = Deadline {
            cancel_by: today,
            term_end: self.notice.after(today),
            runs_on: true,
        };
        let Some(mut end) = self.term_end else {
            return any_day;
        };
        let mut cancel_by = self.notice.before(end);
        let renewal = i32::try_from(self.renewal_months).unwrap_or(i32::MAX);
        let mut renewals = 0;
        while cancel_by < today {
            let next = shift_months(end, renewal);
            // Renewing by 0 months, or terms no calendar reaches (loaded
            // from a damaged archive): it can be ended any day.
            renewals += 1;
            if next <= end || renewals > MAX_RENEWALS {
                return any_day;
            }
            end = next;
            cancel_by = self.notice.before(end);
        }
        Deadline {
            term_end: end,
            cancel_by,
            runs_on: false,
        }
    }
}

/// `day` moved by `months` calendar months; the last day of a month gives
/// the last day of the month reached, any other day the same day of it, or
/// that month's last day where it is shorter (30.01 + 1 month: 28.02).
pub fn shift_months(day: NaiveDate, months: i32) -> NaiveDate {
    let m = Months::new(months.unsigned_abs());
    let moved = if months >= 0 {
        day.checked_add_months(m)
    } else {
        day.checked_sub_months(m)
    };
    let Some(moved) = moved else {
        return day;
    };
    if day == month_end(day) {
        month_end(moved)
    } else {
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Datelike;
    use proptest::prelude::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    fn terms(end: &str, renewal: u32, notice: Notice) -> Terms {
        Terms {
            term_end: Some(d(end)),
            renewal_months: renewal,
            notice,
        }
    }

    #[test]
    fn the_last_day_of_a_month_stays_the_last_day() {
        assert_eq!(shift_months(d("2027-01-31"), -1), d("2026-12-31"));
        assert_eq!(shift_months(d("2027-04-30"), -2), d("2027-02-28"));
        assert_eq!(shift_months(d("2028-04-30"), -2), d("2028-02-29"));
        assert_eq!(shift_months(d("2027-04-30"), -1), d("2027-03-31"));
        assert_eq!(shift_months(d("2027-02-28"), 12), d("2028-02-29"));
        assert_eq!(shift_months(d("2028-02-29"), 12), d("2029-02-28"));
        assert_eq!(shift_months(d("2027-03-31"), -1), d("2027-02-28"));
        assert_eq!(shift_months(d("2027-01-30"), 1), d("2027-02-28"));
        assert_eq!(shift_months(d("2027-03-15"), -3), d("2026-12-15"));
        assert_eq!(shift_months(d("2027-03-30"), -1), d("2027-02-28"));
    }

    /// A term ending 31 January with one month's notice: cancel by 31 December.
    #[test]
    fn a_term_ending_31_january_with_one_months_notice() {
        let t = terms("2027-01-31", 12, Notice::Months(1));
        let on = t.on(d("2026-11-01"));
        assert_eq!(on.cancel_by, d("2026-12-31"));
        assert_eq!(on.term_end, d("2027-01-31"));
        // The last day itself still counts.
        assert_eq!(t.on(d("2026-12-31")).cancel_by, d("2026-12-31"));
        // The day after, the term has moved on by a year.
        let next = t.on(d("2027-01-01"));
        assert_eq!(next.term_end, d("2028-01-31"));
        assert_eq!(next.cancel_by, d("2027-12-31"));
    }

    /// A term ending 30 April with two months' notice: the end of February,
    /// the 29th in a leap year.
    #[test]
    fn two_months_before_the_end_of_april_is_the_end_of_february() {
        let t = terms("2027-04-30", 12, Notice::Months(2));
        assert_eq!(t.on(d("2027-01-10")).cancel_by, d("2027-02-28"));
        let later = t.on(d("2027-03-01"));
        assert_eq!(later.term_end, d("2028-04-30"));
        assert_eq!(later.cancel_by, d("2028-02-29"));
    }

    /// A term ending on 29 February 2028 rolls on to the end of February.
    #[test]
    fn a_leap_day_term_end() {
        let t = terms("2028-02-29", 12, Notice::Months(3));
        let on = t.on(d("2027-10-01"));
        assert_eq!(on.cancel_by, d("2027-11-30"));
        let next = t.on(d("2027-12-01"));
        assert_eq!(next.term_end, d("2029-02-28"));
        assert_eq!(next.cancel_by, d("2028-11-30"));
        let then = t.on(d("2031-11-01"));
        assert_eq!(then.term_end, d("2032-02-29"));
        assert_eq!(then.cancel_by, d("2031-11-30"));
    }

    #[test]
    fn days_of_notice_count_back_from_the_term_end() {
        let t = terms("2027-03-31", 12, Notice::Days(14));
        assert_eq!(t.on(d("2027-03-01")).cancel_by, d("2027-03-17"));
        let next = t.on(d("2027-03-18"));
        assert_eq!(next.term_end, d("2028-03-31"));
        assert_eq!(next.cancel_by, d("2028-03-17"));
        // Zero days: cancellable up to the last day of the term.
        let zero = terms("2027-03-31", 1, Notice::Days(0));
        assert_eq!(zero.on(d("2027-03-31")).cancel_by, d("2027-03-31"));
    }

    /// Years of missed deadlines move the term on each time.
    #[test]
    fn the_term_moves_on_repeatedly() {
        let t = terms("2024-08-31", 12, Notice::Months(3));
        let on = t.on(d("2027-05-31"));
        assert_eq!(
            (on.term_end, on.cancel_by),
            (d("2027-08-31"), d("2027-05-31"))
        );
        let on = t.on(d("2027-06-01"));
        assert_eq!(
            (on.term_end, on.cancel_by),
            (d("2028-08-31"), d("2028-05-31"))
        );
        // Monthly renewals from a 31st: each month's end in turn.
        let monthly = terms("2026-01-31", 1, Notice::Days(7));
        let on = monthly.on(d("2026-06-25"));
        assert_eq!(
            (on.term_end, on.cancel_by),
            (d("2026-07-31"), d("2026-07-24"))
        );
    }

    /// Renewing by 0 months: once the first deadline has passed, the
    /// contract ends any day at today plus the notice.
    #[test]
    fn renewal_zero_runs_on_with_no_fixed_term() {
        let t = terms("2026-06-30", 0, Notice::Months(1));
        assert_eq!(
            t.on(d("2026-05-01")),
            Deadline {
                term_end: d("2026-06-30"),
                cancel_by: d("2026-05-31"),
                runs_on: false,
            }
        );
        assert_eq!(
            t.on(d("2026-06-01")),
            Deadline {
                term_end: d("2026-07-01"),
                cancel_by: d("2026-06-01"),
                runs_on: true,
            }
        );
        assert_eq!(
            t.on(d("2027-01-31")),
            Deadline {
                term_end: d("2027-02-28"),
                cancel_by: d("2027-01-31"),
                runs_on: true,
            }
        );
        let no_term = Terms {
            term_end: None,
            renewal_months: 0,
            notice: Notice::Days(30),
        };
        assert_eq!(no_term.on(d("2026-12-20")).term_end, d("2027-01-19"));
    }

    /// Terms no input allows (a damaged archive) neither hang nor panic.
    #[test]
    fn absurd_terms_end_any_day() {
        let today = d("2026-11-28");
        for renewal in [u32::MAX, i32::MAX as u32 + 1, 1] {
            for notice in [
                Notice::Months(u32::MAX),
                Notice::Days(u32::MAX),
                Notice::Months(1),
            ] {
                let t = Terms {
                    term_end: Some(NaiveDate::MIN),
                    renewal_months: renewal,
                    notice,
                };
                let on = t.on(today);
                assert!(on.cancel_by >= today, "{t:?}");
            }
        }
    }

    fn day() -> impl Strategy<Value = NaiveDate> {
        (0i64..(365 * 60)).prop_map(|n| d("1990-01-01") + Duration::days(n))
    }

    fn notice() -> impl Strategy<Value = Notice> {
        prop_oneof![
            (0u32..=24).prop_map(Notice::Months),
            (0u32..=400).prop_map(Notice::Days)
        ]
    }

    proptest! {
        /// The deadline is never before today, never after the term's end,
        /// and is the notice before that end (or, running on, today).
        #[test]
        fn the_deadline_is_today_or_later_and_before_the_end(
            end in day(), renewal in 0u32..=36, notice in notice(), today in day(),
        ) {
            let t = Terms { term_end: Some(end), renewal_months: renewal, notice };
            let on = t.on(today);
            prop_assert!(on.cancel_by >= today);
            prop_assert!(on.cancel_by <= on.term_end);
            if on.cancel_by != today || renewal != 0 || notice.before(end) >= today {
                prop_assert_eq!(on.cancel_by, notice.before(on.term_end));
            }
            // Moved on only while the deadline was past: a day earlier it
            // was the same term or an earlier one.
            let before = t.on(today - Duration::days(1));
            prop_assert!(before.cancel_by <= on.cancel_by);
            prop_assert!(before.term_end <= on.term_end);
            // On the deadline itself the term is the same.
            if renewal > 0 {
                prop_assert_eq!(t.on(on.cancel_by), on);
            }
        }

        /// A month shift keeps the last day of a month the last day, and
        /// any other day stays the day or its month's end.
        #[test]
        fn month_shifts_keep_month_ends(day in day(), months in -36i32..=36) {
            let moved = shift_months(day, months);
            let target = (day.year() * 12 + day.month0() as i32) + months;
            prop_assert_eq!(moved.year() * 12 + moved.month0() as i32, target);
            if day == month_end(day) {
                prop_assert_eq!(moved, month_end(moved));
            } else {
                prop_assert!(moved.day() == day.day() || moved == month_end(moved));
            }
        }
    }
}
