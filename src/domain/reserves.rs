//! Reserves: money set aside month by month for the recurring expenses that
//! are not due every month (quarterly, half-yearly, yearly), so the month
//! they fall due is no surprise.

use super::money;
use super::recurrence::{Frequency, Schedule};
use chrono::{Days, Months, NaiveDate};
use rust_decimal::Decimal;

/// Whether an expense of this frequency needs a reserve.
pub fn needs_reserve(f: Frequency) -> bool {
    matches!(
        f,
        Frequency::Quarterly | Frequency::HalfYearly | Frequency::Yearly
    )
}

/// The next due date on or after `today` and what should be set aside for
/// it by today: the amount times the part of the period (from the previous
/// due date, or one period before the first) that has passed, rounded to
/// cents. `None` when the item is not due again.
pub fn set_aside_by(
    schedule: &Schedule,
    amount: Decimal,
    today: NaiveDate,
) -> Option<(NaiveDate, Decimal)> {
    let next = schedule.next_due(today)?;
    let months = match schedule.frequency {
        Frequency::Quarterly => 3,
        Frequency::HalfYearly => 6,
        Frequency::Yearly => 12,
        Frequency::Monthly => 1,
        Frequency::Weekly | Frequency::Once => 0,
    };
    let previous = next
        .checked_sub_days(Days::new(1))
        .and_then(|d| schedule.previous_due(d))
        .or_else(|| next.checked_sub_months(Months::new(months)))
        .unwrap_or(next);
    let period = (next - previous).num_days();
    if period <= 0 || today >= next {
        return Some((next, amount));
    }
    let passed = (today - previous).num_days().clamp(0, period);
    Some((
        next,
        money::round(amount * Decimal::from(passed) / Decimal::from(period)),
    ))
}

/// How a pot stands against what it should hold by today: what it still
/// misses and what it holds beyond that, each never negative and one of
/// them zero, so `target - pot == missing - ahead`. Each pot counts on its
/// own: one pot's surplus does not fill another's gap, and a total of the
/// gaps is therefore no difference of the totals unless the surpluses are
/// shown beside it.
pub fn standing(target: Decimal, pot: Decimal) -> (Decimal, Decimal) {
    (
        (target - pot).max(Decimal::ZERO),
        (pot - target).max(Decimal::ZERO),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }
    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    #[test]
    fn halfway_through_a_year_half_should_be_set_aside() {
        let s = Schedule::new(Frequency::Yearly, d("2024-03-01"), None).unwrap();
        // From 1 Mar 2025 to 1 Mar 2026 is 365 days; 31 Aug 2025 is day 183.
        let (next, should) = set_aside_by(&s, dec("1200"), d("2025-08-31")).unwrap();
        assert_eq!(next, d("2026-03-01"));
        assert_eq!(should, dec("601.64"));
    }

    #[test]
    fn on_the_due_day_the_whole_amount_and_the_day_after_one_days_share() {
        let s = Schedule::new(Frequency::Quarterly, d("2025-01-15"), None).unwrap();
        assert_eq!(
            set_aside_by(&s, dec("90"), d("2025-04-15")),
            Some((d("2025-04-15"), dec("90")))
        );
        // 15 Apr to 15 Jul is 91 days: one day in, 90/91 is saved.
        assert_eq!(
            set_aside_by(&s, dec("90"), d("2025-04-16")),
            Some((d("2025-07-15"), dec("0.99")))
        );
    }

    #[test]
    fn before_the_first_due_date_the_period_is_counted_back_from_it() {
        let s = Schedule::new(Frequency::HalfYearly, d("2025-07-01"), None).unwrap();
        // Six months before 1 Jul is 1 Jan; 1 Apr is 90 of 181 days in.
        let (next, should) = set_aside_by(&s, dec("181"), d("2025-04-01")).unwrap();
        assert_eq!(next, d("2025-07-01"));
        assert_eq!(should, dec("90.00"));
    }

    #[test]
    fn a_pot_misses_what_it_lacks_or_is_ahead_by_what_it_holds_beyond() {
        assert_eq!(standing(dec("48.36"), dec("0")), (dec("48.36"), dec("0")));
        assert_eq!(
            standing(dec("6.59"), dec("25.50")),
            (dec("0"), dec("18.91"))
        );
        assert_eq!(standing(dec("10"), dec("10")), (dec("0"), dec("0")));
        // Over several pots the totals add up once the surpluses are counted:
        // should be − in the pots = missing − ahead.
        let pots = [(dec("67.27"), dec("0")), (dec("6.59"), dec("25.50"))];
        let (target, held): (Decimal, Decimal) = (
            pots.iter().map(|p| p.0).sum(),
            pots.iter().map(|p| p.1).sum(),
        );
        let (missing, ahead) = pots
            .iter()
            .map(|&(t, p)| standing(t, p))
            .fold((Decimal::ZERO, Decimal::ZERO), |a, s| {
                (a.0 + s.0, a.1 + s.1)
            });
        assert_eq!((target, held), (dec("73.86"), dec("25.50")));
        assert_eq!((missing, ahead), (dec("67.27"), dec("18.91")));
        assert_eq!(target - held, missing - ahead);
    }

    proptest::proptest! {
        #[test]
        fn missing_and_ahead_are_the_difference_split_by_sign(t in 0i64..1_000_000, p in 0i64..1_000_000) {
            let (target, pot) = (Decimal::new(t, 2), Decimal::new(p, 2));
            let (missing, ahead) = standing(target, pot);
            proptest::prop_assert!(missing >= Decimal::ZERO && ahead >= Decimal::ZERO);
            proptest::prop_assert!(missing.is_zero() || ahead.is_zero());
            proptest::prop_assert_eq!(target - pot, missing - ahead);
        }
    }

    #[test]
    fn an_ended_item_needs_nothing() {
        let s = Schedule::new(Frequency::Yearly, d("2020-01-01"), Some(d("2024-12-31"))).unwrap();
        assert_eq!(set_aside_by(&s, dec("100"), d("2025-06-01")), None);
        assert!(
            needs_reserve(Frequency::Yearly)
                && !needs_reserve(Frequency::Monthly)
                && !needs_reserve(Frequency::Weekly)
        );
    }
}
