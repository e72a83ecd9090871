//! The words of the mails and push messages cashkeeper sends.

use super::Locale;

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
