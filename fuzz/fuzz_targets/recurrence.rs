//! Schedules with any frequency, a start between 1900 and 2200 and an
//! optional end, expanded over a window of at most three years.
//!
//! Never panics. `Schedule::new` refuses exactly the ends before the start.
//! The due dates of a window are strictly ascending, inside the window and
//! inside [start, end], and are exactly the `nth(k)` that fall in the window;
//! `next_due` and `previous_due` are the nearest due dates on either side of
//! a day; a month with a due date is a month the schedule is active in.

#![no_main]

use arbitrary::Arbitrary;
use cashkeeper::domain::recurrence::{month_end, month_start, Frequency, Schedule};
use chrono::{Days, NaiveDate};
use libfuzzer_sys::fuzz_target;

/// Days from 1900-01-01 to 2200-12-31.
const SPAN_DAYS: u32 = 109_938;
/// The longest window expanded: three years.
const WINDOW_DAYS: u16 = 3 * 366;

#[derive(Arbitrary, Debug)]
struct Input {
    frequency: u8,
    start: u32,
    /// Days from the start to the end; negative ends come before the start.
    end: Option<i32>,
    from: u32,
    window: u16,
    day: u32,
}

fn day(n: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(1900, 1, 1).unwrap() + Days::new(u64::from(n % SPAN_DAYS))
}

const FREQUENCIES: [Frequency; 6] = [
    Frequency::Once,
    Frequency::Weekly,
    Frequency::Monthly,
    Frequency::Quarterly,
    Frequency::HalfYearly,
    Frequency::Yearly,
];

/// Every due date up to `to`, counted one `k` at a time.
fn brute(s: &Schedule, to: NaiveDate) -> Vec<NaiveDate> {
    (0u32..)
        .map_while(|k| s.nth(k))
        .take_while(|d| *d <= to)
        .collect()
}

fuzz_target!(|input: Input| {
    let frequency = FREQUENCIES[usize::from(input.frequency) % FREQUENCIES.len()];
    let start = day(input.start);
    let end = input.end.map(|n| {
        let n = n % SPAN_DAYS as i32;
        start
            .checked_add_signed(chrono::Duration::days(i64::from(n)))
            .unwrap()
    });
    let schedule = match Schedule::new(frequency, start, end) {
        Ok(s) => {
            assert!(end.is_none_or(|e| e >= start));
            s
        }
        Err(e) => {
            assert!(end.is_some_and(|e| e < start));
            assert_eq!(e.to_string(), "endDate: must not be before startDate");
            return;
        }
    };

    let from = day(input.from);
    let to = from + Days::new(u64::from(input.window % WINDOW_DAYS));
    let dates = schedule.due_dates(from, to);
    assert!(dates.windows(2).all(|w| w[0] < w[1]), "{dates:?}");
    for d in &dates {
        assert!(from <= *d && *d <= to, "{d} outside [{from}, {to}]");
        assert!(
            start <= *d && end.is_none_or(|e| *d <= e),
            "{d} outside the schedule"
        );
        assert!(schedule.active_in_month(month_start(*d)));
    }
    let all = brute(&schedule, to);
    let expected: Vec<NaiveDate> = all.iter().copied().filter(|d| *d >= from).collect();
    assert_eq!(dates, expected, "{schedule:?} in [{from}, {to}]");

    // The start is always due (the end is never before it).
    assert_eq!(schedule.nth(0), Some(start));

    let day = day(input.day);
    let upto_day = brute(&schedule, day);
    match schedule.previous_due(day) {
        Some(p) => assert_eq!(upto_day.last(), Some(&p), "previous_due({day})"),
        None => assert!(upto_day.is_empty(), "previous_due({day}) is None"),
    }
    match schedule.next_due(day) {
        Some(n) => {
            assert!(n >= day);
            // A due date, and none between the day and it.
            assert_eq!(schedule.due_dates(day, n), vec![n], "next_due({day})");
            assert_eq!(brute(&schedule, n).last(), Some(&n));
        }
        None => {
            // Nothing due on or after the day: the schedule ended before it.
            assert!(
                end.is_some() || frequency == Frequency::Once,
                "next_due({day}) is None for an endless schedule"
            );
            let last = (0u32..).map_while(|k| schedule.nth(k)).last();
            assert!(last.is_some_and(|l| l < day), "next_due({day}) is None");
        }
    }
    if upto_day.last() == Some(&day) {
        assert_eq!(schedule.next_due(day), Some(day));
    }
    // A month with a due date is a month the schedule is active in; a month
    // wholly outside [start, end] is not.
    let first = month_start(day);
    if month_end(day) < start || end.is_some_and(|e| e < first) {
        assert!(!schedule.active_in_month(first));
    }
});
