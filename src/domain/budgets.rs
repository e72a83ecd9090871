//! Budgets: a monthly amount per category (`docs/budgets.md`).
//!
//! A category's budget is a list of [`Change`]s, each holding from its month
//! until the next: so a change from a later month leaves the months before
//! it as they were, and a change without an amount ends the budget. With
//! rollover, what is left of a month (or what was overspent, as a negative
//! amount) is carried into the next, from the first month of an unbroken run
//! of budget months on.
//!
//! Pure: the spending of each month comes from the caller, counted as the
//! dashboard counts it (`domain::views::expenses_by_category`).

use super::recurrence::{add_months, month_start};
use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};
use serde::Serialize;

/// Spending at or above this share of what is available is `near`.
pub const NEAR_PERCENT: i64 = 80;

/// One change of a category's budget, holding from `month` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The first day of the month.
    pub month: NaiveDate,
    /// `None`: no budget from this month on.
    pub amount: Option<Decimal>,
    pub rollover: bool,
}

/// How a month's spending stands against what is available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Below 80 % of what is available.
    Ok,
    /// From 80 % up to all of it.
    Near,
    /// More than is available.
    Over,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Near => "near",
            Status::Over => "over",
        }
    }
}

/// A category's budget in one month.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Month {
    /// The budget set for the month.
    pub amount: Decimal,
    /// Carried from the month before (rollover), negative when it was
    /// overspent; 0 without rollover and in the first month.
    pub carried: Decimal,
    /// `amount + carried`.
    pub available: Decimal,
    pub spent: Decimal,
    /// `available - spent`; negative when overspent.
    pub remaining: Decimal,
    /// `spent / available` in whole percent; `None` when nothing is available.
    pub percent: Option<i64>,
    pub status: Status,
}

impl Month {
    fn new(amount: Decimal, carried: Decimal, spent: Decimal) -> Month {
        let available = amount + carried;
        let remaining = available - spent;
        let percent = (available > Decimal::ZERO).then(|| {
            let p = (spent * Decimal::ONE_HUNDRED / available)
                .round_dp_with_strategy(0, RoundingStrategy::MidpointAwayFromZero);
            i64::try_from(p).unwrap_or(i64::MAX)
        });
        Month {
            amount,
            carried,
            available,
            spent,
            remaining,
            percent,
            status: status(available, spent),
        }
    }
}

/// The status of `spent` against `available`, by the exact amounts (not the
/// rounded percent): a cent over is over. With nothing available, any
/// spending is over and none is near (nothing is left).
pub fn status(available: Decimal, spent: Decimal) -> Status {
    if spent > available {
        Status::Over
    } else if available <= Decimal::ZERO
        || spent * Decimal::ONE_HUNDRED >= available * Decimal::from(NEAR_PERCENT)
    {
        Status::Near
    } else {
        Status::Ok
    }
}

/// The change in force in the month of `first` (`changes` sorted by month).
pub fn in_force(changes: &[Change], first: NaiveDate) -> Option<&Change> {
    changes.iter().rev().find(|c| c.month <= first)
}

/// The first month of the unbroken run of budget months that ends with
/// the month of `first`; `None` when the category has no budget then.
pub fn run_start(changes: &[Change], first: NaiveDate) -> Option<NaiveDate> {
    let first = month_start(first);
    in_force(changes, first)?.amount?;
    let mut start = first;
    for c in changes.iter().rev().filter(|c| c.month <= first) {
        if c.amount.is_none() {
            break;
        }
        start = c.month;
    }
    Some(start)
}

/// The budget of the month of `first` from `changes` (sorted by month),
/// with `spent(m)` the category's spending in the month of `m`; `None` when
/// the category has no budget that month. With rollover, every month of
/// the run before is counted too.
pub fn month(
    changes: &[Change],
    first: NaiveDate,
    spent: impl FnMut(NaiveDate) -> Decimal,
) -> Option<Month> {
    month_from(changes, first, NaiveDate::MIN, spent)
}

/// [`month`], with the carry starting no earlier than the month of `floor`
/// (see [`months_needed_from`]).
pub fn month_from(
    changes: &[Change],
    first: NaiveDate,
    floor: NaiveDate,
    mut spent: impl FnMut(NaiveDate) -> Decimal,
) -> Option<Month> {
    let first = month_start(first);
    // Without rollover nothing is carried: only the month itself counts.
    let start = months_needed_from(changes, first, floor)?;
    let mut carried = Decimal::ZERO;
    let mut m = start;
    loop {
        let change = in_force(changes, m)?;
        let amount = change.amount?;
        // What is left is carried only into a month whose budget rolls over.
        let carried_in = if change.rollover && m > start {
            carried
        } else {
            Decimal::ZERO
        };
        let this = Month::new(amount, carried_in, spent(m));
        if m >= first {
            return Some(this);
        }
        carried = this.remaining;
        m = add_months(m, 1);
    }
}

/// The months a budget's run reaches back to from the month of `first`:
/// what a caller must have the spending of. Without rollover only `first`.
pub fn months_needed(changes: &[Change], first: NaiveDate) -> Option<NaiveDate> {
    months_needed_from(changes, first, NaiveDate::MIN)
}

/// [`months_needed`], reaching back no further than the month of `floor`
/// (and never past `first`): a run that began earlier carries from there,
/// so no walk is longer than the months from `floor` to `first`.
pub fn months_needed_from(
    changes: &[Change],
    first: NaiveDate,
    floor: NaiveDate,
) -> Option<NaiveDate> {
    let first = month_start(first);
    let start = run_start(changes, first)?.max(month_start(floor).min(first));
    let rolls = changes
        .iter()
        .any(|c| c.rollover && c.month <= first && c.amount.is_some() && in_run(changes, c, start));
    Some(if rolls { start } else { first })
}

/// Whether change `c` is in force in some month from `start` on.
fn in_run(changes: &[Change], c: &Change, start: NaiveDate) -> bool {
    c.month >= start || in_force(changes, start).is_some_and(|f| f.month == c.month)
}

/// The changes after setting `amount` (or ending the budget, `None`) from
/// the month of `from` on: every later change is replaced, earlier months
/// keep theirs. An end where there is no budget changes nothing.
pub fn apply(
    changes: &[Change],
    from: NaiveDate,
    amount: Option<Decimal>,
    rollover: bool,
) -> Vec<Change> {
    let from = month_start(from);
    let mut out: Vec<Change> = changes.iter().filter(|c| c.month < from).copied().collect();
    let before = out.last().and_then(|c| c.amount);
    match amount {
        Some(_) => out.push(Change {
            month: from,
            amount,
            rollover,
        }),
        None if before.is_some() => out.push(Change {
            month: from,
            amount: None,
            rollover: false,
        }),
        None => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! dec {
        ($v:literal) => {
            stringify!($v).parse::<Decimal>().unwrap()
        };
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(&format!("{s}-01"), "%Y-%m-%d").unwrap()
    }

    fn change(m: &str, amount: Option<Decimal>, rollover: bool) -> Change {
        Change {
            month: d(m),
            amount,
            rollover,
        }
    }

    #[test]
    fn percent_and_status_at_the_edges() {
        for (spent, percent, status) in [
            (dec!(316), 79, Status::Ok),
            (dec!(319.99), 80, Status::Ok),
            (dec!(320), 80, Status::Near),
            (dec!(400), 100, Status::Near),
            (dec!(400.01), 100, Status::Over),
            (dec!(404), 101, Status::Over),
        ] {
            let m = Month::new(dec!(400), Decimal::ZERO, spent);
            assert_eq!((m.percent, m.status), (Some(percent), status), "{spent}");
            assert_eq!(m.remaining, dec!(400) - spent);
        }
        let none = Month::new(dec!(100), dec!(-100), Decimal::ZERO);
        assert_eq!((none.percent, none.status), (None, Status::Near));
        let spent = Month::new(dec!(100), dec!(-150), dec!(1));
        assert_eq!((spent.percent, spent.status), (None, Status::Over));
    }

    #[test]
    fn rollover_carries_what_is_left_and_what_was_overspent() {
        let changes = [change("2026-01", Some(dec!(400)), true)];
        let spent = |m: NaiveDate| match m.format("%m").to_string().as_str() {
            "01" => dec!(300),
            "02" => dec!(600),
            "03" => dec!(100),
            _ => Decimal::ZERO,
        };
        let jan = month(&changes, d("2026-01"), spent).unwrap();
        assert_eq!(
            (jan.carried, jan.available, jan.remaining),
            (dec!(0), dec!(400), dec!(100))
        );
        let feb = month(&changes, d("2026-02"), spent).unwrap();
        assert_eq!(
            (feb.carried, feb.available, feb.remaining),
            (dec!(100), dec!(500), dec!(-100))
        );
        assert_eq!(feb.status, Status::Over);
        let mar = month(&changes, d("2026-03"), spent).unwrap();
        assert_eq!(
            (mar.carried, mar.available, mar.remaining),
            (dec!(-100), dec!(300), dec!(200))
        );
        assert_eq!(month(&changes, d("2025-12"), spent), None);
    }

    #[test]
    fn without_rollover_nothing_is_carried() {
        let changes = [change("2026-01", Some(dec!(400)), false)];
        let m = month(&changes, d("2026-03"), |_| dec!(500)).unwrap();
        assert_eq!(
            (m.carried, m.available, m.remaining),
            (dec!(0), dec!(400), dec!(-100))
        );
        assert_eq!(months_needed(&changes, d("2026-03")), Some(d("2026-03")));
    }

    #[test]
    fn a_change_from_a_later_month_keeps_the_earlier_ones() {
        let first = apply(&[], d("2026-01"), Some(dec!(400)), false);
        let changed = apply(&first, d("2026-03"), Some(dec!(300)), false);
        assert_eq!(
            month(&changed, d("2026-02"), |_| dec!(0)).unwrap().amount,
            dec!(400)
        );
        assert_eq!(
            month(&changed, d("2026-03"), |_| dec!(0)).unwrap().amount,
            dec!(300)
        );
        // A change from an earlier month replaces the later ones.
        let again = apply(&changed, d("2026-02"), Some(dec!(250)), false);
        assert_eq!(again.len(), 2);
        assert_eq!(
            month(&again, d("2026-04"), |_| dec!(0)).unwrap().amount,
            dec!(250)
        );
    }

    #[test]
    fn a_floor_bounds_the_walk_and_the_carry_starts_there() {
        let from_1900 = [change("1900-01", Some(dec!(400)), true)];
        assert_eq!(
            months_needed_from(&from_1900, d("2026-03"), d("2026-01")),
            Some(d("2026-01"))
        );
        let mut walked = Vec::new();
        let m = month_from(&from_1900, d("2026-03"), d("2026-01"), |m| {
            walked.push(m);
            dec!(300)
        })
        .unwrap();
        assert_eq!(walked, [d("2026-01"), d("2026-02"), d("2026-03")]);
        assert_eq!((m.carried, m.remaining), (dec!(200), dec!(300)));
        // A floor after the month shown is the month itself.
        assert_eq!(
            months_needed_from(&from_1900, d("2026-03"), d("2030-01")),
            Some(d("2026-03"))
        );
    }

    #[test]
    fn an_end_stops_the_budget_and_the_rollover_run() {
        let set = apply(&[], d("2026-01"), Some(dec!(100)), true);
        let ended = apply(&set, d("2026-03"), None, false);
        assert!(month(&ended, d("2026-02"), |_| dec!(0)).is_some());
        assert_eq!(month(&ended, d("2026-03"), |_| dec!(0)), None);
        assert_eq!(month(&ended, d("2027-01"), |_| dec!(0)), None);
        // Set again later: a new run, nothing carried from before the gap.
        let again = apply(&ended, d("2026-05"), Some(dec!(100)), true);
        let may = month(&again, d("2026-05"), |_| dec!(0)).unwrap();
        assert_eq!(may.carried, dec!(0));
        assert_eq!(run_start(&again, d("2026-06")), Some(d("2026-05")));
        // Ending where there is no budget changes nothing.
        assert_eq!(apply(&[], d("2026-01"), None, false), vec![]);
    }
}
