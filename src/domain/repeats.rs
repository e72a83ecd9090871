//! One-time entries that repeat every month with the same payee and
//! amount: the salary and the rent as a bank import brings them, offered to
//! become a recurring income or expense (`docs/import.md`, "Make it
//! recurring").

use chrono::{Datelike, NaiveDate};

/// Which one-time entries: expenses or incomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Expense,
    Income,
}

impl Kind {
    pub fn code(self) -> &'static str {
        match self {
            Kind::Expense => "expense",
            Kind::Income => "income",
        }
    }

    pub fn from_code(code: &str) -> Option<Kind> {
        match code {
            "expense" => Some(Kind::Expense),
            "income" => Some(Kind::Income),
            _ => None,
        }
    }
}

/// A one-time expense or income as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct OneTime {
    pub id: String,
    pub name: String,
    pub cents: i64,
    pub currency: String,
    pub account_id: String,
    pub category_id: Option<String>,
    pub date: NaiveDate,
}

/// Entries of one payee and amount, one in each of two or more months in a
/// row.
#[derive(Clone, Debug, PartialEq)]
pub struct Repeat {
    /// The name of the latest entry.
    pub name: String,
    pub cents: i64,
    pub currency: String,
    pub account_id: String,
    /// The category of the latest entry that has one.
    pub category_id: Option<String>,
    pub first: NaiveDate,
    pub last: NaiveDate,
    /// The entries, oldest first.
    pub ids: Vec<String>,
}

/// The runs of `entries` with the same name (case and outer spaces aside),
/// amount, currency and account that fall one in each month of two or
/// more months in a row, between 20 and 40 days apart; oldest run first.
/// A second entry in the same month ends a run: that is no monthly item.
pub fn monthly(entries: &[OneTime]) -> Vec<Repeat> {
    let key = |e: &OneTime| {
        (
            e.name.trim().to_lowercase(),
            e.cents,
            e.currency.clone(),
            e.account_id.clone(),
        )
    };
    let mut sorted: Vec<&OneTime> = entries.iter().collect();
    sorted.sort_by(|a, b| key(a).cmp(&key(b)).then(a.date.cmp(&b.date)));
    let month = |d: NaiveDate| d.year() * 12 + d.month0() as i32;
    let mut runs: Vec<Vec<&OneTime>> = Vec::new();
    let mut run: Vec<&OneTime> = Vec::new();
    for e in sorted {
        let follows = run.last().is_some_and(|p| {
            let days = (e.date - p.date).num_days();
            key(p) == key(e) && month(e.date) == month(p.date) + 1 && (20..=40).contains(&days)
        });
        if !follows {
            runs.push(std::mem::take(&mut run));
        }
        run.push(e);
    }
    runs.push(run);
    let mut repeats: Vec<Repeat> = runs
        .into_iter()
        .filter(|r| r.len() >= 2)
        .map(|r| {
            let (first, last) = (r[0], r[r.len() - 1]);
            Repeat {
                name: last.name.trim().to_string(),
                cents: last.cents,
                currency: last.currency.clone(),
                account_id: last.account_id.clone(),
                category_id: r.iter().rev().find_map(|e| e.category_id.clone()),
                first: first.date,
                last: last.date,
                ids: r.iter().map(|e| e.id.clone()).collect(),
            }
        })
        .collect();
    repeats.sort_by(|a, b| a.first.cmp(&b.first).then(a.name.cmp(&b.name)));
    repeats
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, name: &str, cents: i64, date: &str) -> OneTime {
        OneTime {
            id: id.into(),
            name: name.into(),
            cents,
            currency: "EUR".into(),
            account_id: "giro".into(),
            category_id: None,
            date: date.parse().unwrap(),
        }
    }

    #[test]
    fn the_same_payee_and_amount_in_months_in_a_row_repeat() {
        let got = monthly(&[
            entry("r2", "Vermieter", 90000, "2026-02-01"),
            entry("r1", "vermieter ", 90000, "2026-01-02"),
            entry("r3", "Vermieter", 90000, "2026-03-01"),
            entry("s1", "ACME GmbH", 250000, "2026-01-28"),
            entry("s2", "ACME GmbH", 250000, "2026-02-27"),
            // Another amount, a lone entry, another currency: no repeat.
            entry("x1", "REWE", 2399, "2026-01-05"),
            entry("x2", "REWE", 1250, "2026-02-05"),
            OneTime {
                currency: "CHF".into(),
                ..entry("c1", "ACME GmbH", 250000, "2026-03-27")
            },
        ]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].ids, ["r1", "r2", "r3"]);
        assert_eq!(got[0].name, "Vermieter");
        assert_eq!(
            (got[0].first, got[0].last),
            ("2026-01-02".parse().unwrap(), "2026-03-01".parse().unwrap())
        );
        assert_eq!(got[1].ids, ["s1", "s2"]);
    }

    #[test]
    fn entries_that_are_not_a_month_apart_do_not_repeat() {
        for (a, b) in [
            ("2026-01-31", "2026-02-01"), // next month, a day later
            ("2026-01-05", "2026-03-05"), // a month left out
            ("2026-01-05", "2026-01-25"), // the same month
            ("2025-01-05", "2026-02-05"), // a year and a month
        ] {
            let got = monthly(&[entry("a", "Miete", 900, a), entry("b", "Miete", 900, b)]);
            assert!(got.is_empty(), "{a} {b}: {got:?}");
        }
        // Across the year's end they do.
        let got = monthly(&[
            entry("a", "Miete", 900, "2025-12-30"),
            entry("b", "Miete", 900, "2026-01-30"),
        ]);
        assert_eq!(got.len(), 1);
    }
}
