//! Amounts as people type them into the pages, in their language's style:
//! German `1.234,56`, `1.500` (fifteen hundred), `12,5`; English
//! `1,234.56`, `1,500`, `12.5`. What the forms prefill ([`input_value`])
//! and what the pages show (`format::money`) read back to the same amount.
//!
//! An input that could mean two amounts in the user's style is refused with
//! a message, never guessed: German `1,500` (one and a half, or the English
//! fifteen hundred?) and `13.99` (the English decimal point), English
//! `1.500` and `12,5`. Three decimals that are more than cents (German
//! `0,001`, English `1.005`) are refused for having more than two decimals. The action API itself keeps canonical numbers
//! (`domain::money::parse`); the pages mark their amount fields, and the
//! action layer reads those through here first.

use crate::domain::locale::Locale;
use rust_decimal::Decimal;

/// Why a typed amount was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AmountError {
    /// Nothing but spaces.
    Empty,
    /// Not an amount at all.
    Invalid,
    /// The other language's decimal separator where this one's is meant,
    /// e.g. German `13.99`: the cents as this locale writes them.
    Separator { suggestion: String },
    /// Three digits after the decimal separator, the last a zero: one and
    /// a half, or fifteen hundred written the other way? Both readings
    /// named.
    Ambiguous { thousands: String, decimal: String },
    /// Three digits after the decimal separator that are more than cents
    /// (`0,001`, English `1.005`): amounts have at most two decimals. When
    /// the digits could be the other style's thousands (`1.005` for one
    /// thousand and five), that way of writing them is named too.
    TooManyDecimals { thousands: Option<String> },
}

impl AmountError {
    /// The message after the field's name, in the user's language.
    pub fn message(&self, locale: Locale) -> String {
        match (self, locale) {
            // As `i18n::messages` words "is required".
            (AmountError::Empty, _) => crate::error::Reason::Required.text(locale),
            (AmountError::Invalid, Locale::De) => {
                "muss ein Betrag sein, etwa 1.234,56 oder 12,50".into()
            }
            (AmountError::Invalid, Locale::En) => {
                "must be an amount such as 1,234.56 or 12.50".into()
            }
            (AmountError::Separator { suggestion }, Locale::De) => {
                format!("Cent mit Komma schreiben: {suggestion}")
            }
            (AmountError::Separator { suggestion }, Locale::En) => {
                format!("write the cents after a point: {suggestion}")
            }
            (AmountError::Ambiguous { thousands, decimal }, Locale::De) => {
                format!("ist mehrdeutig: {thousands} für den Tausenderbetrag, {decimal} für den kleinen")
            }
            (AmountError::Ambiguous { thousands, decimal }, Locale::En) => {
                format!("is ambiguous: write {thousands} for the thousands or {decimal} for the small amount")
            }
            (AmountError::TooManyDecimals { thousands }, _) => {
                let two = crate::error::Reason::TwoDecimals.text(locale);
                match (thousands, locale) {
                    (None, _) => two,
                    (Some(t), Locale::De) => {
                        format!("{two}; für den Tausenderbetrag {t} schreiben")
                    }
                    (Some(t), Locale::En) => format!("{two}; for the thousands write {t}"),
                }
            }
        }
    }
}

/// The decimal and the grouping separator of `locale`.
fn separators(locale: Locale) -> (char, char) {
    match locale {
        Locale::De => (',', '.'),
        Locale::En => ('.', ','),
    }
}

/// Drops a currency sign or code at either end: "€", "$", "£", "EUR", "CHF".
fn without_currency(s: &str) -> &str {
    let s = s.trim_start_matches(['€', '$', '£', '¥']);
    let s = s.trim_end_matches(['€', '$', '£', '¥']);
    let code = |t: &str| {
        t.len() >= 3 && t.is_char_boundary(3) && t[..3].bytes().all(|b| b.is_ascii_alphabetic())
    };
    let s = if code(s) { &s[3..] } else { s };
    let n = s.len();
    if n >= 3 && s.is_char_boundary(n - 3) && code(&s[n - 3..]) {
        &s[..n - 3]
    } else {
        s
    }
}

/// Reads an amount typed in `locale`'s style. Signs (`-`, `+`, `−`), spaces,
/// grouping separators in their right places and a currency sign or code
/// are allowed; limits (decimals, size, sign) are the domain's to check.
pub fn parse(raw: &str, locale: Locale) -> Result<Decimal, AmountError> {
    let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.is_empty() {
        return Err(AmountError::Empty);
    }
    let (negative, rest) = match compact.chars().next() {
        Some('-') | Some('−') => (true, &compact[compact.chars().next().unwrap().len_utf8()..]),
        Some('+') => (false, &compact[1..]),
        _ => (false, compact.as_str()),
    };
    let body = without_currency(rest);
    let (dec, group) = separators(locale);
    if body.is_empty()
        || !body
            .chars()
            .all(|c| c.is_ascii_digit() || c == dec || c == group)
        || !body.chars().any(|c| c.is_ascii_digit())
    {
        return Err(AmountError::Invalid);
    }
    let (int, frac) = match body.split_once(dec) {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    if let Some(f) = frac {
        if f.contains(dec) || f.contains(group) {
            return Err(AmountError::Invalid);
        }
    }
    let groups: Vec<&str> = int.split(group).collect();
    let grouped_right = groups.len() == 1
        || (!groups[0].is_empty()
            && groups[0].len() <= 3
            && groups[1..].iter().all(|g| g.len() == 3));
    if !grouped_right {
        // "13.99" in German, "12,5" in English: the other style's decimal
        // separator after the units.
        if frac.is_none()
            && groups.len() == 2
            && (1..=2).contains(&groups[1].len())
            && !groups[0].is_empty()
        {
            let sign = if negative { "-" } else { "" };
            return Err(AmountError::Separator {
                suggestion: format!("{sign}{}{dec}{}", groups[0], groups[1]),
            });
        }
        return Err(AmountError::Invalid);
    }
    let digits: String = groups.concat();
    let frac = frac.unwrap_or("");
    if digits.is_empty() && frac.is_empty() {
        return Err(AmountError::Invalid);
    }
    if frac.len() == 3 && groups.len() == 1 && digits.len() <= 3 {
        // Three digits after the decimal separator. Written the other
        // style's way they would be thousands, unless the units are none
        // or start with a zero (nobody writes "0.001" for one).
        let sign = if negative { "-" } else { "" };
        let thousands = (!digits.is_empty() && !digits.starts_with('0'))
            .then(|| format!("{sign}{digits}{group}{frac}"));
        match (frac.ends_with('0'), thousands) {
            // German "1,500" / English "1.500": one and a half, or the
            // other style's fifteen hundred.
            (true, Some(thousands)) => {
                return Err(AmountError::Ambiguous {
                    thousands,
                    decimal: format!("{sign}{digits}{dec}{}", &frac[..2]),
                })
            }
            // "0,500": cents with a trailing zero, read below.
            (true, None) => {}
            // German "0,001", English "1.005": more than cents.
            (false, thousands) => return Err(AmountError::TooManyDecimals { thousands }),
        }
    }
    let canonical = format!(
        "{}{}.{}",
        if negative { "-" } else { "" },
        if digits.is_empty() { "0" } else { &digits },
        if frac.is_empty() { "0" } else { frac }
    );
    Decimal::from_str_exact(&canonical)
        .map(|d| d.normalize())
        .map_err(|_| AmountError::Invalid)
}

/// An amount as an edit form prefills it: two decimals, the locale's
/// decimal separator, no grouping ("1234,56", "1234.56").
pub fn input_value(amount: impl Into<Decimal>, locale: Locale) -> String {
    let (dec, _) = separators(locale);
    let amount: Decimal = amount.into();
    format!("{:.2}", amount.round_dp(2)).replace('.', &dec.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dec(s: &str) -> Decimal {
        s.parse::<Decimal>().unwrap().normalize()
    }

    fn de(s: &str) -> Result<Decimal, AmountError> {
        parse(s, Locale::De)
    }
    fn en(s: &str) -> Result<Decimal, AmountError> {
        parse(s, Locale::En)
    }

    #[test]
    fn german_amounts_read_as_germans_write_them() {
        assert_eq!(de("1.500"), Ok(dec("1500")));
        assert_eq!(de("1.234,56"), Ok(dec("1234.56")));
        assert_eq!(de("12,5"), Ok(dec("12.5")));
        assert_eq!(de("12,50"), Ok(dec("12.5")));
        assert_eq!(de("1500"), Ok(dec("1500")));
        assert_eq!(de("1.234.567,89"), Ok(dec("1234567.89")));
        assert_eq!(de("-13,99"), Ok(dec("-13.99")));
        assert_eq!(de("1.234,56 €"), Ok(dec("1234.56")));
        assert_eq!(de("12,00\u{a0}CHF"), Ok(dec("12")));
        assert_eq!(de(" 7 "), Ok(dec("7")));
        assert_eq!(de(",5"), Ok(dec("0.5")));
        assert_eq!(
            de("1.234,5678"),
            Ok(dec("1234.5678")),
            "decimals are the domain's to limit"
        );
    }

    #[test]
    fn english_amounts_read_as_english_speakers_write_them() {
        assert_eq!(en("1,500"), Ok(dec("1500")));
        assert_eq!(en("1,234.56"), Ok(dec("1234.56")));
        assert_eq!(en("12.5"), Ok(dec("12.5")));
        assert_eq!(en("€1,234.56"), Ok(dec("1234.56")));
        assert_eq!(en("-€5.00"), Ok(dec("-5")));
        assert_eq!(en("CHF 12.00"), Ok(dec("12")));
        assert_eq!(en("$0.99"), Ok(dec("0.99")));
    }

    #[test]
    fn what_could_mean_two_amounts_is_refused_never_guessed() {
        assert_eq!(
            de("1,500"),
            Err(AmountError::Ambiguous {
                thousands: "1.500".into(),
                decimal: "1,50".into()
            })
        );
        assert_eq!(
            en("1.500"),
            Err(AmountError::Ambiguous {
                thousands: "1,500".into(),
                decimal: "1.50".into()
            })
        );
        assert_eq!(
            de("13.99"),
            Err(AmountError::Separator {
                suggestion: "13,99".into()
            })
        );
        assert_eq!(
            en("12,5"),
            Err(AmountError::Separator {
                suggestion: "12.5".into()
            })
        );
        assert_eq!(
            de("-0.5"),
            Err(AmountError::Separator {
                suggestion: "-0,5".into()
            })
        );
    }

    #[test]
    fn three_decimals_that_are_more_than_cents_are_refused_as_such() {
        assert_eq!(
            de("0,001"),
            Err(AmountError::TooManyDecimals { thousands: None })
        );
        assert_eq!(
            de(",001"),
            Err(AmountError::TooManyDecimals { thousands: None })
        );
        assert_eq!(
            de("-0,005"),
            Err(AmountError::TooManyDecimals { thousands: None })
        );
        assert_eq!(
            en("0.001"),
            Err(AmountError::TooManyDecimals { thousands: None })
        );
        assert_eq!(
            en("1.005"),
            Err(AmountError::TooManyDecimals {
                thousands: Some("1,005".into())
            })
        );
        assert_eq!(
            de("12,345"),
            Err(AmountError::TooManyDecimals {
                thousands: Some("12.345".into())
            })
        );
        // A zero before the units is no thousands either way: cents.
        assert_eq!(de("0,500"), Ok(dec("0.5")));
        assert_eq!(en("0.250"), Ok(dec("0.25")));
        // A real thousands ambiguity keeps its message; German thousands
        // written the German way are no question at all.
        assert!(matches!(de("1,000"), Err(AmountError::Ambiguous { .. })));
        assert!(matches!(en("2.500"), Err(AmountError::Ambiguous { .. })));
        assert_eq!(de("1.000"), Ok(dec("1000")));
        assert_eq!(en("1,005"), Ok(dec("1005")));
    }

    #[test]
    fn the_message_of_too_many_decimals_says_at_most_two() {
        assert_eq!(
            de("0,001").unwrap_err().message(Locale::De),
            "höchstens zwei Nachkommastellen"
        );
        assert_eq!(
            en("0.001").unwrap_err().message(Locale::En),
            "must have at most two decimals"
        );
        assert_eq!(
            en("1.005").unwrap_err().message(Locale::En),
            "must have at most two decimals; for the thousands write 1,005"
        );
        assert_eq!(
            de("1,005").unwrap_err().message(Locale::De),
            "höchstens zwei Nachkommastellen; für den Tausenderbetrag 1.005 schreiben"
        );
        assert!(!de("0,001")
            .unwrap_err()
            .message(Locale::De)
            .contains("Tausender"));
    }

    #[test]
    fn what_is_no_amount_says_so() {
        for bad in [
            "abc", "1,2,3", "1.23.4", "12..5", ".", ",", "1 2 3x", "--5", "1e3", "12,5.0", "€",
            "1.5000", "12.34,5",
        ] {
            assert!(de(bad).is_err(), "de {bad:?}");
        }
        assert_eq!(de("   "), Err(AmountError::Empty));
        for bad in ["abc", "1.2.3", "1,23,4", "1e3", "12.5,0", "1,5000"] {
            assert!(en(bad).is_err(), "en {bad:?}");
        }
        assert!(de("1.5000").is_err());
    }

    #[test]
    fn messages_name_both_readings_in_the_users_language() {
        let e = de("1,500").unwrap_err();
        assert_eq!(
            e.message(Locale::De),
            "ist mehrdeutig: 1.500 für den Tausenderbetrag, 1,50 für den kleinen"
        );
        assert!(en("1.500")
            .unwrap_err()
            .message(Locale::En)
            .contains("1,500"));
        assert!(de("13.99")
            .unwrap_err()
            .message(Locale::De)
            .contains("13,99"));
    }

    #[test]
    fn prefilled_values_use_the_locales_separator() {
        assert_eq!(input_value(dec("13.99"), Locale::De), "13,99");
        assert_eq!(input_value(dec("1234.5"), Locale::De), "1234,50");
        assert_eq!(input_value(dec("1234.5"), Locale::En), "1234.50");
        assert_eq!(input_value(dec("-7"), Locale::En), "-7.00");
    }

    fn any_amount() -> impl Strategy<Value = Decimal> {
        (-99_999_999_999i64..=99_999_999_999i64).prop_map(|cents| Decimal::new(cents, 2))
    }

    proptest! {
        #[test]
        fn formatting_and_parsing_round_trip_for_every_locale(amount in any_amount()) {
            for locale in [Locale::De, Locale::En] {
                // What an edit form prefills.
                prop_assert_eq!(parse(&input_value(amount, locale), locale), Ok(amount.normalize()));
                // What the pages show, currency and grouping included.
                for currency in ["EUR", "USD", "GBP", "CHF"] {
                    let shown = crate::i18n::format::money(amount, currency, locale);
                    prop_assert_eq!(parse(&shown, locale), Ok(amount.normalize()), "{}", shown);
                }
                let number = crate::i18n::format::number(amount, 2, locale);
                prop_assert_eq!(parse(&number, locale), Ok(amount.normalize()), "{}", number);
            }
        }

        #[test]
        fn nothing_typed_makes_it_panic(raw in "\\PC{0,24}") {
            for locale in [Locale::De, Locale::En] {
                let _ = parse(&raw, locale);
            }
        }
    }
}
