//! The words that guide a new user and the search's summary, in both
//! languages: the dashboard's next steps and its quick "+ Expense", the
//! account a form remembered, and what a search found.

use super::format;
use crate::domain::locale::Locale;
use rust_decimal::Decimal;

pub struct Words {
    pub next_title: &'static str,
    pub next_intro: &'static str,
    pub next_income: &'static str,
    pub next_income_hint: &'static str,
    pub next_expense: &'static str,
    pub next_expense_hint: &'static str,
    pub next_import: &'static str,
    pub next_import_hint: &'static str,
    pub next_done: &'static str,
    pub next_dismiss: &'static str,
    /// The next steps' offer to make one-time entries repeated every month
    /// recurring.
    pub repeat_title: &'static str,
    pub repeat_intro: &'static str,
    /// `{name}`, `{amount}`, `{count}` and `{first}` (a day).
    pub repeat_line: &'static str,
    pub repeat_income: &'static str,
    pub repeat_expense: &'static str,
    pub repeat_make: &'static str,
    pub repeat_made: &'static str,
    pub quick_expense: &'static str,
    pub quick_expense_label: &'static str,
    /// Under an account select that starts on the account last chosen in
    /// that form; `{account}` is its name.
    pub last_used: &'static str,
    /// Before the sum of the one-time entries of a kind a search found.
    pub search_sum_daily: &'static str,
    pub search_sum_income: &'static str,
    pub search_sum_transfer: &'static str,
    /// `{n}` recurring hits: why they are not in a sum.
    pub search_recurring: &'static str,
    pub search_in_category: &'static str,
    /// A recurring hit's latest price that applies from a later day:
    /// `{date}` and `{amount}`.
    pub search_price_from: &'static str,
    /// `{from}`, `{to}` and `{n}`.
    pub search_hits_of: &'static str,
    pub search_pages: &'static str,
    pub search_pages_end: &'static str,
    pub search_better: &'static str,
    pub search_further: &'static str,
}

const EN: Words = Words {
    next_title: "Next steps",
    next_intro: "Your first account is there. Fill in what comes and goes, and the dashboard shows where your money goes:",
    next_income: "Add your salary",
    next_income_hint: "or any other income",
    next_expense: "Add your rent",
    next_expense_hint: "or another recurring expense: insurance, electricity, phone",
    next_import: "Import a bank file",
    next_import_hint: "the fastest way: a statement or CSV export fills months at once",
    next_done: "done",
    next_dismiss: "Hide these steps",
    repeat_title: "Repeated every month",
    repeat_intro: "These one-time entries came every month with the same payee and amount. Made recurring, they count for the months ahead too:",
    repeat_line: "{name}: {amount} a month, {count} times since {first}",
    repeat_income: "Income",
    repeat_expense: "Expense",
    repeat_make: "Make it recurring",
    repeat_made: "Made recurring.",
    quick_expense: "+ Expense",
    quick_expense_label: "Add a one-time expense",
    last_used: "Last used in this form: {account}",
    search_sum_daily: "One-time expenses",
    search_sum_income: "One-time incomes",
    search_sum_transfer: "One-time transfers",
    search_recurring: "{n} recurring, each with its rhythm and today's amount, not added up",
    search_in_category: "in category",
    search_price_from: "from {date}: {amount}",
    search_hits_of: "Hits {from}–{to} of {n}",
    search_pages: "Pages of hits",
    search_pages_end: "Pages of hits, at the end",
    search_better: "Better matches",
    search_further: "More hits",
};

const DE: Words = Words {
    next_title: "Nächste Schritte",
    next_intro: "Dein erstes Konto ist angelegt. Trag ein, was kommt und geht, dann zeigt der Überblick, wohin dein Geld fließt:",
    next_income: "Gehalt eintragen",
    next_income_hint: "oder eine andere Einnahme",
    next_expense: "Miete eintragen",
    next_expense_hint: "oder eine andere wiederkehrende Ausgabe: Versicherung, Strom, Handy",
    next_import: "Kontoauszug importieren",
    next_import_hint: "am schnellsten: ein Kontoauszug oder CSV-Export füllt gleich mehrere Monate",
    next_done: "erledigt",
    next_dismiss: "Diese Schritte ausblenden",
    repeat_title: "Jeden Monat wiederholt",
    repeat_intro: "Diese einmaligen Einträge kamen jeden Monat mit demselben Empfänger und Betrag. Wiederkehrend zählen sie auch für die kommenden Monate:",
    repeat_line: "{name}: {amount} im Monat, {count}-mal seit {first}",
    repeat_income: "Einnahme",
    repeat_expense: "Ausgabe",
    repeat_make: "Wiederkehrend machen",
    repeat_made: "Als wiederkehrend angelegt.",
    quick_expense: "+ Ausgabe",
    quick_expense_label: "Einmalige Ausgabe erfassen",
    last_used: "Zuletzt in diesem Formular gewählt: {account}",
    search_sum_daily: "Einzelausgaben",
    search_sum_income: "Einmalige Einnahmen",
    search_sum_transfer: "Einmalige Umbuchungen",
    search_recurring: "{n} wiederkehrend, jeweils mit Rhythmus und heutigem Betrag, nicht addiert",
    search_in_category: "in Kategorie",
    search_price_from: "ab {date}: {amount}",
    search_hits_of: "Treffer {from}–{to} von {n}",
    search_pages: "Seiten der Treffer",
    search_pages_end: "Seiten der Treffer, unten",
    search_better: "Bessere Treffer",
    search_further: "Weitere Treffer",
};

pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::De => &DE,
        Locale::En => &EN,
    }
}

/// "3 found" / "3 Treffer".
pub fn found(count: usize, locale: Locale) -> String {
    let n = format::number(Decimal::from(count), 0, locale);
    match locale {
        Locale::De => format!("{n} Treffer"),
        Locale::En => format!("{n} found"),
    }
}
