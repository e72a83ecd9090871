//! The words of contract terms and cancellation deadlines ("kündbar bis"):
//! the lists, the expense form, the dashboard and the assistant, in both
//! languages (`docs/planning.md`, Cancellation deadlines).

use super::format;
use crate::domain::contracts::Deadline;
use crate::domain::locale::Locale;
use chrono::NaiveDate;

pub struct Words {
    /// The form's group of contract fields.
    pub legend: &'static str,
    pub legend_hint: &'static str,
    pub term_end: &'static str,
    pub renewal_months: &'static str,
    pub renewal_hint: &'static str,
    pub notice_months: &'static str,
    pub notice_days: &'static str,
    /// The button that records a cancellation, and its question.
    pub cancel: &'static str,
    pub cancel_hint: &'static str,
    /// The button that takes a cancellation back.
    pub take_back: &'static str,
    /// The dashboard's card.
    pub deadlines: &'static str,
}

const EN: Words = Words {
    legend: "Contract (optional)",
    legend_hint: "With the end of the term and the notice, cashkeeper works out the last day to cancel and reminds you 14 and 3 days before it.",
    term_end: "Current term ends on",
    renewal_months: "Renews by (months)",
    renewal_hint: "12 unless given; 0: after this term it runs on and can be ended any time",
    notice_months: "Notice (months)",
    notice_days: "or notice (days)",
    cancel: "Cancel contract",
    cancel_hint: "Records that you cancelled it today: the item ends with the term.",
    take_back: "Take the cancellation back",
    deadlines: "Cancellation deadlines",
};

const DE: Words = Words {
    legend: "Vertrag (optional)",
    legend_hint: "Mit dem Laufzeitende und der Kündigungsfrist rechnet cashkeeper den letzten Tag zum Kündigen aus und erinnert dich 14 und 3 Tage vorher.",
    term_end: "Aktuelle Laufzeit endet am",
    renewal_months: "Verlängerung um (Monate)",
    renewal_hint: "12, wenn leer; 0: danach läuft er weiter und ist jederzeit kündbar",
    notice_months: "Kündigungsfrist (Monate)",
    notice_days: "oder Kündigungsfrist (Tage)",
    cancel: "Kündigen",
    cancel_hint: "Trägt ein, dass du heute gekündigt hast: der Posten endet mit der Laufzeit.",
    take_back: "Kündigung zurücknehmen",
    deadlines: "Kündigungsfristen",
};

pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::En => &EN,
        Locale::De => &DE,
    }
}

/// What an item's contract says on a day: "kündbar bis 31.08.2027",
/// "jederzeit kündbar, zum 10.01.2027", or once cancelled "gekündigt zum
/// 31.08.2027"; `None` without terms.
pub fn state(
    locale: Locale,
    deadline: Option<&Deadline>,
    cancelled_to: Option<NaiveDate>,
) -> Option<String> {
    let date = |d| format::date(d, locale);
    let de = locale == Locale::De;
    if let Some(to) = cancelled_to {
        return Some(if de {
            format!("gekündigt zum {}", date(to))
        } else {
            format!("cancelled, ends {}", date(to))
        });
    }
    let d = deadline?;
    Some(match (d.runs_on, de) {
        (true, true) => format!("jederzeit kündbar, zum {}", date(d.term_end)),
        (true, false) => format!("can be cancelled any day, to {}", date(d.term_end)),
        (false, true) => format!("kündbar bis {}", date(d.cancel_by)),
        (false, false) => format!("cancel by {}", date(d.cancel_by)),
    })
}

/// How long is left until a deadline: "heute", "noch 1 Tag", "noch 14 Tage".
pub fn days_left(locale: Locale, days: i64) -> String {
    match (locale, days) {
        (Locale::De, 0) => "heute".into(),
        (Locale::De, 1) => "noch 1 Tag".into(),
        (Locale::De, n) => format!("noch {n} Tage"),
        (Locale::En, 0) => "today".into(),
        (Locale::En, 1) => "1 day left".into(),
        (Locale::En, n) => format!("{n} days left"),
    }
}

/// The question before a cancellation is recorded: to which day it ends.
pub fn cancel_question(locale: Locale, name: &str, term_end: NaiveDate) -> String {
    let end = format::date(term_end, locale);
    match locale {
        Locale::De => format!("{name} zum {end} kündigen?"),
        Locale::En => format!("Cancel {name}, ending {end}?"),
    }
}

/// The terms as the assistant tells them: "Laufzeit bis 31.08.2027,
/// verlängert sich um 12 Monate, Kündigungsfrist 3 Monate: kündbar bis
/// 31.05.2027".
pub fn terms_line(
    locale: Locale,
    term_end: Option<NaiveDate>,
    renewal_months: u32,
    notice: Option<crate::domain::contracts::Notice>,
    state: &str,
) -> String {
    use crate::domain::contracts::Notice;
    let de = locale == Locale::De;
    let mut parts = Vec::new();
    if let Some(end) = term_end {
        let end = format::date(end, locale);
        parts.push(if de {
            format!("Laufzeit bis {end}")
        } else {
            format!("term until {end}")
        });
    }
    parts.push(match (renewal_months, de) {
        (0, true) => "danach ohne feste Laufzeit".to_string(),
        (0, false) => "then no fixed term".to_string(),
        (n, true) => format!("verlängert sich um {n} Monate"),
        (n, false) => format!("renews by {n} months"),
    });
    if let Some(n) = notice {
        parts.push(match (n, de) {
            (Notice::Months(m), true) => format!("Kündigungsfrist {m} Monate"),
            (Notice::Months(m), false) => format!("notice {m} months"),
            (Notice::Days(d), true) => format!("Kündigungsfrist {d} Tage"),
            (Notice::Days(d), false) => format!("notice {d} days"),
        });
    }
    format!("{}: {state}", parts.join(", "))
}
