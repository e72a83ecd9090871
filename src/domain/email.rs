//! Email addresses as users type them.

use crate::error::{Error, Result};

/// An address that looks like one: `local@domain.tld`, no spaces, at most
/// 254 characters. Kept as typed; compared lower-cased by the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(field: &'static str, raw: &str) -> Result<Email> {
        let s = raw.trim();
        let bad = || Error::invalid(field, "must be an email address such as name@example.org");
        if s.is_empty() {
            return Err(Error::invalid(field, "is required"));
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
