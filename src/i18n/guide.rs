//! The words that guide a person, in both languages: the account a form
//! remembered, and what a search found.

use super::{format, Locale};
use rust_decimal::Decimal;

pub struct Words {
    /// Under an account select that starts on the account last chosen in
    /// that form; `{account}` is its name.
    pub last_used: &'static str,
    pub search_sum: &'static str,
    pub search_in_category: &'static str,
}

const EN: Words = Words {
    last_used: "Last used in this form: {account}",
    search_sum: "Sum",
    search_in_category: "in category",
};

const DE: Words = Words {
    last_used: "Zuletzt in diesem Formular gewählt: {account}",
    search_sum: "Summe",
    search_in_category: "in Kategorie",
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
