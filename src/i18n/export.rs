//! What loading an export says when it worked: what it brought, per kind
//! of record, in the reader's language.

use super::Locale;
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
