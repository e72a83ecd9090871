//! The words that guide a person through the forms, in both languages:
//! the account a form remembered.

use super::Locale;

pub struct Words {
    /// Under an account select that starts on the account last chosen in
    /// that form; `{account}` is its name.
    pub last_used: &'static str,
}

const EN: Words = Words {
    last_used: "Last used in this form: {account}",
};

const DE: Words = Words {
    last_used: "Zuletzt in diesem Formular gewählt: {account}",
};

pub fn words(locale: Locale) -> &'static Words {
    match locale {
        Locale::De => &DE,
        Locale::En => &EN,
    }
}
