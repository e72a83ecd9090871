//! Reading action inputs: optional fields that distinguish "absent" from
//! `null` (for updates), amounts given as numbers or strings, and text with
//! a length limit. Every failure names its field.

use crate::domain::money::{self, Sign};
use crate::domain::recurrence::{parse_date, Frequency, Schedule};
use crate::error::{Error, Reason, Result};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A field of an update: left out (keep the stored value), `null` (clear
/// it), or a new value.
#[derive(Debug, Clone, Default)]
pub enum Patch<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            Some(v) => Patch::Value(v),
            None => Patch::Null,
        })
    }
}

impl<T> Patch<T> {
    /// The new value, or for an absent field the stored one.
    pub fn or(self, stored: Option<T>) -> Option<T> {
        match self {
            Patch::Absent => stored,
            Patch::Null => None,
            Patch::Value(v) => Some(v),
        }
    }
}

/// The field errors of a whole form, gathered so that all are answered at
/// once (`docs/actions.md`, The envelope): each check's value, or `None`
/// once its field error is noted.
#[derive(Default)]
pub struct Checks {
    errors: Vec<Error>,
}

impl Checks {
    /// The value of a check; a field error is noted (`None`), any other
    /// error ends the validation.
    pub fn take<T>(&mut self, checked: Result<T>) -> Result<Option<T>> {
        match checked {
            Ok(v) => Ok(Some(v)),
            Err(e @ (Error::Invalid { .. } | Error::UnknownId(_))) => {
                self.errors.push(e);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The checked values (`Some` when every check gave one), or the noted
    /// field errors as one error: the one, or all of them.
    pub fn finish<T>(mut self, values: impl FnOnce() -> Option<T>) -> Result<T> {
        match self.errors.len() {
            0 => values().ok_or_else(|| {
                Error::Internal(anyhow::anyhow!("a check gave no value and no error"))
            }),
            1 => Err(self.errors.remove(0)),
            _ => Err(Error::Several(self.errors)),
        }
    }
}

/// `#[serde(default = …)]` of a yes/no field that is yes when left out.
pub fn default_true() -> bool {
    true
}

/// A required text field, trimmed, at most `max` characters.
pub fn text(field: &'static str, value: Option<String>, max: usize) -> Result<String> {
    let v = optional_text(field, value, max)?;
    if v.is_empty() {
        return Err(Error::invalid(field, Reason::Required));
    }
    Ok(v)
}

/// An optional text field, trimmed (empty when absent), at most `max` characters.
pub fn optional_text(field: &'static str, value: Option<String>, max: usize) -> Result<String> {
    let v = value.unwrap_or_default().trim().to_string();
    if v.chars().count() > max {
        return Err(Error::invalid(field, Reason::MaxChars(max)));
    }
    Ok(v)
}

/// An amount given as a JSON number or a decimal string.
pub fn amount(field: &'static str, value: Option<Value>, sign: Sign) -> Result<Decimal> {
    match value {
        None | Some(Value::Null) => Err(Error::invalid(field, Reason::Required)),
        Some(Value::Number(n)) => money::parse(field, &n.to_string(), sign),
        Some(Value::String(s)) => money::parse(field, &s, sign),
        Some(_) => Err(Error::invalid(field, Reason::NotANumber)),
    }
}

/// The positive `amount` of a create, or of an update over the stored one.
pub fn positive_amount(value: Patch<Value>, stored: Option<Decimal>) -> Result<Decimal> {
    match (value, stored) {
        (Patch::Absent, Some(kept)) => Ok(kept),
        (p, _) => amount("amount", p.or(None), Sign::Positive),
    }
}

/// The schedule of a recurring entry from its input's `frequency`,
/// `startDate` and `endDate`, each over the stored schedule when an update
/// leaves it out. `once` (where `allow_once`) is due on its start date only,
/// whatever end date is given; otherwise an end before the start is refused.
pub fn schedule(
    frequency: Patch<String>,
    start_date: Patch<String>,
    end_date: Patch<String>,
    stored: Option<&Schedule>,
    allow_once: bool,
) -> Result<Schedule> {
    let frequency = match frequency.or(stored.map(|s| s.frequency.code().to_string())) {
        Some(f) => Frequency::parse("frequency", &f, allow_once)?,
        None => return Err(Error::invalid("frequency", Reason::Required)),
    };
    let start = date(
        "startDate",
        start_date.or(stored.map(|s| s.start.to_string())),
    )?;
    let end = optional_date(
        "endDate",
        end_date.or(stored.and_then(|s| s.end.map(|d| d.to_string()))),
    )?;
    if frequency == Frequency::Once {
        return Ok(Schedule::once(start));
    }
    Schedule::new(frequency, start, end)
}

/// A required calendar day.
pub fn date(field: &'static str, value: Option<String>) -> Result<NaiveDate> {
    match value {
        Some(s) if !s.trim().is_empty() => parse_date(field, &s),
        _ => Err(Error::invalid(field, Reason::Required)),
    }
}

/// An optional calendar day; empty text counts as none.
pub fn optional_date(field: &'static str, value: Option<String>) -> Result<Option<NaiveDate>> {
    match value {
        Some(s) if !s.trim().is_empty() => parse_date(field, &s).map(Some),
        _ => Ok(None),
    }
}

/// A whole number from `low` to `high` (a count of months, say), `default`
/// when absent; anything else, text included, is refused naming `field`.
pub fn whole_number(
    field: &'static str,
    value: &Value,
    default: u32,
    low: u32,
    high: u32,
) -> Result<u32> {
    match value {
        Value::Null => Ok(default),
        Value::Number(n) => n
            .as_u64()
            .filter(|m| (u64::from(low)..=u64::from(high)).contains(m))
            .map(|m| m as u32)
            .ok_or_else(|| Error::invalid(field, Reason::WholeNumber(low.into(), high.into()))),
        _ => Err(Error::invalid(
            field,
            Reason::WholeNumber(low.into(), high.into()),
        )),
    }
}

/// An id of a record; empty text counts as none.
pub fn optional_id(value: Option<String>) -> Option<String> {
    value
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The `id` every update and delete names.
pub fn required_id(value: Option<String>) -> Result<String> {
    optional_id(value).ok_or_else(|| Error::invalid("id", Reason::Required))
}

/// Input of the delete actions and of others that only name a record.
#[derive(Deserialize)]
pub struct IdInput {
    #[serde(default)]
    pub id: Option<String>,
}

/// Lengths of free text.
pub const NAME_MAX: usize = 100;
pub const NOTES_MAX: usize = 2000;

/// Deserializes a door's JSON input; a failure names the field it is about.
pub fn decode<I: serde::de::DeserializeOwned>(value: Value) -> Result<I> {
    serde_path_to_error::deserialize::<_, I>(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde reports a missing field at its parent: "missing field `email`".
        if let Some(rest) = inner.strip_prefix("missing field `") {
            let name = rest.trim_end_matches('`');
            let field = if path == "." {
                name.to_string()
            } else {
                format!("{path}.{name}")
            };
            return Error::invalid(field, Reason::Required);
        }
        let field = if path == "." {
            "body".to_string()
        } else {
            path
        };
        // The decoder's words go to the log; the person reads what the
        // field takes.
        tracing::info!(%field, cause = %inner, "input refused");
        let reason = worded(&inner);
        Error::invalid(field, reason)
    })
}

/// What a decoder's message says the field takes, as a reason worded for
/// people: "invalid type: integer `202601`, expected a string" is
/// [`Reason::NotText`]. A message of no known form stays
/// [`Reason::Malformed`], which people read as "not in the form this
/// field takes".
fn worded(message: &str) -> Reason {
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        if let Some((_, expected)) = rest.split_once(", expected ") {
            let values: Vec<String> = expected
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            if !values.is_empty() {
                return Reason::OneOf(values);
            }
        }
    }
    // The untagged decoder of amounts (`actions::number_or_string`).
    if message.contains("untagged enum NumOrStr") {
        return Reason::NotANumber;
    }
    let expected = match message.rsplit_once(", expected ") {
        Some((head, expected))
            if head.starts_with("invalid type: ") || head.starts_with("invalid value: ") =>
        {
            expected
        }
        _ => return Reason::Malformed(message.to_string()),
    };
    match expected {
        "a string" | "a borrowed string" | "a character" | "a formatted date string" => {
            Reason::NotText
        }
        "a boolean" => Reason::NotTrueOrFalse,
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" | "an integer" => Reason::NotAWholeNumber,
        "f32" | "f64" | "a number" => Reason::NotANumber,
        e if e.starts_with("a Decimal") => Reason::NotANumber,
        "a sequence" | "a list" => Reason::NotAList,
        "a map" => Reason::NotAnObject,
        e if e.starts_with("struct ") => Reason::NotAnObject,
        _ => Reason::Malformed(message.to_string()),
    }
}

#[cfg(test)]
mod tests {

    fn text(s: &str) -> Patch<String> {
        Patch::Value(s.to_string())
    }

    #[test]
    fn a_schedule_is_read_over_the_stored_one() {
        let stored = schedule(
            text("monthly"),
            text("2026-01-31"),
            Patch::Absent,
            None,
            false,
        )
        .unwrap();
        assert_eq!(stored.end, None);
        // An update that gives only the end keeps frequency and start.
        let updated = schedule(
            Patch::Absent,
            Patch::Absent,
            text("2026-12-31"),
            Some(&stored),
            false,
        )
        .unwrap();
        assert_eq!(updated.frequency, Frequency::Monthly);
        assert_eq!(updated.start.to_string(), "2026-01-31");
        assert_eq!(
            updated.end.map(|d| d.to_string()).as_deref(),
            Some("2026-12-31")
        );
        // null clears the end.
        let cleared = schedule(
            Patch::Absent,
            Patch::Absent,
            Patch::Null,
            Some(&updated),
            false,
        )
        .unwrap();
        assert_eq!(cleared.end, None);
    }

    #[test]
    fn schedule_errors_name_their_fields() {
        let err = |r: Result<Schedule>| r.unwrap_err().to_string();
        assert_eq!(
            err(schedule(
                Patch::Absent,
                text("2026-01-01"),
                Patch::Absent,
                None,
                false
            )),
            "frequency: is required"
        );
        assert!(err(schedule(
            text("once"),
            text("2026-01-01"),
            Patch::Absent,
            None,
            false
        ))
        .starts_with("frequency: "));
        assert!(err(schedule(
            text("monthly"),
            text("2026-02-30"),
            Patch::Absent,
            None,
            false
        ))
        .starts_with("startDate: "));
        assert!(err(schedule(
            text("monthly"),
            text("2026-03-01"),
            text("2026-02-01"),
            None,
            false
        ))
        .starts_with("endDate: "));
        // A one-off is due once; an end date given with it is ignored.
        let once = schedule(
            text("once"),
            text("2026-03-01"),
            text("2026-02-01"),
            None,
            true,
        )
        .unwrap();
        assert_eq!(once, Schedule::once(once.start));
    }

    use super::*;
    use serde_json::json;

    #[derive(Deserialize)]
    struct T {
        #[serde(default)]
        end: Patch<String>,
    }

    #[test]
    fn patch_tells_absent_from_null() {
        let absent: T = serde_json::from_value(json!({})).unwrap();
        let null: T = serde_json::from_value(json!({"end": null})).unwrap();
        let value: T = serde_json::from_value(json!({"end": "x"})).unwrap();
        assert_eq!(absent.end.or(Some("old".into())), Some("old".into()));
        assert_eq!(null.end.or(Some("old".into())), None);
        assert_eq!(value.end.or(Some("old".into())), Some("x".into()));
    }

    #[test]
    fn amounts_come_as_numbers_or_strings() {
        assert_eq!(
            amount("amount", Some(json!(12.5)), Sign::Positive)
                .unwrap()
                .to_string(),
            "12.5"
        );
        assert_eq!(
            amount("amount", Some(json!("12.50")), Sign::Positive)
                .unwrap()
                .to_string(),
            "12.5"
        );
        assert_eq!(
            amount("amount", Some(json!(true)), Sign::Positive)
                .unwrap_err()
                .to_string(),
            "amount: must be a number such as 12.50"
        );
        assert_eq!(
            amount("amount", None, Sign::Positive)
                .unwrap_err()
                .to_string(),
            "amount: is required"
        );
    }
}
