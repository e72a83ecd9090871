//! EUR-based exchange rates: a table "1 EUR = rate units of a currency",
//! the built-in copy of the ECB reference rates, the parser of the ECB daily
//! feed and money conversion.
//!
//! Everything here is pure; fetching and storing the table is
//! `services::rates`. The table is always complete: it holds a positive rate
//! for every code in [`KNOWN`](crate::domain::currency::KNOWN), so a conversion between two known currencies
//! never lacks a rate, whatever the feed left out.

use crate::domain::currency::Currency;
use chrono::NaiveDate;
use rust_decimal::{Decimal, RoundingStrategy};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The day of the built-in table: the ECB reference rates published that day.
const BUILTIN_DATE: (i32, u32, u32) = (2025, 10, 21);

/// The ECB euro foreign exchange reference rates of [`BUILTIN_DATE`], as the
/// ECB publishes them (decimal strings, never floats). They keep conversions
/// working on a machine that never reaches the ECB (closed networks,
/// `CASHKEEPER_RATES_REFRESH=false`) and fill any currency a feed lacks.
const BUILTIN: &[(&str, &str)] = &[
    ("EUR", "1"),
    ("USD", "1.1607"),
    ("JPY", "176.45"),
    ("CZK", "24.314"),
    ("DKK", "7.4691"),
    ("GBP", "0.86780"),
    ("HUF", "389.63"),
    ("PLN", "4.2393"),
    ("RON", "5.0838"),
    ("SEK", "10.9345"),
    ("CHF", "0.9230"),
    ("ISK", "141.60"),
    ("NOK", "11.6693"),
    ("TRY", "48.7114"),
    ("AUD", "1.7885"),
    ("BRL", "6.2526"),
    ("CAD", "1.6301"),
    ("CNY", "8.2626"),
    ("HKD", "9.0204"),
    ("IDR", "19272.67"),
    ("ILS", "3.8174"),
    ("INR", "102.1073"),
    ("KRW", "1660.38"),
    ("MXN", "21.4006"),
    ("MYR", "4.9086"),
    ("NZD", "2.0287"),
    ("PHP", "67.761"),
    ("SGD", "1.5061"),
    ("THB", "38.071"),
    ("ZAR", "20.1148"),
];

/// Parsed once: the literals are constants, and a unit test proves that each
/// parses, is positive and that every known code has one.
static BUILTIN_RATES: LazyLock<Rates> = LazyLock::new(|| {
    let (y, m, d) = BUILTIN_DATE;
    let date = NaiveDate::from_ymd_opt(y, m, d).expect("BUILTIN_DATE is a calendar day");
    let per_eur = BUILTIN
        .iter()
        .filter_map(|(code, rate)| {
            let code = known_code(code)?;
            let rate = Decimal::from_str_exact(rate).expect("built-in rates are decimal literals");
            Some((code, rate))
        })
        .collect();
    Rates { date, per_eur }
});

/// The `&'static` spelling of a known currency code, in any letter case.
fn known_code(code: &str) -> Option<&'static str> {
    Currency::parse("currency", code).ok().map(|c| c.code())
}

/// A complete EUR-based table: 1 EUR = `rate(code)` units of `code`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rates {
    date: NaiveDate,
    per_eur: HashMap<&'static str, Decimal>,
}

impl Rates {
    /// The built-in table (the ECB reference rates of one recent day).
    pub fn builtin() -> Rates {
        BUILTIN_RATES.clone()
    }

    /// The built-in table dated `date`, with `rates` laid over it. Unknown
    /// codes and non-positive rates are ignored (they keep the built-in
    /// value), and EUR stays 1 whatever `rates` says, so the result is
    /// complete and usable for any pair of known currencies.
    pub fn over_builtin<'a>(
        date: NaiveDate,
        rates: impl IntoIterator<Item = (&'a str, Decimal)>,
    ) -> Rates {
        let mut table = Rates::builtin();
        table.date = date;
        for (code, rate) in rates {
            if let Some(code) = known_code(code) {
                if code != "EUR" && rate > Decimal::ZERO {
                    table.per_eur.insert(code, rate);
                }
            }
        }
        table
    }

    /// The day the rates were published.
    pub fn date(&self) -> NaiveDate {
        self.date
    }

    /// Units of `code` per euro; `None` for a code that is not known.
    /// Codes are upper case, as [`Currency::code`] gives them.
    pub fn rate(&self, code: &str) -> Option<Decimal> {
        self.per_eur.get(code).copied()
    }

    /// Every (code, rate), sorted by code, so output built from it is stable.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, Decimal)> {
        let mut all: Vec<(&'static str, Decimal)> =
            self.per_eur.iter().map(|(c, r)| (*c, *r)).collect();
        all.sort_unstable_by_key(|(c, _)| *c);
        all.into_iter()
    }

    /// `amount` in `from` expressed in `to`, rounded to cents, half away
    /// from zero (10.005 → 10.01, −10.005 → −10.01). The same currency only
    /// rounds. `None` for an unknown code, or an amount too large to convert.
    ///
    /// Computed as `amount × rate(to) ÷ rate(from)`, which equals
    /// `amount ÷ rate(from) × rate(to)` but multiplies first: the product of
    /// two short decimals is exact, so only the one division rounds (at 28
    /// digits) and an exact half-cent result is never nudged below the
    /// midpoint before the final rounding.
    pub fn convert(&self, amount: Decimal, from: &str, to: &str) -> Option<Decimal> {
        let from_rate = self.rate(from)?;
        let to_rate = self.rate(to)?;
        let value = if from == to {
            amount
        } else {
            amount.checked_mul(to_rate)?.checked_div(from_rate)?
        };
        Some(value.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
    }

    /// `amount` in `base`, for totals: [`Rates::convert`], and an amount in
    /// a currency the table does not know counts at par. Every currency an
    /// entry can be stored in is in the table (the built-in rates cover them
    /// all), so that happens only for a currency that left the reference
    /// list after it was stored; counting it at par keeps it visible in the
    /// totals instead of dropping it.
    pub fn to_base(&self, amount: Decimal, from: &str, base: &str) -> Decimal {
        self.convert(amount, from, base).unwrap_or(amount)
    }

    /// Parses the ECB daily feed (`eurofxref-daily.xml`):
    ///
    /// ```xml
    /// <Cube><Cube time='2026-11-20'>
    ///   <Cube currency='USD' rate='1.0547'/> …
    /// </Cube></Cube>
    /// ```
    ///
    /// Tolerant of either quote style and any whitespace, so a cosmetic
    /// change of the feed does not stop the refresh; strict about content,
    /// so a broken feed never replaces a good table: no date, no known
    /// currency, a rate that is not a positive decimal, or a currency given
    /// twice refuse the whole feed. Currencies that are not known are
    /// ignored; known ones the feed lacks keep their built-in value. A feed
    /// of several days (the ECB's 90-day file) yields its first, newest day.
    pub fn parse_ecb_xml(xml: &str) -> Result<Rates, String> {
        let mut date: Option<NaiveDate> = None;
        let mut found: Vec<(&'static str, Decimal)> = Vec::new();
        for tag in cube_tags(xml) {
            let attrs = attributes(tag).ok_or_else(|| format!("malformed tag <Cube{tag}>"))?;
            let get = |name: &str| attrs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
            if let Some(time) = get("time") {
                if date.is_some() {
                    break;
                }
                let day = NaiveDate::parse_from_str(time.trim(), "%Y-%m-%d")
                    .map_err(|_| format!("time {time:?} is not a date (YYYY-MM-DD)"))?;
                date = Some(day);
                continue;
            }
            let (Some(currency), Some(rate)) = (get("currency"), get("rate")) else {
                continue;
            };
            let Some(code) = known_code(currency) else {
                continue;
            };
            if code == "EUR" {
                continue;
            }
            let value = Decimal::from_str_exact(rate.trim())
                .ok()
                .filter(|r| *r > Decimal::ZERO)
                .ok_or_else(|| format!("rate of {code} is not a positive number: {rate:?}"))?;
            if found.iter().any(|(c, _)| *c == code) {
                return Err(format!("{code} appears twice"));
            }
            found.push((code, value));
        }
        let date = date.ok_or("no date (<Cube time='YYYY-MM-DD'>) in the feed")?;
        if found.is_empty() {
            return Err("no rate of a known currency in the feed".to_string());
        }
        Ok(Rates::over_builtin(date, found))
    }
}

/// The attribute text of every `<Cube …>` tag (what follows `<Cube`, up to
/// the closing `>`), skipping comments and closing tags.
fn cube_tags(xml: &str) -> Vec<&str> {
    let mut tags = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        rest = &rest[start..];
        if let Some(after) = rest.strip_prefix("<!--") {
            match after.find("-->") {
                Some(end) => rest = &after[end + 3..],
                None => break,
            }
            continue;
        }
        let Some(after) = rest.strip_prefix("<Cube") else {
            rest = &rest[1..];
            continue;
        };
        if !after.starts_with(|c: char| c.is_whitespace() || c == '/' || c == '>') {
            // `<Cubes`, `<CubeX`: another element.
            rest = after;
            continue;
        }
        let Some(end) = tag_end(after) else {
            break;
        };
        tags.push(after[..end].trim_end_matches('/'));
        rest = &after[end + 1..];
    }
    tags
}

/// The position of the `>` that closes a tag, ignoring any inside quotes.
fn tag_end(s: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '>') => return Some(i),
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    None
}

/// The `name=value` pairs of a tag's attribute text, either quote style,
/// any whitespace around `=`. `None` when the text is not attributes.
fn attributes(text: &str) -> Option<Vec<(&str, &str)>> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let name_end = rest.find(|c: char| c.is_whitespace() || c == '=')?;
        let name = &rest[..name_end];
        rest = rest[name_end..]
            .trim_start()
            .strip_prefix('=')?
            .trim_start();
        let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        rest = &rest[1..];
        let value_end = rest.find(quote)?;
        out.push((name, &rest[..value_end]));
        rest = rest[value_end + 1..].trim_start();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::currency::KNOWN;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    /// The example rates of the hand-worked conversions below.
    fn sample() -> Rates {
        Rates::parse_ecb_xml(
            "<Cube><Cube time='2026-11-20'>\
             <Cube currency='USD' rate='1.0850'/><Cube currency='CHF' rate='0.9400'/>\
             <Cube currency='GBP' rate='0.8400'/><Cube currency='JPY' rate='162.00'/>\
             </Cube></Cube>",
        )
        .unwrap()
    }

    const DAILY: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='2026-11-20'>
			<Cube currency='USD' rate='1.0547'/>
			<Cube currency='JPY' rate='163.12'/>
			<Cube currency='BGN' rate='1.9558'/>
			<Cube currency='GBP' rate='0.83515'/>
			<Cube currency='CHF' rate='0.9312'/>
		</Cube>
	</Cube>
</gesmes:Envelope>"#;

    #[test]
    fn to_base_converts_and_counts_an_unknown_currency_at_par() {
        let r = Rates::builtin();
        let d = |s: &str| Decimal::from_str_exact(s).unwrap();
        assert_eq!(r.to_base(d("10.00"), "EUR", "EUR"), d("10.00"));
        assert_eq!(
            Some(r.to_base(d("10.00"), "USD", "EUR")),
            r.convert(d("10.00"), "USD", "EUR")
        );
        assert_ne!(r.to_base(d("10.00"), "USD", "EUR"), d("10.00"));
        assert_eq!(r.to_base(d("10.00"), "XXX", "EUR"), d("10.00"));
    }

    #[test]
    fn the_builtin_table_has_a_positive_rate_for_every_known_code() {
        let rates = Rates::builtin();
        for code in KNOWN {
            let rate = rates.rate(code);
            assert!(rate.is_some_and(|r| r > Decimal::ZERO), "{code}: {rate:?}");
        }
        assert_eq!(rates.iter().count(), KNOWN.len());
        assert_eq!(BUILTIN.len(), KNOWN.len(), "no stray built-in codes");
        assert_eq!(rates.rate("EUR"), Some(Decimal::ONE));
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2025, 10, 21).unwrap());
    }

    #[test]
    fn iter_is_sorted_by_code() {
        let codes: Vec<&str> = Rates::builtin().iter().map(|(c, _)| c).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn reads_the_ecb_daily_file() {
        let rates = Rates::parse_ecb_xml(DAILY).unwrap();
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
        assert_eq!(rates.rate("USD"), Some(dec("1.0547")));
        assert_eq!(rates.rate("JPY"), Some(dec("163.12")));
        assert_eq!(rates.rate("GBP"), Some(dec("0.83515")));
        assert_eq!(rates.rate("CHF"), Some(dec("0.9312")));
        // Not a known currency: ignored.
        assert_eq!(rates.rate("BGN"), None);
        // Missing from the feed: the built-in value, so the table stays complete.
        assert_eq!(rates.rate("SEK"), Rates::builtin().rate("SEK"));
        assert_eq!(rates.iter().count(), KNOWN.len());
        assert_eq!(rates.rate("EUR"), Some(Decimal::ONE));
    }

    #[test]
    fn accepts_double_quotes_and_any_whitespace() {
        let xml =
            "<Cube>\n<Cube\ttime = \"2026-11-20\" >\n  <Cube  currency=\"USD\"\n rate= '1.2345' />\
                   <Cube currency = 'chf' rate = \"0.95\"></Cube></Cube></Cube>";
        let rates = Rates::parse_ecb_xml(xml).unwrap();
        assert_eq!(rates.rate("USD"), Some(dec("1.2345")));
        assert_eq!(rates.rate("CHF"), Some(dec("0.95")));
    }

    #[test]
    fn a_feed_of_several_days_yields_the_first() {
        let xml = "<Cube><Cube time='2026-11-20'><Cube currency='USD' rate='1.1'/></Cube>\
                   <Cube time='2026-11-19'><Cube currency='USD' rate='1.2'/></Cube></Cube>";
        let rates = Rates::parse_ecb_xml(xml).unwrap();
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
        assert_eq!(rates.rate("USD"), Some(dec("1.1")));
    }

    #[test]
    fn comments_and_other_elements_are_skipped() {
        let xml = "<!-- <Cube time='1999-01-01'> --><Cubes time='1999-01-01'/>\
                   <Cube time='2026-11-20'><Cube currency='USD' rate='1.1'/></Cube>";
        let rates = Rates::parse_ecb_xml(xml).unwrap();
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
    }

    #[test]
    fn refuses_a_feed_without_date_or_rates() {
        for xml in [
            "",
            "<html>maintenance</html>",
            "<Cube currency='USD' rate='1.1'/>",
            "<Cube time='2026-11-20'></Cube>",
            "<Cube time='2026-11-20'><Cube currency='XXX' rate='1.1'/></Cube>",
            "<Cube time='2026-11-20'><Cube currency='EUR' rate='1'/></Cube>",
            "<Cube time='yesterday'><Cube currency='USD' rate='1.1'/></Cube>",
        ] {
            assert!(Rates::parse_ecb_xml(xml).is_err(), "{xml}");
        }
    }

    #[test]
    fn refuses_a_bad_rate_of_a_known_currency() {
        for rate in ["0", "-1.1", "abc", "", "1e3", "NaN", "1.1.1"] {
            let xml = format!(
                "<Cube time='2026-11-20'><Cube currency='USD' rate='1.1'/>\
                 <Cube currency='CHF' rate='{rate}'/></Cube>"
            );
            let err = Rates::parse_ecb_xml(&xml).unwrap_err();
            assert!(err.contains("CHF"), "{rate:?}: {err}");
        }
        let twice = "<Cube time='2026-11-20'><Cube currency='USD' rate='1.1'/>\
                     <Cube currency='USD' rate='1.2'/></Cube>";
        assert!(Rates::parse_ecb_xml(twice).is_err());
        let unterminated = "<Cube time='2026-11-20'><Cube currency='USD rate='1.1'/>";
        assert!(Rates::parse_ecb_xml(unterminated).is_err());
    }

    #[test]
    fn over_builtin_ignores_unknown_codes_bad_rates_and_eur() {
        let date = NaiveDate::from_ymd_opt(2026, 1, 2).unwrap();
        let rates = Rates::over_builtin(
            date,
            [
                ("USD", dec("1.5")),
                ("XXX", dec("2")),
                ("CHF", dec("0")),
                ("EUR", dec("2")),
            ],
        );
        assert_eq!(rates.date(), date);
        assert_eq!(rates.rate("USD"), Some(dec("1.5")));
        assert_eq!(rates.rate("XXX"), None);
        assert_eq!(rates.rate("CHF"), Rates::builtin().rate("CHF"));
        assert_eq!(rates.rate("EUR"), Some(Decimal::ONE));
    }

    #[test]
    fn converts_to_euro() {
        // 100 / 1.0850 = 92.1658… → 92.17
        assert_eq!(
            sample().convert(dec("100"), "USD", "EUR"),
            Some(dec("92.17"))
        );
        // 50 / 0.84 = 59.5238… → 59.52
        assert_eq!(
            sample().convert(dec("50"), "GBP", "EUR"),
            Some(dec("59.52"))
        );
    }

    #[test]
    fn converts_from_euro() {
        // 100 × 162 = 16200
        assert_eq!(
            sample().convert(dec("100"), "EUR", "JPY"),
            Some(dec("16200.00"))
        );
        // 19.99 × 1.085 = 21.68915 → 21.69
        assert_eq!(
            sample().convert(dec("19.99"), "EUR", "USD"),
            Some(dec("21.69"))
        );
    }

    #[test]
    fn converts_across_two_foreign_currencies() {
        // 100 / 0.94 × 1.085 = 115.4255… → 115.43
        assert_eq!(
            sample().convert(dec("100"), "CHF", "USD"),
            Some(dec("115.43"))
        );
        // 1000 / 162 × 0.84 = 5.1851… → 5.19
        assert_eq!(
            sample().convert(dec("1000"), "JPY", "GBP"),
            Some(dec("5.19"))
        );
    }

    #[test]
    fn an_exact_half_cent_rounds_away_from_zero() {
        // 0.5875 CHF → GBP = 0.5875 × 0.84 / 0.94 = 0.525 exactly → 0.53.
        let rates = sample();
        assert_eq!(
            rates.convert(dec("0.5875"), "CHF", "GBP"),
            Some(dec("0.53"))
        );
        assert_eq!(
            rates.convert(dec("-0.5875"), "CHF", "GBP"),
            Some(dec("-0.53"))
        );
        // 0.94 CHF → USD = 0.94 × 1.085 / 0.94 = 1.085 exactly → 1.09.
        assert_eq!(rates.convert(dec("0.94"), "CHF", "USD"), Some(dec("1.09")));
    }

    #[test]
    fn a_cross_rate_on_a_half_cent_is_not_lost_to_an_inexact_quotient() {
        // 0.175 SEK → NOK at SEK 0.84, NOK 3 is 0.175 × 3 / 0.84 = 0.625
        // exactly → 0.63. Dividing first (0.175 / 0.84 = 0.208333…, cut at
        // 28 digits) lands just below the midpoint and would give 0.62.
        let date = NaiveDate::from_ymd_opt(2026, 1, 2).unwrap();
        let rates = Rates::over_builtin(date, [("SEK", dec("0.84")), ("NOK", dec("3"))]);
        assert_eq!(rates.convert(dec("0.175"), "SEK", "NOK"), Some(dec("0.63")));
        let divided_first = (dec("0.175") / dec("0.84") * dec("3"))
            .round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
        assert_eq!(divided_first, dec("0.62"), "the trap this order avoids");
    }

    #[test]
    fn the_same_currency_only_rounds_to_cents() {
        let rates = sample();
        assert_eq!(
            rates.convert(dec("10.005"), "EUR", "EUR"),
            Some(dec("10.01"))
        );
        assert_eq!(
            rates.convert(dec("-10.005"), "USD", "USD"),
            Some(dec("-10.01"))
        );
        assert_eq!(rates.convert(dec("7.5"), "CHF", "CHF"), Some(dec("7.50")));
    }

    #[test]
    fn unknown_codes_convert_to_none() {
        let rates = sample();
        assert_eq!(rates.convert(dec("1"), "XXX", "EUR"), None);
        assert_eq!(rates.convert(dec("1"), "EUR", "usd"), None);
        assert_eq!(rates.convert(dec("1"), "XXX", "XXX"), None);
    }

    #[test]
    fn an_amount_too_large_converts_to_none_not_a_panic() {
        assert_eq!(Rates::builtin().convert(Decimal::MAX, "EUR", "IDR"), None);
    }
}
