//! The words of the mails and push messages cashkeeper sends.

use crate::domain::locale::Locale;

/// The password-reset mail: subject and body.
pub fn reset(locale: Locale, link: &str) -> (&'static str, String) {
    match locale {
        Locale::De => (
            "cashkeeper: Passwort zurücksetzen",
            format!(
                "Hallo,\n\njemand (hoffentlich du) möchte das Passwort deines cashkeeper-Kontos zurücksetzen.\n\
                 Mit diesem Link wählst du ein neues. Er gilt eine Stunde und nur einmal:\n\n{link}\n\n\
                 Wenn du das nicht warst, ignoriere diese Nachricht; dein Passwort bleibt, wie es ist.\n"
            ),
        ),
        Locale::En => (
            "cashkeeper: reset your password",
            format!(
                "Hello,\n\nsomeone (hopefully you) asked to reset the password of your cashkeeper account.\n\
                 This link lets you choose a new one. It works once, for one hour:\n\n{link}\n\n\
                 If this was not you, ignore this message; your password stays as it is.\n"
            ),
        ),
    }
}

/// The "over budget" push of a category: title and body.
pub fn over_budget(
    locale: Locale,
    category: &str,
    spent: &str,
    available: &str,
) -> (String, String) {
    match locale {
        Locale::De => (
            format!("Budget überschritten: {category}"),
            format!("Diesen Monat {spent} von {available} ausgegeben."),
        ),
        Locale::En => (
            format!("Over budget: {category}"),
            format!("{spent} of {available} spent this month."),
        ),
    }
}

/// The push message `days` days before a contract's last day to cancel
/// (`cancel_by`), which ends it on `term_end`: title and body.
pub fn cancel_by(
    locale: Locale,
    name: &str,
    days: i64,
    cancel_by: chrono::NaiveDate,
    term_end: chrono::NaiveDate,
) -> (String, String) {
    let (by, end) = (
        super::format::date(cancel_by, locale),
        super::format::date(term_end, locale),
    );
    match locale {
        Locale::De => (
            format!("{name}: kündbar bis {by}"),
            format!(
                "Noch {days} {}: gekündigt endet der Vertrag am {end}, sonst verlängert er sich.",
                if days == 1 { "Tag" } else { "Tage" }
            ),
        ),
        Locale::En => (
            format!("{name}: cancel by {by}"),
            format!(
                "{days} {} left: cancelled, the contract ends on {end}; otherwise it renews.",
                if days == 1 { "day" } else { "days" }
            ),
        ),
    }
}

/// The push message the day before a payment: title and body.
pub fn due_tomorrow(locale: Locale, name: &str, amount: &str) -> (String, String) {
    match locale {
        Locale::De => (
            format!("Morgen fällig: {name}"),
            format!("{amount} wird morgen abgebucht."),
        ),
        Locale::En => (
            format!("Due tomorrow: {name}"),
            format!("{amount} will be paid tomorrow."),
        ),
    }
}

/// The push after the morning bank sync when `count` new bookings of
/// `bank` wait on the import page (`docs/bank-sync.md`): title and body.
pub fn bank_to_review(locale: Locale, bank: &str, count: usize) -> (String, String) {
    match locale {
        Locale::De => (
            format!(
                "{count} {} bei {bank} zum Prüfen",
                if count == 1 {
                    "neue Buchung"
                } else {
                    "neue Buchungen"
                }
            ),
            "Der morgendliche Abruf hat sie geholt; sie warten auf der Import-Seite.".into(),
        ),
        Locale::En => (
            format!(
                "{count} new {} at {bank} to review",
                if count == 1 { "booking" } else { "bookings" }
            ),
            "The morning sync fetched them; they wait on the import page.".into(),
        ),
    }
}

/// The push when the morning sync of `bank` needs a TAN or an approval in
/// the bank's app: sent once, and the sync waits until the person fetched
/// by hand.
pub fn bank_tan_needed(locale: Locale, bank: &str) -> (String, String) {
    match locale {
        Locale::De => (
            format!("{bank} möchte eine Freigabe"),
            "Der morgendliche Abruf braucht eine TAN oder eine Freigabe in der App deiner Bank. \
             Ruf die Buchungen einmal selbst ab; bis dahin fragt cashkeeper die Bank nicht mehr \
             automatisch."
                .into(),
        ),
        Locale::En => (
            format!("{bank} asks for an approval"),
            "The morning sync needs a TAN or an approval in your bank's app. Fetch the bookings \
             once yourself; until then cashkeeper does not ask the bank automatically."
                .into(),
        ),
    }
}

/// The push when `bank` refused the saved PIN (`locked`: locked the
/// access) in the morning sync: the PIN is forgotten and the automatic
/// sync is off.
pub fn bank_pin_refused(locale: Locale, bank: &str, locked: bool) -> (String, String) {
    match (locale, locked) {
        (Locale::De, false) => (
            format!("{bank}: automatischer Abruf aus"),
            "Die Bank hat die gespeicherte PIN nicht angenommen. cashkeeper hat sie gelöscht und \
             den automatischen Abruf ausgeschaltet, damit die Bank den Zugang nicht sperrt. Gib \
             die PIN beim nächsten Abruf neu ein."
                .into(),
        ),
        (Locale::De, true) => (
            format!("{bank}: automatischer Abruf aus"),
            "Die Bank hat den Online-Zugang gesperrt. cashkeeper hat die gespeicherte PIN \
             gelöscht und den automatischen Abruf ausgeschaltet. Lass den Zugang von deiner Bank \
             entsperren."
                .into(),
        ),
        (Locale::En, false) => (
            format!("{bank}: automatic sync off"),
            "The bank did not accept the saved PIN. cashkeeper forgot it and turned the \
             automatic sync off, so the bank does not lock the access. Enter the PIN again at \
             the next sync."
                .into(),
        ),
        (Locale::En, true) => (
            format!("{bank}: automatic sync off"),
            "The bank has locked the online access. cashkeeper forgot the saved PIN and turned \
             the automatic sync off. Have your bank unlock the access."
                .into(),
        ),
    }
}
