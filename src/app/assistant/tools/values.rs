//! How amounts, percentages and names are written for the model and for
//! the person: amounts as decimal strings with two decimals, names in the
//! quotes of the reader's language.

use crate::domain::money;
use rust_decimal::Decimal;
use serde_json::Value;

/// An amount at the edge: a decimal string with two decimals ("12.40").
/// A string, since a JSON number in a `serde_json::Value` is a float and
/// would lose the trailing zero.
pub(super) fn amt(d: impl Into<Decimal>) -> Value {
    Value::String(money::json_text(d.into()))
}

pub(super) fn opt_amt(d: Option<impl Into<Decimal>>) -> Value {
    d.map_or(Value::Null, amt)
}

/// A percentage with one decimal, as the dashboard gives it.
pub(super) fn pct(d: Option<Decimal>) -> Value {
    d.map_or(Value::Null, |d| Value::String(format!("{d:.1}")))
}
