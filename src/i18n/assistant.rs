//! The assistant's words for people: the line under an answer saying what
//! it looked at, the one-line summary of a proposal, and its refusals.
//! What the model reads (the system prompt, the tools' descriptions) is
//! English and lives with the tools in `app::assistant`.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::format;
use crate::domain::locale::Locale;
use crate::domain::recurrence::{Frequency, Schedule};

/// What a read tool looked at, said under the answer. Stored with the
/// tool's message as data ([`Looked::stored`]) and worded when shown, so a
/// reopened conversation speaks the reader's language of the day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "looked", rename_all = "camelCase")]
pub enum Looked {
    /// The dashboard of a month.
    Summary {
        year: i32,
        month: u32,
    },
    Accounts,
    Payments {
        from: NaiveDate,
        to: NaiveDate,
    },
    Search {
        query: String,
    },
    Forecast {
        account: String,
    },
    ReservePlan,
    Insights,
    /// Spending by category of a month.
    SpendingByCategory {
        year: i32,
        month: u32,
    },
    /// The budgets of a month.
    Budgets {
        year: i32,
        month: u32,
    },
    Subscriptions,
    Contracts,
}

impl Looked {
    /// The line as stored with the tool's message: JSON.
    pub fn stored(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A stored line in `l`: one stored as data is worded now; one stored
    /// as words (before lines were kept as data) stays as it was written.
    pub fn shown(stored: &str, l: Locale) -> String {
        match serde_json::from_str::<Looked>(stored) {
            Ok(looked) => looked.text(l),
            Err(_) => stored.to_string(),
        }
    }

    pub fn text(&self, l: Locale) -> String {
        let de = l == Locale::De;
        let (german, english) = match self {
            Looked::Summary { year, month } => {
                let month = l.month_year(*year, *month);
                (
                    format!("Übersicht für {month} angesehen"),
                    format!("looked at your summary for {month}"),
                )
            }
            Looked::Accounts => ("Konten angesehen".into(), "looked at your accounts".into()),
            Looked::Payments { from, to } => {
                let (f, t) = (format::date(*from, l), format::date(*to, l));
                (
                    format!("Zahlungen vom {f} bis {t} angesehen"),
                    format!("looked at your payments from {f} to {t}"),
                )
            }
            Looked::Search { query } => {
                let q = quoted(query, l);
                (format!("nach {q} gesucht"), format!("searched for {q}"))
            }
            Looked::Forecast { account } => (
                format!("Prognose für {account} angesehen"),
                format!("looked at your forecast for {account}"),
            ),
            Looked::ReservePlan => (
                "Rücklagenplan angesehen".into(),
                "looked at your reserve plan".into(),
            ),
            Looked::Insights => (
                "Hinweise angesehen".into(),
                "looked at your insights".into(),
            ),
            Looked::SpendingByCategory { year, month } => {
                let month = l.month_year(*year, *month);
                (
                    format!("Ausgaben nach Kategorie für {month} angesehen"),
                    format!("looked at your spending by category for {month}"),
                )
            }
            Looked::Budgets { year, month } => {
                let month = l.month_year(*year, *month);
                (
                    format!("Budgets für {month} angesehen"),
                    format!("looked at your budgets for {month}"),
                )
            }
            Looked::Subscriptions => (
                "Abos angesehen".into(),
                "looked at your subscriptions".into(),
            ),
            Looked::Contracts => (
                "Verträge und Kündigungsfristen angesehen".into(),
                "looked at your contracts and their cancellation deadlines".into(),
            ),
        };
        if de {
            german
        } else {
            english
        }
    }
}

/// The kinds of entry the assistant proposes, as a summary line names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    DailyExpense,
    Expense,
    Subscription,
    Income,
    Transfer,
}

impl Entry {
    pub fn label(self, l: Locale) -> &'static str {
        match (self, l) {
            (Entry::DailyExpense, Locale::De) => "Einzelausgabe",
            (Entry::DailyExpense, Locale::En) => "One-time expense",
            (Entry::Expense, Locale::De) => "Wiederkehrende Ausgabe",
            (Entry::Expense, Locale::En) => "Recurring expense",
            (Entry::Subscription, Locale::De) => "Abo",
            (Entry::Subscription, Locale::En) => "Subscription",
            (Entry::Income, Locale::De) => "Einnahme",
            (Entry::Income, Locale::En) => "Income",
            (Entry::Transfer, Locale::De) => "Umbuchung",
            (Entry::Transfer, Locale::En) => "Transfer",
        }
    }
}

/// A name in the quotes of the language: „Miete“, “Rent”.
pub fn quoted(name: &str, l: Locale) -> String {
    match l {
        Locale::De => format!("„{name}“"),
        Locale::En => format!("“{name}”"),
    }
}

/// A proposal that cannot be booked: "Einnahme nicht möglich: amount: …".
pub fn not_possible(entry: Entry, why: &str, l: Locale) -> String {
    match l {
        Locale::De => format!("{} nicht möglich: {why}", entry.label(l)),
        Locale::En => format!("{} not possible: {why}", entry.label(l)),
    }
}

/// A proposal that changes an entry, with the amount it had if that
/// changes ("was 12,99 €").
pub fn change(line: &str, was: Option<&str>, l: Locale) -> String {
    match (l, was) {
        (Locale::De, Some(was)) => format!("Änderung: {line} (bisher {was})"),
        (Locale::De, None) => format!("Änderung: {line}"),
        (Locale::En, Some(was)) => format!("Change: {line} (was {was})"),
        (Locale::En, None) => format!("Change: {line}"),
    }
}

/// The day a changed amount applies from, as a proposal's line says it
/// (", neuer Betrag ab 01.01.2027"); empty without one.
pub fn amount_from(from: Option<NaiveDate>, l: Locale) -> String {
    match (from, l) {
        (None, _) => String::new(),
        (Some(d), Locale::De) => format!(", neuer Betrag ab {}", format::date(d, l)),
        (Some(d), Locale::En) => format!(", new amount from {}", format::date(d, l)),
    }
}

/// When a schedule is due: "monatlich ab 01.12.2026", "on 1 Dec 2026".
pub fn when(s: &Schedule, l: Locale) -> String {
    let start = format::date(s.start, l);
    if s.frequency == Frequency::Once {
        return match l {
            Locale::De => format!("am {start}"),
            Locale::En => format!("on {start}"),
        };
    }
    let f = l.frequency(s.frequency);
    let end = s.end.map(|e| format::date(e, l));
    match (l, end) {
        (Locale::De, None) => format!("{f} ab {start}"),
        (Locale::De, Some(end)) => format!("{f} ab {start} bis {end}"),
        (Locale::En, None) => format!("{f} from {start}"),
        (Locale::En, Some(end)) => format!("{f} from {start} until {end}"),
    }
}

/// A one-time expense's line: "Einzelausgabe 12,50 € bei Bäckerei am
/// 23.11.2026"; `named` is the quoted name and a space, or empty.
pub fn one_time(named: &str, amount: &str, at: &str, date: NaiveDate, l: Locale) -> String {
    let (label, date) = (Entry::DailyExpense.label(l), format::date(date, l));
    match l {
        Locale::De => format!("{label} {named}{amount} bei {at} am {date}"),
        Locale::En => format!("{label} {named}{amount} at {at} on {date}"),
    }
}

/// A transfer's line: "Umbuchung 100,00 € von Giro auf Sparen monatlich ab …".
pub fn transfer(amount: &str, from: &str, to: &str, when: &str, l: Locale) -> String {
    let label = Entry::Transfer.label(l);
    match l {
        Locale::De => format!("{label} {amount} von {from} auf {to} {when}"),
        Locale::En => format!("{label} {amount} from {from} to {to} {when}"),
    }
}

/// Where a proposal books, said after its line: " · Konto „Giro“ ·
/// Kategorie „Lebensmittel“". `category` is `None` for a kind without
/// categories (incomes), `Some(None)` when none is chosen.
pub fn booked_on(account: &str, category: Option<Option<&str>>, l: Locale) -> String {
    let account = quoted(account, l);
    let category = category.map(|c| c.map(|c| quoted(c, l)));
    match (l, category) {
        (Locale::De, None) => format!(" · Konto {account}"),
        (Locale::De, Some(None)) => format!(" · Konto {account} · ohne Kategorie"),
        (Locale::De, Some(Some(c))) => format!(" · Konto {account} · Kategorie {c}"),
        (Locale::En, None) => format!(" · account {account}"),
        (Locale::En, Some(None)) => format!(" · account {account} · no category"),
        (Locale::En, Some(Some(c))) => format!(" · account {account} · category {c}"),
    }
}

/// What the person reads when an answer took longer than `seconds` (the
/// whole request, every round included).
pub fn too_long(l: Locale, seconds: u64) -> String {
    match l {
        Locale::De => format!(
            "Die Antwort hat zu lange gedauert (mehr als {seconds} Sekunden) und wurde abgebrochen; bitte versuch es noch einmal."
        ),
        Locale::En => format!(
            "The answer took too long (more than {seconds} seconds) and was stopped; please try again."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proposal_says_its_account_and_category() {
        assert_eq!(
            booked_on("Giro", Some(Some("Lebensmittel")), Locale::De),
            " · Konto „Giro“ · Kategorie „Lebensmittel“"
        );
        assert_eq!(
            booked_on("Giro", Some(None), Locale::De),
            " · Konto „Giro“ · ohne Kategorie"
        );
        assert_eq!(
            booked_on("Checking", None, Locale::En),
            " · account “Checking”"
        );
        assert_eq!(
            booked_on("Checking", Some(Some("Food")), Locale::En),
            " · account “Checking” · category “Food”"
        );
    }
}
