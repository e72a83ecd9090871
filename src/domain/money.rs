//! Amounts of money: `rust_decimal` in Rust, INTEGER cents in SQLite, JSON
//! numbers with two decimals at the edge. Never a float in between.

use crate::error::{Error, Reason, Result};
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::{Decimal, RoundingStrategy};

/// The largest absolute amount accepted: 999,999,999.99.
pub const MAX: Decimal = Decimal::from_parts(1_215_752_191, 23, 0, false, 2);

/// Whether an amount may be zero or negative.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// Strictly greater than zero: expenses, incomes, transfers.
    Positive,
    /// Zero or more: reserve pots, category limits.
    NonNegative,
    /// Anything: account balances may be overdrawn.
    Any,
}

/// Parses an amount typed by a person or sent by a script ("12.5", "12,50",
/// 12.5): at most two decimals and at most 999,999,999.99 in absolute value.
pub fn parse(field: &'static str, raw: &str, sign: Sign) -> Result<Decimal> {
    let s = raw.trim();
    if s.is_empty() {
        return Err(Error::invalid(field, Reason::Required));
    }
    // A single comma is a decimal comma (German input); thousands separators are not accepted.
    let normalized = if s.contains(',') && !s.contains('.') && s.matches(',').count() == 1 {
        s.replace(',', ".")
    } else {
        s.to_string()
    };
    let plain = normalized
        .strip_prefix(['-', '+'])
        .unwrap_or(&normalized)
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.');
    let value = if plain {
        Decimal::from_str_exact(&normalized).ok()
    } else if normalized.contains(['e', 'E']) {
        // JSON numbers may arrive in exponent form (1e3).
        Decimal::from_scientific(&normalized).ok()
    } else {
        None
    };
    let Some(value) = value else {
        return Err(Error::invalid(field, Reason::NotANumber));
    };
    let value = value.normalize();
    if value.scale() > 2 {
        return Err(Error::invalid(field, Reason::TwoDecimals));
    }
    if value.abs() > MAX {
        return Err(Error::invalid(field, Reason::AmountTooLarge));
    }
    match sign {
        Sign::Positive if value <= Decimal::ZERO => Err(Error::invalid(field, Reason::Positive)),
        Sign::NonNegative if value < Decimal::ZERO => {
            Err(Error::invalid(field, Reason::NotNegative))
        }
        _ => Ok(value),
    }
}

/// Cents for the database. The amount has at most two decimals.
pub fn to_cents(d: impl Into<Decimal>) -> i64 {
    (round(d.into()) * Decimal::ONE_HUNDRED)
        .to_i64()
        .unwrap_or(0)
}

/// Back from cents.
pub fn from_cents(cents: i64) -> Decimal {
    Decimal::new(cents, 2)
}

/// Back from cents that may be absent.
pub fn from_cents_or_none(cents: Option<i64>) -> Option<Decimal> {
    cents.map(from_cents)
}

/// Rounds to cents, half away from zero (the rounding of every conversion).
pub fn round(d: Decimal) -> Decimal {
    d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// The JSON text of an amount: a number with exactly two decimals ("12.50").
pub fn json_text(d: Decimal) -> String {
    format!("{:.2}", round(d))
}

/// An amount as it crosses the edge: it serialises itself as a JSON
/// number with exactly two decimals ([`json_text`]: `12.50`, not `12.5`
/// nor `"12.50"`) and reads back digit for digit. Inside, it is the
/// `Decimal` it holds (`*m`, `m.0`); arithmetic stays on `Decimal`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub Decimal);

impl Money {
    pub const ZERO: Money = Money(Decimal::ZERO);

    /// Back from the database's cents ([`from_cents`]).
    pub fn from_cents(cents: i64) -> Money {
        Money(from_cents(cents))
    }

    /// Back from cents that may be absent.
    pub fn from_cents_or_none(cents: Option<i64>) -> Option<Money> {
        cents.map(Money::from_cents)
    }
}

impl From<Decimal> for Money {
    fn from(d: Decimal) -> Money {
        Money(d)
    }
}

impl From<Money> for Decimal {
    fn from(m: Money) -> Decimal {
        m.0
    }
}

impl std::ops::Deref for Money {
    type Target = Decimal;
    fn deref(&self) -> &Decimal {
        &self.0
    }
}

impl PartialEq<Decimal> for Money {
    fn eq(&self, other: &Decimal) -> bool {
        self.0 == *other
    }
}

impl std::fmt::Display for Money {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, other: Money) -> Money {
        Money(self.0 - other.0)
    }
}

impl std::ops::Neg for Money {
    type Output = Money;
    fn neg(self) -> Money {
        Money(-self.0)
    }
}

impl std::ops::AddAssign<Decimal> for Money {
    fn add_assign(&mut self, other: Decimal) {
        self.0 += other;
    }
}

impl PartialOrd<Decimal> for Money {
    fn partial_cmp(&self, other: &Decimal) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(other)
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        Money(iter.map(|m| m.0).sum())
    }
}

impl serde::Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        json::serialize(&self.0, s)
    }
}

impl<'de> serde::Deserialize<'de> for Money {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Money, D::Error> {
        json::deserialize(d).map(Money)
    }
}

/// Serde helpers: serialize a `Decimal` as a JSON number with exactly two
/// decimals (`12.50`, not `12.5` nor `"12.50"`).
pub mod json {
    use rust_decimal::Decimal;
    use serde::ser::Error as _;
    use serde::{Serialize, Serializer};
    use serde_json::value::RawValue;

    pub fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        RawValue::from_string(super::json_text(*d))
            .map_err(S::Error::custom)?
            .serialize(s)
    }

    /// Reads back what [`serialize`] wrote, digit for digit (a JSON number
    /// is never taken through a float).
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        use serde::de::Error as _;
        use serde::Deserialize;
        let raw = Box::<RawValue>::deserialize(d)?;
        raw.get()
            .trim_matches('"')
            .parse()
            .map_err(D::Error::custom)
    }

    /// A percentage with one decimal, as a JSON number (`12.5`, `-3.0`).
    pub mod pct {
        use rust_decimal::Decimal;
        use serde::ser::Error as _;
        use serde::{Serialize, Serializer};
        use serde_json::value::RawValue;

        pub fn serialize<S: Serializer>(d: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
            match d {
                Some(d) => RawValue::from_string(format!("{:.1}", d))
                    .map_err(S::Error::custom)?
                    .serialize(s),
                None => s.serialize_none(),
            }
        }
    }
}

/// `amount` rounded to `decimals` (half away from zero), unsigned, with
/// `thousands` between groups of three digits and `point` before the
/// decimals: the one digit layout of every text for people.
pub fn grouped(amount: Decimal, decimals: u32, thousands: char, point: char) -> String {
    let rounded = amount
        .abs()
        .round_dp_with_strategy(decimals, RoundingStrategy::MidpointAwayFromZero);
    let text = format!("{:.*}", decimals as usize, rounded);
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut out = String::with_capacity(text.len() + int.len() / 3);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(thousands);
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push(point);
        out.push_str(frac);
    }
    out
}

/// Percent change from `before` to `after`, one decimal; `None` when there
/// is nothing to compare with.
pub fn change_pct(before: Decimal, after: Decimal) -> Option<Decimal> {
    if before.is_zero() {
        return None;
    }
    Some(
        ((after - before) / before.abs() * Decimal::ONE_HUNDRED)
            .round_dp_with_strategy(1, RoundingStrategy::MidpointAwayFromZero),
    )
}

/// Above this change (in percent) a month is more than ten times the one
/// before it: against a base that small (10 € before 1,400 €) a percent
/// says nothing a person can use, so pages say "much more than last month"
/// instead (the numbers in the REST API and actions stay as they are).
pub const MUCH_MORE_PCT: Decimal = Decimal::from_parts(900, 0, 0, false, 0);

/// Whether a [`change_pct`] is one that pages word as "much more than last
/// month" rather than show: above [`MUCH_MORE_PCT`].
pub fn is_much_more(pct: Decimal) -> bool {
    pct > MUCH_MORE_PCT
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    #[test]
    fn parses_the_forms_people_type() {
        assert_eq!(
            parse("amount", "12.5", Sign::Positive).unwrap(),
            dec("12.5")
        );
        assert_eq!(
            parse("amount", "12,50", Sign::Positive).unwrap(),
            dec("12.5")
        );
        assert_eq!(parse("amount", " 7 ", Sign::Positive).unwrap(), dec("7"));
        assert_eq!(parse("amount", "1e3", Sign::Positive).unwrap(), dec("1000"));
        assert_eq!(parse("balance", "-20.10", Sign::Any).unwrap(), dec("-20.1"));
        assert_eq!(
            parse("amount", "999999999.99", Sign::Positive).unwrap(),
            MAX
        );
        assert_eq!(
            parse("amount", "12.500", Sign::Positive).unwrap(),
            dec("12.5")
        );
    }

    #[test]
    fn refuses_bad_amounts_naming_the_field() {
        for (raw, sign, msg) in [
            ("0", Sign::Positive, "amount: must be greater than 0"),
            ("-1", Sign::Positive, "amount: must be greater than 0"),
            ("-1", Sign::NonNegative, "amount: must not be negative"),
            ("abc", Sign::Any, "amount: must be a number such as 12.50"),
            ("1.2.3", Sign::Any, "amount: must be a number such as 12.50"),
            (
                "1,000.00",
                Sign::Any,
                "amount: must be a number such as 12.50",
            ),
            ("NaN", Sign::Any, "amount: must be a number such as 12.50"),
            (
                "12.345",
                Sign::Positive,
                "amount: must have at most two decimals",
            ),
            (
                "1000000000",
                Sign::Positive,
                "amount: must be at most 999,999,999.99",
            ),
            (
                "-1000000000",
                Sign::Any,
                "amount: must be at most 999,999,999.99",
            ),
            ("", Sign::Positive, "amount: is required"),
        ] {
            assert_eq!(
                parse("amount", raw, sign).unwrap_err().to_string(),
                msg,
                "{raw}"
            );
        }
    }

    #[test]
    fn cents_round_trip() {
        assert_eq!(to_cents(dec("12.34")), 1234);
        assert_eq!(to_cents(dec("-0.05")), -5);
        assert_eq!(from_cents(1234), dec("12.34"));
        assert_eq!(to_cents(MAX), 99_999_999_999);
    }

    #[test]
    fn rounds_half_away_from_zero() {
        assert_eq!(round(dec("0.005")), dec("0.01"));
        assert_eq!(round(dec("-0.005")), dec("-0.01"));
        assert_eq!(round(dec("0.0049")), dec("0.00"));
    }

    #[test]
    fn json_numbers_have_two_decimals() {
        #[derive(serde::Serialize)]
        struct W(#[serde(serialize_with = "json::serialize")] Decimal);
        assert_eq!(serde_json::to_string(&W(dec("12.5"))).unwrap(), "12.50");
        assert_eq!(serde_json::to_string(&W(dec("0"))).unwrap(), "0.00");
        assert_eq!(serde_json::to_string(&W(dec("-3"))).unwrap(), "-3.00");
        let v: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&W(dec("1.1"))).unwrap()).unwrap();
        assert!(v.is_number());
    }

    #[test]
    fn change_is_a_percentage_with_one_decimal() {
        assert_eq!(change_pct(dec("200"), dec("250")), Some(dec("25.0")));
        assert_eq!(change_pct(dec("300"), dec("200")), Some(dec("-33.3")));
        assert_eq!(change_pct(dec("0"), dec("200")), None);
    }

    #[test]
    fn more_than_ten_times_the_month_before_is_much_more() {
        let pct = |before, after| change_pct(dec(before), dec(after)).unwrap();
        // The case: 10 € before, 1,415.33 € now is +14,053.3 %.
        assert_eq!(pct("10", "1415.33"), dec("14053.3"));
        assert!(is_much_more(pct("10", "1415.33")));
        assert!(is_much_more(pct("100", "1000.10")));
        // Ten times exactly, and every ordinary change, stay a percent.
        assert!(!is_much_more(pct("100", "1000")));
        assert!(!is_much_more(pct("100", "132.10")));
        assert!(!is_much_more(pct("100", "1")));
    }

    /// The invariants of an accepted amount, and of a refusal, for `raw`
    /// parsed with every sign.
    fn check_every_sign(raw: &str) -> std::result::Result<(), TestCaseError> {
        let any = parse("amount", raw, Sign::Any);
        let non_negative = parse("amount", raw, Sign::NonNegative);
        let positive = parse("amount", raw, Sign::Positive);
        for e in [&any, &non_negative, &positive]
            .into_iter()
            .filter_map(|r| r.as_ref().err())
        {
            prop_assert!(e.to_string().starts_with("amount: "), "{}", e);
        }
        let Ok(v) = any else {
            prop_assert!(non_negative.is_err() && positive.is_err());
            return Ok(());
        };
        prop_assert!(v.scale() <= 2, "{:?} → {}", raw, v);
        prop_assert!(v.abs() <= MAX, "{:?} → {}", raw, v);
        prop_assert_eq!(round(v), v);
        prop_assert_eq!(from_cents(to_cents(v)), v);
        prop_assert_eq!(parse("amount", &json_text(v), Sign::Any).unwrap(), v);
        prop_assert_eq!(non_negative.ok(), (v >= Decimal::ZERO).then_some(v));
        prop_assert_eq!(positive.ok(), (v > Decimal::ZERO).then_some(v));
        Ok(())
    }

    /// Every amount the parser accepts, as cents.
    fn any_cents() -> impl Strategy<Value = i64> {
        prop_oneof![
            -99_999_999_999i64..=99_999_999_999,
            -10_000i64..=10_000,
            Just(99_999_999_999),
            Just(-99_999_999_999),
        ]
    }

    /// `cents` as a person or a script may type it: decimal point or comma,
    /// trailing zeros or not, an explicit plus, an exponent, spaces around.
    fn typed(cents: i64, form: u8, pad: bool) -> String {
        let sign = if cents < 0 { "-" } else { "" };
        let (units, frac) = (cents.unsigned_abs() / 100, cents.unsigned_abs() % 100);
        let text = match form {
            0 => format!("{sign}{units}.{frac:02}"),
            1 => format!("{sign}{units},{frac:02}"),
            2 => format!("{}", from_cents(cents).normalize()),
            3 => format!("{}", from_cents(cents).normalize()).replace('.', ","),
            4 => format!("{sign}{}e-2", cents.unsigned_abs()),
            5 if cents >= 0 => format!("+{units}.{frac:02}"),
            _ => format!("{sign}{units}.{frac:02}000"),
        };
        if pad {
            format!("  {text}\t")
        } else {
            text
        }
    }

    proptest! {
        #[test]
        fn typed_amounts_parse_back_to_their_value(
            cents in any_cents(), form in 0u8..7, pad in any::<bool>(),
        ) {
            let raw = typed(cents, form, pad);
            prop_assert_eq!(parse("amount", &raw, Sign::Any).unwrap(), from_cents(cents), "{:?}", raw);
            check_every_sign(&raw)?;
        }

        #[test]
        fn json_numbers_of_amounts_parse_back(cents in any_cents()) {
            #[derive(serde::Serialize)]
            struct W(#[serde(serialize_with = "json::serialize")] Decimal);
            let text = serde_json::to_string(&W(from_cents(cents))).unwrap();
            let number: serde_json::Value = serde_json::from_str(&text).unwrap();
            prop_assert!(number.is_number());
            prop_assert_eq!(parse("amount", &number.to_string(), Sign::Any).unwrap(), from_cents(cents));
        }

        #[test]
        fn amounts_beyond_the_limits_are_refused(
            cents in 100_000_000_000i64..=i64::MAX / 2, negative in any::<bool>(),
            extra in 1u8..=9, form in 0u8..7,
        ) {
            let cents = if negative { -cents } else { cents };
            prop_assert_eq!(
                parse("amount", &typed(cents, form, false), Sign::Any).unwrap_err().to_string(),
                "amount: must be at most 999,999,999.99"
            );
            // A third decimal that is not zero.
            let raw = format!("{}.{:02}{extra}", cents / 100, (cents % 100).abs());
            prop_assert!(parse("amount", &raw, Sign::Any).is_err());
        }

        #[test]
        fn number_like_text_never_panics(raw in "[-+ 0-9.,eE]{0,24}") {
            check_every_sign(&raw)?;
        }

        #[test]
        fn any_text_never_panics(raw in any::<String>()) {
            check_every_sign(&raw)?;
        }
    }
}
