//! When a recurring item is due (`docs/actions.md`, Money records).
//!
//! An item is due on its start date and then every period after it. The k-th
//! due date is always counted from the start (start + k periods), with its
//! day clamped to the month's last day: 31 Jan → 28 Feb → 31 Mar, never
//! 28 Mar. The end date, when there is one, is inclusive.

use crate::error::{Error, Reason, Result};
use chrono::{Datelike, Days, Months, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Frequency {
    Once,
    Weekly,
    Monthly,
    Quarterly,
    HalfYearly,
    Yearly,
}

impl Frequency {
    pub const RECURRING: [Frequency; 5] = [
        Frequency::Weekly,
        Frequency::Monthly,
        Frequency::Quarterly,
        Frequency::HalfYearly,
        Frequency::Yearly,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Frequency::Once => "once",
            Frequency::Weekly => "weekly",
            Frequency::Monthly => "monthly",
            Frequency::Quarterly => "quarterly",
            Frequency::HalfYearly => "half_yearly",
            Frequency::Yearly => "yearly",
        }
    }

    pub fn from_code(code: &str) -> Option<Frequency> {
        Some(match code {
            "once" => Frequency::Once,
            "weekly" => Frequency::Weekly,
            "monthly" => Frequency::Monthly,
            "quarterly" => Frequency::Quarterly,
            "half_yearly" => Frequency::HalfYearly,
            "yearly" => Frequency::Yearly,
            _ => return None,
        })
    }

    /// Parses a frequency; `once` only where `allow_once` (incomes, transfers).
    pub fn parse(field: &'static str, raw: &str, allow_once: bool) -> Result<Frequency> {
        match Frequency::from_code(raw.trim()) {
            Some(Frequency::Once) if !allow_once => Err(Error::invalid(field, Reason::Frequency)),
            Some(f) => Ok(f),
            None if allow_once => Err(Error::invalid(field, Reason::FrequencyOrOnce)),
            None => Err(Error::invalid(field, Reason::Frequency)),
        }
    }

    /// Months per period, for the month-based frequencies.
    fn months(self) -> Option<u32> {
        match self {
            Frequency::Monthly => Some(1),
            Frequency::Quarterly => Some(3),
            Frequency::HalfYearly => Some(6),
            Frequency::Yearly => Some(12),
            Frequency::Once | Frequency::Weekly => None,
        }
    }
}

/// Parses a calendar day `YYYY-MM-DD`; impossible dates (2025-02-30) are refused.
pub fn parse_date(field: &'static str, raw: &str) -> Result<NaiveDate> {
    let s = raw.trim();
    if s.len() != 10 {
        return Err(Error::invalid(field, Reason::NotADate));
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| Error::invalid(field, Reason::NotAValidDate))
        .and_then(|d| {
            if (1900..=2200).contains(&d.year()) {
                Ok(d)
            } else {
                Err(Error::invalid(field, Reason::YearOutOfRange))
            }
        })
}

/// When an item is due: its frequency, first due date and inclusive end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub frequency: Frequency,
    pub start: NaiveDate,
    pub end: Option<NaiveDate>,
}

impl Schedule {
    /// A schedule from input, refusing an end before the start (naming `endDate`).
    pub fn new(frequency: Frequency, start: NaiveDate, end: Option<NaiveDate>) -> Result<Schedule> {
        if let Some(end) = end {
            if end < start {
                return Err(Error::invalid("endDate", Reason::NotBefore("startDate")));
            }
        }
        Ok(Schedule {
            frequency,
            start,
            end,
        })
    }

    /// A schedule as stored with a record: a one-off ends on its day,
    /// whatever the end column holds.
    pub fn stored(frequency: Frequency, start: NaiveDate, end: Option<NaiveDate>) -> Schedule {
        match frequency {
            Frequency::Once => Schedule::once(start),
            frequency => Schedule {
                frequency,
                start,
                end,
            },
        }
    }

    /// A one-off on `date`.
    pub fn once(date: NaiveDate) -> Schedule {
        Schedule {
            frequency: Frequency::Once,
            start: date,
            end: Some(date),
        }
    }

    /// The k-th due date ignoring the end date (k = 0 is the start).
    fn nth_unbounded(&self, k: u32) -> Option<NaiveDate> {
        match self.frequency {
            Frequency::Once => (k == 0).then_some(self.start),
            Frequency::Weekly => self.start.checked_add_days(Days::new(7 * u64::from(k))),
            // chrono clamps the day to the month's end, counted from the start each time.
            f => self.start.checked_add_months(Months::new(f.months()? * k)),
        }
    }

    /// The k-th due date, or `None` past the end.
    pub fn nth(&self, k: u32) -> Option<NaiveDate> {
        let d = self.nth_unbounded(k)?;
        match self.end {
            Some(end) if d > end => None,
            _ => Some(d),
        }
    }

    /// An index at or before the first due date on or after `day`.
    fn first_index_near(&self, day: NaiveDate) -> u32 {
        if day <= self.start {
            return 0;
        }
        match self.frequency {
            Frequency::Once => 0,
            Frequency::Weekly => ((day - self.start).num_days() / 7) as u32,
            f => {
                let months = (day.year() - self.start.year()) * 12 + day.month() as i32
                    - self.start.month() as i32;
                let per = f.months().unwrap_or(1) as i32;
                // One period early, so clamping can never make us skip a date.
                (months / per - 1).max(0) as u32
            }
        }
    }

    /// Every due date in `[from, to]`, in order.
    pub fn due_dates(&self, from: NaiveDate, to: NaiveDate) -> Vec<NaiveDate> {
        let mut out = Vec::new();
        if to < from || to < self.start || self.end.is_some_and(|e| e < from) {
            return out;
        }
        let mut k = self.first_index_near(from);
        while let Some(d) = self.nth(k) {
            if d > to {
                break;
            }
            if d >= from {
                out.push(d);
            }
            k += 1;
        }
        out
    }

    /// The first due date on or after `day`.
    pub fn next_due(&self, day: NaiveDate) -> Option<NaiveDate> {
        let mut k = self.first_index_near(day);
        loop {
            let d = self.nth(k)?;
            if d >= day {
                return Some(d);
            }
            k += 1;
        }
    }

    /// The last due date on or before `day`.
    pub fn previous_due(&self, day: NaiveDate) -> Option<NaiveDate> {
        if day < self.start {
            return None;
        }
        let mut k = self.first_index_near(day);
        let mut last = None;
        while let Some(d) = self.nth(k) {
            if d > day {
                break;
            }
            last = Some(d);
            k += 1;
        }
        // The search may have started after the only candidates (never, by
        // construction, but stay correct): fall back to a full scan.
        last.or_else(|| self.due_dates(self.start, day).last().copied())
    }

    /// Whether the item runs at any time in the month of `first` (its first day).
    pub fn active_in_month(&self, first: NaiveDate) -> bool {
        let last = month_end(first);
        self.start <= last && self.end.is_none_or(|e| e >= first)
    }
}

/// Parses `YYYY-MM` into the month's first and last day.
pub fn parse_month(field: &'static str, raw: &str) -> Result<(NaiveDate, NaiveDate)> {
    let first = parse_date(field, &format!("{}-01", raw.trim()))
        .map_err(|_| Error::invalid(field, Reason::NotAMonth))?;
    Ok((first, month_end(first)))
}

/// The first day of the month `raw` (`YYYY-MM`) names, or of the month of
/// `today` when `raw` is absent or blank: the month a budget question or
/// change, or a page with a month, is about.
pub fn month_or_current(
    field: &'static str,
    raw: Option<&str>,
    today: NaiveDate,
) -> Result<NaiveDate> {
    match raw {
        Some(raw) if !raw.trim().is_empty() => Ok(parse_month(field, raw)?.0),
        _ => Ok(month_start(today)),
    }
}

/// The first day of the month of `d`.
pub fn month_start(d: NaiveDate) -> NaiveDate {
    d.with_day(1).unwrap_or(d)
}

/// The last day of the month of `d`.
pub fn month_end(d: NaiveDate) -> NaiveDate {
    month_start(d)
        .checked_add_months(Months::new(1))
        .and_then(|n| n.pred_opt())
        .unwrap_or(d)
}

/// The first day of the month `n` months after (or before, negative) `d`'s month.
pub fn add_months(d: NaiveDate, n: i32) -> NaiveDate {
    let first = month_start(d);
    if n >= 0 {
        first.checked_add_months(Months::new(n as u32))
    } else {
        first.checked_sub_months(Months::new(n.unsigned_abs()))
    }
    .unwrap_or(first)
}

/// The smoothed monthly amount (reserve view): yearly 1200 → 100,
/// weekly 10 → 43.33 (52 weeks / 12 months), rounded to cents. A one-off has
/// no monthly equivalent.
pub fn monthly_equivalent(amount: Decimal, frequency: Frequency) -> Decimal {
    let monthly = match frequency {
        Frequency::Once => Decimal::ZERO,
        Frequency::Weekly => amount * Decimal::from(52) / Decimal::from(12),
        Frequency::Monthly => amount,
        Frequency::Quarterly => amount / Decimal::from(3),
        Frequency::HalfYearly => amount / Decimal::from(6),
        Frequency::Yearly => amount / Decimal::from(12),
    };
    super::money::round(monthly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_month_absent_or_blank_is_the_current_one() {
        let today = d("2026-03-17");
        for raw in [None, Some(""), Some("  ")] {
            assert_eq!(
                month_or_current("month", raw, today).unwrap(),
                d("2026-03-01")
            );
        }
        assert_eq!(
            month_or_current("month", Some(" 2026-02 "), today).unwrap(),
            d("2026-02-01")
        );
        for bad in ["2026-13", "2026-3", "march", "2201-01"] {
            let err = month_or_current("from", Some(bad), today).unwrap_err();
            assert!(err.to_string().starts_with("from"), "{bad}: {err}");
        }
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    fn sched(f: Frequency, start: &str, end: Option<&str>) -> Schedule {
        Schedule::new(f, d(start), end.map(d)).unwrap()
    }

    #[test]
    fn month_end_dates_clamp_but_are_always_counted_from_the_start() {
        let s = sched(Frequency::Monthly, "2025-01-31", None);
        let dates = s.due_dates(d("2025-01-01"), d("2025-05-31"));
        assert_eq!(
            dates,
            vec![
                d("2025-01-31"),
                d("2025-02-28"),
                d("2025-03-31"),
                d("2025-04-30"),
                d("2025-05-31")
            ]
        );
        let leap = sched(Frequency::Monthly, "2024-01-30", None);
        assert_eq!(leap.nth(1), Some(d("2024-02-29")));
        assert_eq!(leap.nth(2), Some(d("2024-03-30")));
    }

    #[test]
    fn yearly_from_the_29th_of_february() {
        let s = sched(Frequency::Yearly, "2024-02-29", None);
        assert_eq!(s.nth(1), Some(d("2025-02-28")));
        assert_eq!(s.nth(4), Some(d("2028-02-29")));
    }

    #[test]
    fn quarterly_half_yearly_and_weekly_steps() {
        let q = sched(Frequency::Quarterly, "2025-11-30", None);
        assert_eq!(q.nth(1), Some(d("2026-02-28")));
        assert_eq!(q.nth(2), Some(d("2026-05-30")));
        let h = sched(Frequency::HalfYearly, "2025-08-31", None);
        assert_eq!(h.nth(1), Some(d("2026-02-28")));
        let w = sched(Frequency::Weekly, "2025-12-29", None);
        assert_eq!(
            w.due_dates(d("2026-01-01"), d("2026-01-14")),
            vec![d("2026-01-05"), d("2026-01-12")]
        );
    }

    #[test]
    fn the_end_date_is_inclusive() {
        let s = sched(Frequency::Monthly, "2025-01-15", Some("2025-03-15"));
        assert_eq!(s.due_dates(d("2025-01-01"), d("2025-12-31")).len(), 3);
        let s = sched(Frequency::Monthly, "2025-01-15", Some("2025-03-14"));
        assert_eq!(s.due_dates(d("2025-01-01"), d("2025-12-31")).len(), 2);
    }

    #[test]
    fn a_one_off_is_due_once() {
        let s = Schedule::once(d("2025-06-01"));
        assert_eq!(
            s.due_dates(d("2025-01-01"), d("2025-12-31")),
            vec![d("2025-06-01")]
        );
        assert_eq!(s.next_due(d("2025-06-02")), None);
        assert_eq!(s.next_due(d("2025-05-02")), Some(d("2025-06-01")));
    }

    #[test]
    fn next_and_previous_due() {
        let s = sched(Frequency::Monthly, "2025-01-31", None);
        assert_eq!(s.next_due(d("2025-02-01")), Some(d("2025-02-28")));
        assert_eq!(s.next_due(d("2025-03-31")), Some(d("2025-03-31")));
        assert_eq!(s.previous_due(d("2025-03-30")), Some(d("2025-02-28")));
        assert_eq!(s.previous_due(d("2025-01-30")), None);
        let ended = sched(Frequency::Monthly, "2025-01-01", Some("2025-02-01"));
        assert_eq!(ended.next_due(d("2025-03-01")), None);
    }

    #[test]
    fn end_before_start_is_refused_naming_end_date() {
        let err =
            Schedule::new(Frequency::Monthly, d("2025-02-01"), Some(d("2025-01-31"))).unwrap_err();
        assert_eq!(err.to_string(), "endDate: must not be before startDate");
    }

    #[test]
    fn dates_are_checked() {
        assert!(parse_date("date", "2025-02-28").is_ok());
        assert_eq!(
            parse_date("date", "2025-02-30").unwrap_err().to_string(),
            "date: must be a valid date YYYY-MM-DD"
        );
        assert!(parse_date("date", "2025-2-3").is_err());
        assert!(parse_date("date", "28.02.2025").is_err());
        assert!(parse_date("date", "0001-01-01").is_err());
    }

    #[test]
    fn frequencies_parse_with_once_only_where_allowed() {
        assert_eq!(
            Frequency::parse("frequency", "half_yearly", false).unwrap(),
            Frequency::HalfYearly
        );
        assert!(Frequency::parse("frequency", "once", false).is_err());
        assert_eq!(
            Frequency::parse("frequency", "once", true).unwrap(),
            Frequency::Once
        );
        assert!(Frequency::parse("frequency", "daily", true)
            .unwrap_err()
            .to_string()
            .starts_with("frequency: "));
    }

    #[test]
    fn monthly_equivalents() {
        assert_eq!(
            monthly_equivalent(dec("1200"), Frequency::Yearly),
            dec("100")
        );
        assert_eq!(
            monthly_equivalent(dec("10"), Frequency::Weekly),
            dec("43.33")
        );
        assert_eq!(
            monthly_equivalent(dec("100"), Frequency::Quarterly),
            dec("33.33")
        );
        assert_eq!(
            monthly_equivalent(dec("59.99"), Frequency::HalfYearly),
            dec("10.00")
        );
        assert_eq!(
            monthly_equivalent(dec("9.99"), Frequency::Monthly),
            dec("9.99")
        );
        assert_eq!(monthly_equivalent(dec("500"), Frequency::Once), dec("0"));
    }

    #[test]
    fn month_helpers() {
        assert_eq!(month_end(d("2024-02-10")), d("2024-02-29"));
        assert_eq!(add_months(d("2025-01-31"), 1), d("2025-02-01"));
        assert_eq!(add_months(d("2025-01-31"), -1), d("2024-12-01"));
    }

    fn any_date() -> impl Strategy<Value = NaiveDate> {
        (0i64..20_000).prop_map(|n| d("1990-01-01") + chrono::Duration::days(n))
    }

    fn any_frequency() -> impl Strategy<Value = Frequency> {
        prop_oneof![
            Just(Frequency::Weekly),
            Just(Frequency::Monthly),
            Just(Frequency::Quarterly),
            Just(Frequency::HalfYearly),
            Just(Frequency::Yearly),
        ]
    }

    proptest! {
        #[test]
        fn a_monthly_item_is_due_exactly_twelve_times_in_any_twelve_months_of_its_span(
            start in any_date(), offset in 0i32..120,
        ) {
            let s = Schedule::new(Frequency::Monthly, start, None).unwrap();
            // A window of 12 whole months starting after the start month.
            let from = add_months(start, offset + 1);
            let to = add_months(from, 12).pred_opt().unwrap();
            prop_assert_eq!(s.due_dates(from, to).len(), 12);
        }

        #[test]
        fn no_due_date_falls_outside_start_and_end(
            f in any_frequency(), start in any_date(), len in 0i64..4000,
            from in any_date(), span in 0i64..3000,
        ) {
            let end = start + chrono::Duration::days(len);
            let s = Schedule::new(f, start, Some(end)).unwrap();
            let to = from + chrono::Duration::days(span);
            for day in s.due_dates(from, to) {
                prop_assert!(day >= start && day <= end);
                prop_assert!(day >= from && day <= to);
            }
        }

        #[test]
        fn due_dates_in_a_window_are_exactly_the_nth_dates_inside_it(
            f in any_frequency(), start in any_date(), from in any_date(), span in 0i64..800,
        ) {
            let s = Schedule::new(f, start, None).unwrap();
            let to = from + chrono::Duration::days(span);
            let brute: Vec<NaiveDate> = (0..5000u32)
                .map_while(|k| s.nth(k))
                .take_while(|d| *d <= to)
                .filter(|d| *d >= from)
                .collect();
            prop_assert_eq!(s.due_dates(from, to), brute);
        }

        #[test]
        fn the_day_of_month_is_the_start_day_unless_the_month_is_shorter(
            start in any_date(), k in 0u32..240,
        ) {
            let s = Schedule::new(Frequency::Monthly, start, None).unwrap();
            let due = s.nth(k).unwrap();
            let expected_day = start.day().min(month_end(due).day());
            prop_assert_eq!(due.day(), expected_day);
        }

        #[test]
        fn next_due_is_the_first_due_date_on_or_after_the_day(
            f in any_frequency(), start in any_date(), day in any_date(),
        ) {
            let s = Schedule::new(f, start, None).unwrap();
            let next = s.next_due(day).unwrap();
            prop_assert!(next >= day);
            let before = s.due_dates(start, day.pred_opt().unwrap());
            prop_assert!(before.iter().all(|d| *d < next));
        }
    }

    /// Any day from 1900 to 2200, the range `parse_date` accepts.
    fn any_wide_date() -> impl Strategy<Value = NaiveDate> {
        (0i64..109_938).prop_map(|n| d("1900-01-01") + chrono::Duration::days(n))
    }

    fn any_frequency_or_once() -> impl Strategy<Value = Frequency> {
        prop_oneof![Just(Frequency::Once), any_frequency()]
    }

    /// A schedule from 1900 to 2200 with, half of the time, an end within
    /// about eleven years of its start.
    fn any_schedule() -> impl Strategy<Value = Schedule> {
        (
            any_frequency_or_once(),
            any_wide_date(),
            proptest::option::of(0i64..4000),
        )
            .prop_map(|(f, start, len)| {
                Schedule::new(f, start, len.map(|n| start + chrono::Duration::days(n))).unwrap()
            })
    }

    /// Every due date up to `to`, counted one `k` at a time.
    fn due_up_to(s: &Schedule, to: NaiveDate) -> Vec<NaiveDate> {
        (0u32..)
            .map_while(|k| s.nth(k))
            .take_while(|d| *d <= to)
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn only_an_end_before_the_start_is_refused(
            f in any_frequency_or_once(), start in any_wide_date(), end in any_wide_date(),
        ) {
            match Schedule::new(f, start, Some(end)) {
                Ok(s) => prop_assert!(end >= start && s.end == Some(end)),
                Err(e) => {
                    prop_assert!(end < start);
                    prop_assert_eq!(e.to_string(), "endDate: must not be before startDate");
                }
            }
        }

        #[test]
        fn due_dates_with_an_end_are_strictly_ascending_nth_dates(
            s in any_schedule(), from in any_wide_date(), span in 0i64..1100,
        ) {
            let to = from + chrono::Duration::days(span);
            let dates = s.due_dates(from, to);
            prop_assert!(dates.windows(2).all(|w| w[0] < w[1]), "{:?}", dates);
            let brute: Vec<NaiveDate> =
                due_up_to(&s, to).into_iter().filter(|d| *d >= from).collect();
            prop_assert_eq!(dates, brute);
        }

        #[test]
        fn previous_due_is_the_last_due_date_on_or_before_the_day(
            s in any_schedule(), day in any_wide_date(),
        ) {
            prop_assert_eq!(s.previous_due(day), due_up_to(&s, day).last().copied());
            if day < s.start {
                prop_assert_eq!(s.previous_due(day), None);
            } else {
                // The start itself is always due.
                prop_assert!(s.previous_due(day).is_some());
            }
        }

        #[test]
        fn next_due_is_none_only_after_the_last_due_date(
            s in any_schedule(), day in any_wide_date(),
        ) {
            match s.next_due(day) {
                Some(next) => {
                    prop_assert!(next >= day);
                    prop_assert_eq!(s.due_dates(day, next), vec![next]);
                }
                None => {
                    let last = (0u32..).map_while(|k| s.nth(k)).last();
                    prop_assert!(s.end.is_some() || s.frequency == Frequency::Once);
                    prop_assert!(last.is_some_and(|l| l < day));
                }
            }
        }

        #[test]
        fn on_a_due_date_next_and_previous_due_are_that_date(s in any_schedule(), k in 0u32..60) {
            if let Some(due) = s.nth(k) {
                prop_assert_eq!(s.next_due(due), Some(due));
                prop_assert_eq!(s.previous_due(due), Some(due));
            }
        }

        #[test]
        fn a_month_with_a_due_date_is_active_and_one_outside_the_span_is_not(
            s in any_schedule(), day in any_wide_date(),
        ) {
            let first = month_start(day);
            let due_in_month = !s.due_dates(first, month_end(day)).is_empty();
            if due_in_month {
                prop_assert!(s.active_in_month(first));
            }
            if month_end(day) < s.start || s.end.is_some_and(|e| e < first) {
                prop_assert!(!s.active_in_month(first));
            }
        }
    }
}
