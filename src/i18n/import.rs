//! The import's words: why a staged row has its status, and why a row of
//! a bank file could not be read.

use crate::domain::import::read::Problem;
use crate::domain::import::reconcile::Reason;
use crate::domain::locale::Locale;
use chrono::NaiveDate;

/// Why a staged row has its status, in the reader's language.
pub fn reason(why: &Reason, locale: Locale) -> String {
    let de = locale == Locale::De;
    let day = |d: &NaiveDate| super::format::date(*d, locale);
    match why {
        Reason::Unreadable { problem } => problem_text(problem, locale),
        Reason::ZeroAmount if de => "Betrag 0: ein Hinweis der Bank, nichts zu buchen".into(),
        Reason::ZeroAmount => "Amount 0: a notice from the bank, nothing to book".into(),
        Reason::ImportedBefore { name, date } if de => {
            format!("Schon importiert: „{name}“ am {}", day(date))
        }
        Reason::ImportedBefore { name, date } => {
            format!("Already imported: \"{name}\" on {}", day(date))
        }
        Reason::SameEntry { name, date } if de => {
            format!("Schon erfasst: „{name}“ am {}", day(date))
        }
        Reason::SameEntry { name, date } => {
            format!("Already recorded: \"{name}\" on {}", day(date))
        }
        Reason::Recurring { name, due } if de => {
            format!("Zahlung von „{name}“, fällig am {}", day(due))
        }
        Reason::Recurring { name, due } => {
            format!("Payment of \"{name}\", due on {}", day(due))
        }
        Reason::Transfer { name, due } if de => {
            format!("Umbuchung „{name}“ am {}", day(due))
        }
        Reason::Transfer { name, due } => format!("Transfer \"{name}\" on {}", day(due)),
        Reason::NearMatch { name, date } if de => format!(
            "Ähnlich wie „{name}“ am {}: gleicher Betrag, ähnlicher Empfänger",
            day(date)
        ),
        Reason::NearMatch { name, date } => format!(
            "Like \"{name}\" on {}: same amount, similar payee",
            day(date)
        ),
        Reason::AiCategory { category } if de => {
            format!("KI-Vorschlag: Kategorie „{category}“")
        }
        Reason::AiCategory { category } => format!("AI suggestion: category \"{category}\""),
        Reason::AiDuplicate { name, date } if de => format!(
            "KI-Hinweis: vielleicht dasselbe wie „{name}“ am {}",
            day(date)
        ),
        Reason::AiDuplicate { name, date } => {
            format!("AI hint: may be the same as \"{name}\" on {}", day(date))
        }
    }
}

/// Why a row of a bank file could not be read, in the reader's language.
pub fn problem_text(problem: &Problem, locale: Locale) -> String {
    match (problem, locale) {
        (Problem::Date { value }, Locale::De) => format!("Kein gültiges Datum: „{value}“"),
        (Problem::Date { value }, Locale::En) => format!("Not a valid date: \"{value}\""),
        (Problem::Amount { value }, Locale::De) => format!("Kein gültiger Betrag: „{value}“"),
        (Problem::Amount { value }, Locale::En) => format!("Not a valid amount: \"{value}\""),
        (Problem::Pending { value }, Locale::De) => {
            format!("Vorgemerkt, noch ohne Buchungstag („{value}“)")
        }
        (Problem::Pending { value }, Locale::En) => {
            format!("Pending, not booked yet (\"{value}\")")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_in_both_languages() {
        let r = Reason::Recurring {
            name: "Netflix".into(),
            due: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
        };
        assert_eq!(
            reason(&r, Locale::De),
            "Zahlung von „Netflix“, fällig am 01.03.2026"
        );
        assert!(reason(&r, Locale::En).starts_with("Payment of \"Netflix\", due on"));
        let unreadable = Reason::Unreadable {
            problem: Problem::Date {
                value: "31.02.2025".into(),
            },
        };
        assert!(reason(&unreadable, Locale::De).contains("31.02.2025"));
        let pending = Problem::Pending {
            value: "offen".into(),
        };
        assert!(problem_text(&pending, Locale::De).contains("Vorgemerkt"));
    }
}
