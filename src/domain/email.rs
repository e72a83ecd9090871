//! Email addresses as users type them.

use crate::error::{Error, Reason, Result};
use unicode_normalization::UnicodeNormalization;

/// An address that looks like one: `local@domain.tld`, no spaces, at most
/// 254 characters. Normalised before anything compares it: NFC (so "é"
/// typed as one character or as "e" plus an accent is one address),
/// invisible characters removed (zero-width spaces and joiners, the byte
/// order mark, soft hyphens), trimmed. Kept in that form with its letter
/// case; compared by [`Email::key`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

/// Characters that show as nothing and would let two addresses that look
/// the same register twice.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

impl Email {
    pub fn parse(field: &'static str, raw: &str) -> Result<Email> {
        let normalised: String = raw.nfc().filter(|c| !invisible(*c)).collect();
        let s = normalised.trim();
        let bad = || Error::invalid(field, Reason::NotAnEmail);
        if s.is_empty() {
            return Err(Error::invalid(field, Reason::Required));
        }
        if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(bad());
        }
        let (local, domain) = s.rsplit_once('@').ok_or_else(bad)?;
        let domain_ok = domain.contains('.')
            && !domain.starts_with('.')
            && !domain.ends_with('.')
            && !domain.contains("..")
            && !domain.contains('@');
        if local.is_empty() || local.contains('@') || !domain_ok {
            return Err(bad());
        }
        Ok(Email(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The form addresses are matched and kept unique by: lower-cased.
    pub fn key(&self) -> String {
        self.0.to_lowercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_ordinary_addresses_and_trims() {
        assert_eq!(
            Email::parse("email", " Ann@Example.org ").unwrap().as_str(),
            "Ann@Example.org"
        );
        assert!(Email::parse("email", "a.b+tag@sub.example.co.uk").is_ok());
    }

    #[test]
    fn look_alike_forms_are_one_address() {
        let plain = Email::parse("email", "rene@example.org").unwrap();
        let composed = Email::parse("email", "Ren\u{00E9}@example.org").unwrap();
        let decomposed = Email::parse("email", "Rene\u{0301}@example.org").unwrap();
        assert_eq!(composed.key(), decomposed.key());
        assert_eq!(composed.as_str(), "Ren\u{00E9}@example.org");
        assert_ne!(plain.key(), composed.key());
        for hidden in [
            "ann\u{200B}@example.org",
            "\u{FEFF}ann@example.org",
            "an\u{00AD}n@example.org",
            "ann@exam\u{200D}ple.org",
            " ANN@example.org\u{2060} ",
        ] {
            assert_eq!(
                Email::parse("email", hidden).unwrap().key(),
                "ann@example.org",
                "{hidden:?}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_an_address_naming_the_field() {
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.org",
            "ann@example",
            "a b@x.org",
            "a@b@x.org",
            "a@x..org",
            "a@.x.org",
        ] {
            let err = Email::parse("email", bad).unwrap_err().to_string();
            assert!(err.starts_with("email: "), "{bad}: {err}");
        }
    }
}
