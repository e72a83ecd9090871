//! Currency codes the service knows: the euro and every currency of the
//! European Central Bank's daily reference rates.

use crate::error::{Error, Reason, Result};

/// EUR first, then the ECB reference currencies.
pub const KNOWN: &[&str] = &[
    "EUR", "USD", "JPY", "CZK", "DKK", "GBP", "HUF", "PLN", "RON", "SEK", "CHF", "ISK", "NOK",
    "TRY", "AUD", "BRL", "CAD", "CNY", "HKD", "IDR", "ILS", "INR", "KRW", "MXN", "MYR", "NZD",
    "PHP", "SGD", "THB", "ZAR",
];

/// A known ISO 4217 code, upper case.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Currency(&'static str);

impl Currency {
    pub const EUR: Currency = Currency("EUR");

    pub fn parse(field: &'static str, raw: &str) -> Result<Currency> {
        let code = raw.trim().to_ascii_uppercase();
        KNOWN
            .iter()
            .find(|k| **k == code)
            .map(|k| Currency(k))
            .ok_or_else(|| Error::invalid(field, Reason::UnknownCurrency(raw.trim().to_string())))
    }

    pub fn code(&self) -> &'static str {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_parse_in_any_case() {
        assert_eq!(Currency::parse("currency", "chf").unwrap().code(), "CHF");
        assert_eq!(Currency::parse("currency", " EUR ").unwrap(), Currency::EUR);
    }

    #[test]
    fn unknown_codes_name_the_field() {
        let err = Currency::parse("baseCurrency", "XYZ")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("baseCurrency: unknown currency"), "{err}");
    }
}
