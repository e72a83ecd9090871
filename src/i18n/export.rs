//! What loading an export says when it worked: what it brought, per kind
//! of record, in the reader's language.

use crate::domain::locale::Locale;
use rust_decimal::Decimal;
use std::collections::BTreeMap;

/// The kinds of record named, in this order, with their words (English
/// one and many, German one and many); other tables (histories,
/// conversations, imports) travel along unnamed.
const NAMED: &[(&str, [&str; 4])] = &[
    ("accounts", ["account", "accounts", "Konto", "Konten"]),
    (
        "expenses",
        [
            "recurring expense",
            "recurring expenses",
            "wiederkehrende Ausgabe",
            "wiederkehrende Ausgaben",
        ],
    ),
    (
        "daily_expenses",
        [
            "one-time expense",
            "one-time expenses",
            "Einzelausgabe",
            "Einzelausgaben",
        ],
    ),
    ("incomes", ["income", "incomes", "Einnahme", "Einnahmen"]),
    (
        "transfers",
        ["transfer", "transfers", "Umbuchung", "Umbuchungen"],
    ),
    (
        "categories",
        ["category", "categories", "Kategorie", "Kategorien"],
    ),
    ("budgets", ["budget", "budgets", "Budget", "Budgets"]),
    (
        "documents",
        ["document", "documents", "Dokument", "Dokumente"],
    ),
];

/// "Export geladen: 1 Konto, 120 Einzelausgaben, 3 Kategorien.", with the
/// base currency when the archive brought another.
pub fn loaded(locale: Locale, tables: &BTreeMap<String, usize>, base: Option<&str>) -> String {
    let de = locale == Locale::De;
    let parts: Vec<String> = NAMED
        .iter()
        .filter_map(|(table, words)| {
            let n = *tables.get(*table)?;
            let word = match (de, n == 1) {
                (false, true) => words[0],
                (false, false) => words[1],
                (true, true) => words[2],
                (true, false) => words[3],
            };
            let count = super::format::number(Decimal::from(n), 0, locale);
            (n > 0).then(|| format!("{count} {word}"))
        })
        .collect();
    let mut out = match (de, parts.is_empty()) {
        (true, true) => "Export geladen: keine Einträge.".to_string(),
        (false, true) => "Export loaded: no records.".to_string(),
        (true, false) => format!("Export geladen: {}.", parts.join(", ")),
        (false, false) => format!("Export loaded: {}.", parts.join(", ")),
    };
    if let Some(code) = base {
        out.push_str(&if de {
            format!(" Basiswährung jetzt {code}.")
        } else {
            format!(" Base currency now {code}.")
        });
    }
    out
}

/// The spreadsheet files of an export (`store::export::sheets`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sheet {
    Accounts,
    DailyExpenses,
    Expenses,
    Incomes,
    Transfers,
    Budgets,
    BalanceHistory,
    /// A search's hits (`/api/export/search`), not in the archive.
    Search,
}

/// A spreadsheet file's name (without `.csv`) and its column headers in
/// the reader's language.
pub fn sheet_words(sheet: Sheet, locale: Locale) -> (&'static str, &'static [&'static str]) {
    match (sheet, locale) {
        (Sheet::Accounts, Locale::De) => ("Konten", &["Name", "Art", "Währung", "Kontostand"]),
        (Sheet::Accounts, Locale::En) => ("accounts", &["Name", "Type", "Currency", "Balance"]),
        (Sheet::DailyExpenses, Locale::De) => (
            "Einzelausgaben",
            &[
                "Datum",
                "Name",
                "Händler",
                "Betrag",
                "Währung",
                "Konto",
                "Kategorie",
                "Notizen",
            ],
        ),
        (Sheet::DailyExpenses, Locale::En) => (
            "one-time-expenses",
            &[
                "Date", "Name", "Merchant", "Amount", "Currency", "Account", "Category", "Notes",
            ],
        ),
        (Sheet::Expenses, Locale::De) => (
            "Wiederkehrende-Ausgaben",
            &[
                "Name",
                "Betrag",
                "Währung",
                "Rhythmus",
                "Beginn",
                "Ende",
                "Konto",
                "Kategorie",
                "Abo",
                "Notizen",
            ],
        ),
        (Sheet::Expenses, Locale::En) => (
            "recurring-expenses",
            &[
                "Name",
                "Amount",
                "Currency",
                "Frequency",
                "Start",
                "End",
                "Account",
                "Category",
                "Subscription",
                "Notes",
            ],
        ),
        (Sheet::Incomes, Locale::De) => (
            "Einnahmen",
            &[
                "Name", "Betrag", "Währung", "Rhythmus", "Beginn", "Ende", "Konto", "Notizen",
            ],
        ),
        (Sheet::Incomes, Locale::En) => (
            "incomes",
            &[
                "Name",
                "Amount",
                "Currency",
                "Frequency",
                "Start",
                "End",
                "Account",
                "Notes",
            ],
        ),
        (Sheet::Transfers, Locale::De) => (
            "Umbuchungen",
            &[
                "Von Konto",
                "Auf Konto",
                "Betrag",
                "Währung",
                "Rhythmus",
                "Beginn",
                "Ende",
                "Notiz",
            ],
        ),
        (Sheet::Transfers, Locale::En) => (
            "transfers",
            &[
                "From account",
                "To account",
                "Amount",
                "Currency",
                "Frequency",
                "Start",
                "End",
                "Note",
            ],
        ),
        (Sheet::Budgets, Locale::De) => (
            "Budgets",
            &["Kategorie", "Gilt ab", "Betrag", "Währung", "Übertrag"],
        ),
        (Sheet::Budgets, Locale::En) => (
            "budgets",
            &["Category", "From", "Amount", "Currency", "Rollover"],
        ),
        (Sheet::BalanceHistory, Locale::De) => (
            "Kontostand-Verlauf",
            &["Datum", "Konto", "Kontostand", "Währung"],
        ),
        (Sheet::BalanceHistory, Locale::En) => (
            "balance-history",
            &["Date", "Account", "Balance", "Currency"],
        ),
        (Sheet::Search, Locale::De) => (
            "Suche",
            &[
                "Art", "Datum", "Beginn", "Name", "Händler", "Betrag", "Währung", "Rhythmus",
            ],
        ),
        (Sheet::Search, Locale::En) => (
            "search",
            &[
                "Kind",
                "Date",
                "Start",
                "Name",
                "Merchant",
                "Amount",
                "Currency",
                "Frequency",
            ],
        ),
    }
}

/// "Ja"/"Nein", "yes"/"no" in a spreadsheet's cell.
pub fn yes_no(yes: bool, locale: Locale) -> &'static str {
    match (yes, locale) {
        (true, Locale::De) => "ja",
        (false, Locale::De) => "nein",
        (true, Locale::En) => "yes",
        (false, Locale::En) => "no",
    }
}

/// A search hit's kind (`store::search::Hit::kind`) in a spreadsheet's cell.
pub fn kind(kind: &str, locale: Locale) -> &'static str {
    let t = locale.texts();
    match kind {
        "account" => t.kind_account,
        "category" => t.kind_category,
        "expense" => t.kind_expense,
        "income" => t.kind_income,
        "transfer" => t.kind_transfer,
        _ => t.kind_daily_expense,
    }
}

/// An account type's word from its code (`checking`, `savings`, `etf`).
pub fn account_type(code: &str, locale: Locale) -> Option<&'static str> {
    let t = locale.texts();
    match code {
        "checking" => Some(t.type_checking),
        "savings" => Some(t.type_savings),
        "etf" => Some(t.type_etf),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_names_what_it_brought_in_both_languages() {
        let tables: BTreeMap<String, usize> = [
            ("accounts", 3),
            ("daily_expenses", 1200),
            ("documents", 1),
            ("balance_history", 9),
        ]
        .into_iter()
        .map(|(t, n)| (t.to_string(), n))
        .collect();
        assert_eq!(
            loaded(Locale::De, &tables, Some("USD")),
            "Export geladen: 3 Konten, 1.200 Einzelausgaben, 1 Dokument. Basiswährung jetzt USD."
        );
        assert_eq!(
            loaded(Locale::En, &tables, None),
            "Export loaded: 3 accounts, 1,200 one-time expenses, 1 document."
        );
        assert_eq!(
            loaded(Locale::De, &BTreeMap::new(), None),
            "Export geladen: keine Einträge."
        );
    }
}
