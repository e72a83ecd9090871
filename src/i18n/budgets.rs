//! The budgets' words: the page, the bars, the form and the expense form's
//! hint, in both languages.

use super::format;
use crate::domain::budgets::Status;
use crate::domain::locale::Locale;
use rust_decimal::Decimal;

pub struct Words {
    pub title: &'static str,
    pub intro: &'static str,
    pub this_month: &'static str,
    pub all: &'static str,
    pub none: &'static str,
    pub none_dashboard: &'static str,
    pub set_title: &'static str,
    pub category: &'static str,
    pub amount: &'static str,
    pub rollover: &'static str,
    pub rollover_hint: &'static str,
    pub from: &'static str,
    pub from_hint: &'static str,
    pub save: &'static str,
    pub saved: &'static str,
    pub end: &'static str,
    pub end_confirm: &'static str,
    pub edit: &'static str,
    pub today: &'static str,
    pub no_categories: &'static str,
}

const EN: Words = Words {
    title: "Budgets",
    intro: "A monthly amount per category. Spending counts as on the dashboard: one-time expenses on their day, recurring expenses and subscriptions in the month they are due.",
    this_month: "Budgets this month",
    all: "All budgets",
    none: "No budgets this month. Set one below.",
    none_dashboard: "No budgets yet.",
    set_title: "Set a budget",
    category: "Category",
    amount: "Amount per month",
    rollover: "Carry what is left (or overspent) into the next month",
    rollover_hint: "Without it, every month starts at the amount.",
    from: "From month",
    from_hint: "Months before keep the budget they had.",
    save: "Save budget",
    saved: "Saved.",
    end: "End",
    end_confirm: "End this budget from this month on? Earlier months keep it.",
    edit: "Change",
    today: "today",
    no_categories: "Make a category first: budgets are per category.",
};

const DE: Words = Words {
    title: "Budgets",
    intro: "Ein Betrag pro Monat und Kategorie. Gezählt wird wie im Überblick: einmalige Ausgaben an ihrem Tag, wiederkehrende Ausgaben und Abos in dem Monat, in dem sie fällig sind.",
    this_month: "Budgets in diesem Monat",
    all: "Alle Budgets",
    none: "Keine Budgets in diesem Monat. Lege unten eins an.",
    none_dashboard: "Noch keine Budgets.",
    set_title: "Budget festlegen",
    category: "Kategorie",
    amount: "Betrag pro Monat",
    rollover: "Was übrig ist (oder fehlt), in den nächsten Monat mitnehmen",
    rollover_hint: "Ohne beginnt jeder Monat beim Betrag.",
    from: "Ab Monat",
    from_hint: "Frühere Monate behalten ihr Budget.",
    save: "Budget speichern",
    saved: "Gespeichert.",
    end: "Beenden",
    end_confirm: "Dieses Budget ab diesem Monat beenden? Frühere Monate behalten es.",
    edit: "Ändern",
    today: "heute",
    no_categories: "Lege zuerst eine Kategorie an: Budgets gelten pro Kategorie.",
};

pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::De => &DE,
        Locale::En => &EN,
    }
}

/// The status as words (the bar's colour says it too, never alone).
pub fn status(status: Status, locale: Locale) -> &'static str {
    match (status, locale) {
        (Status::Ok, Locale::De) => "im Rahmen",
        (Status::Near, Locale::De) => "fast aufgebraucht",
        (Status::Over, Locale::De) => "überschritten",
        (Status::Ok, Locale::En) => "on track",
        (Status::Near, Locale::En) => "nearly used",
        (Status::Over, Locale::En) => "over budget",
    }
}

/// "124,50 € von 400,00 € ausgegeben".
pub fn spent_of(spent: Decimal, available: Decimal, currency: &str, locale: Locale) -> String {
    let (s, a) = (
        format::money(spent, currency, locale),
        format::money(available, currency, locale),
    );
    match locale {
        Locale::De => format!("{s} von {a} ausgegeben"),
        Locale::En => format!("{s} of {a} spent"),
    }
}

/// "noch 275,50 €" or "12,00 € drüber".
pub fn remaining(remaining: Decimal, currency: &str, locale: Locale) -> String {
    let r = format::money(remaining.abs(), currency, locale);
    match (remaining < Decimal::ZERO, locale) {
        (false, Locale::De) => format!("noch {r}"),
        (true, Locale::De) => format!("{r} drüber"),
        (false, Locale::En) => format!("{r} left"),
        (true, Locale::En) => format!("{r} over"),
    }
}

/// What a budget with rollover is made of: the month's own amount and
/// what was carried, "100,00 € im Monat + 60,00 € übertragen" (or
/// "− 20,00 € übertragen" after an overspent month).
pub fn own_and_carried(
    amount: Decimal,
    carried: Decimal,
    currency: &str,
    locale: Locale,
) -> String {
    let own = format::money(amount, currency, locale);
    let sign = if carried < Decimal::ZERO { "−" } else { "+" };
    let c = format::money(carried.abs(), currency, locale);
    match locale {
        Locale::De => format!("{own} im Monat {sign} {c} übertragen"),
        Locale::En => format!("{own} a month {sign} {c} carried"),
    }
}

/// How much of what is available is spent: "84 %" ("84%" in English).
pub fn percent(percent: i64, locale: Locale) -> String {
    match locale {
        Locale::De => format!("{percent}\u{a0}%"),
        Locale::En => format!("{percent}%"),
    }
}

/// The expense form's hint once a category is chosen, for what is left
/// and for what is over, with `{remaining}` and `{available}` to fill in
/// (the page's script fills them from `listBudgets`).
pub fn left_templates(locale: Locale) -> (&'static str, &'static str) {
    match locale {
        Locale::De => (
            "Budget: noch {remaining} von {available}",
            "Budget: {remaining} über {available}",
        ),
        Locale::En => (
            "Budget: {remaining} left of {available}",
            "Budget: {remaining} over {available}",
        ),
    }
}

/// The marker's label: how far the month is.
pub fn day_of_month(day: u32, days: u32, locale: Locale) -> String {
    match locale {
        Locale::De => format!("Tag {day} von {days}"),
        Locale::En => format!("day {day} of {days}"),
    }
}

/// The forecast's note when budgets stand in for everyday spending: which
/// budgets, and what the other categories usually cost.
pub fn forecast_hint(
    total: Decimal,
    budgets: &[(String, Decimal)],
    usual: Decimal,
    currency: &str,
    locale: Locale,
) -> String {
    let m = |a: Decimal| format::money(a, currency, locale);
    let list = budgets
        .iter()
        .map(|(name, a)| format!("{name} {}", m(*a)))
        .collect::<Vec<_>>()
        .join(", ");
    match locale {
        Locale::De => format!(
            "Alltagsausgaben: {} im Monat erwartet, aus deinen Budgets ({list}) und für die \
             übrigen Kategorien aus den Einzelausgaben dieses Kontos in den letzten drei vollen \
             Monaten ({}). Der erwartete Stand beginnt beim heutigen Kontostand und zieht sie ab.",
            m(total),
            m(usual)
        ),
        Locale::En => format!(
            "Everyday spending: {} a month expected, from your budgets ({list}) and, for the \
             other categories, from the one-time expenses on this account in the last three \
             full months ({}). The expected balance starts from today's balance and takes it off.",
            m(total),
            m(usual)
        ),
    }
}
