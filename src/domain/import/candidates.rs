//! What reconciliation compares a batch with, as a rule: only records and
//! payments near a row's date (within [`WINDOW_DAYS`]) are candidates,
//! since a file's dates may lie years apart and a weekly item has
//! thousands of due dates between. The store reads the records in
//! [`Near::span`]; this decides which of them, and which due dates, count.

use super::reconcile::{payee_key, Due, Entry, Kind, WINDOW_DAYS};
use crate::domain::recurrence::Schedule;
use chrono::{Duration, NaiveDate};

/// The days near a batch's rows.
pub struct Near<'a> {
    /// The rows' dates, sorted, without repeats.
    rows: &'a [NaiveDate],
    window: Duration,
}

impl<'a> Near<'a> {
    /// `None` for a batch without a readable date.
    pub fn new(row_dates: &'a [NaiveDate]) -> Option<Near<'a>> {
        (!row_dates.is_empty()).then_some(Near {
            rows: row_dates,
            window: Duration::days(WINDOW_DAYS),
        })
    }

    /// The first and last day that can be near a row.
    pub fn span(&self) -> (NaiveDate, NaiveDate) {
        let (first, last) = (self.rows[0], self.rows[self.rows.len() - 1]);
        (first - self.window, last + self.window)
    }

    /// Whether `day` is at most [`WINDOW_DAYS`] from some row's date.
    pub fn contains(&self, day: NaiveDate) -> bool {
        let i = self.rows.partition_point(|r| *r < day - self.window);
        self.rows.get(i).is_some_and(|r| *r <= day + self.window)
    }

    /// A recurring item's payments near the rows, each at the amount of
    /// its day (`cents`, signed as the account sees it).
    pub fn dues(
        &self,
        kind: Kind,
        id: &str,
        schedule: &Schedule,
        cents: impl Fn(NaiveDate) -> i64,
        name: &str,
    ) -> Vec<Due> {
        let (from, to) = self.span();
        schedule
            .due_dates(from, to)
            .into_iter()
            .filter(|d| self.contains(*d))
            .map(|date| Due {
                kind,
                id: id.to_string(),
                date,
                cents: cents(date),
                name: name.to_string(),
            })
            .collect()
    }
}

/// A transfer as one account sees it: its amount signed (out of the
/// account negative) and the other account; `None` when the transfer does
/// not touch the account.
pub fn transfer_side<'t>(
    account: &str,
    from_account: &'t str,
    to_account: &'t str,
    cents: i64,
) -> Option<(i64, &'t str)> {
    if from_account == account {
        Some((-cents, to_account))
    } else if to_account == account {
        Some((cents, from_account))
    } else {
        None
    }
}

/// The payee key of a one-time expense: its merchant's, or its name's.
pub fn expense_key(merchant: &str, name: &str) -> String {
    payee_key(merchant, name)
}

/// The payee key of an income: its name's.
pub fn income_key(name: &str) -> String {
    payee_key("", name)
}

/// A one-time expense of `amount_cents` (positive, as stored) as a row is
/// compared with it.
pub fn expense_entry(
    id: String,
    date: NaiveDate,
    amount_cents: i64,
    name: String,
    merchant: &str,
    import_key: Option<String>,
) -> Entry {
    Entry {
        kind: Kind::DailyExpense,
        id,
        date,
        cents: -amount_cents,
        key: expense_key(merchant, &name),
        name,
        import_key,
    }
}

/// A one-time income of `cents` as a row is compared with it.
pub fn income_entry(
    id: String,
    date: NaiveDate,
    cents: i64,
    name: String,
    import_key: Option<String>,
) -> Entry {
    Entry {
        kind: Kind::Income,
        id,
        date,
        cents,
        key: income_key(&name),
        name,
        import_key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::recurrence::Frequency;
    use chrono::Datelike;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn only_days_within_the_window_of_a_row_are_near() {
        let rows = [day("2026-01-10"), day("2026-06-01")];
        let near = Near::new(&rows).unwrap();
        assert_eq!(near.span(), (day("2026-01-07"), day("2026-06-04")));
        assert!(near.contains(day("2026-01-07")));
        assert!(near.contains(day("2026-01-13")));
        assert!(!near.contains(day("2026-01-14")));
        assert!(
            !near.contains(day("2026-03-15")),
            "between rows, far from both"
        );
        assert!(near.contains(day("2026-05-29")));
        assert!(Near::new(&[]).is_none());
    }

    #[test]
    fn a_weekly_item_is_due_only_near_the_rows_at_the_amount_of_its_day() {
        let rows = [day("2026-01-10"), day("2026-12-10")];
        let near = Near::new(&rows).unwrap();
        let weekly = Schedule {
            frequency: Frequency::Weekly,
            start: day("2026-01-01"),
            end: None,
        };
        let dues = near.dues(
            Kind::Expense,
            "e1",
            &weekly,
            |d| if d.month() == 12 { -200 } else { -100 },
            "Gym",
        );
        let days: Vec<NaiveDate> = dues.iter().map(|d| d.date).collect();
        assert_eq!(days, [day("2026-01-08"), day("2026-12-10")]);
        assert_eq!(dues[0].cents, -100);
        assert_eq!(dues[1].cents, -200);
        assert!(dues.iter().all(|d| d.id == "e1" && d.name == "Gym"));
    }

    #[test]
    fn a_transfer_is_money_out_of_its_source_and_into_its_target() {
        assert_eq!(transfer_side("a", "a", "b", 500), Some((-500, "b")));
        assert_eq!(transfer_side("b", "a", "b", 500), Some((500, "a")));
        assert_eq!(transfer_side("c", "a", "b", 500), None);
    }

    #[test]
    fn records_are_keyed_like_rows() {
        assert_eq!(expense_key("REWE", "Einkauf"), payee_key("REWE", ""));
        assert_eq!(expense_key("", "Bäckerei"), payee_key("Bäckerei", ""));
        assert_eq!(
            income_key("Arbeitgeber GmbH"),
            payee_key("", "Arbeitgeber GmbH")
        );
    }
}
