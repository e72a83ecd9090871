//! Reading a model's arguments: `""` or a JSON string holding the object,
//! numbers as strings, `snake_case` keys, `Monthly`, `23.11.2026`. What can
//! be read without guessing is read; anything else fails naming the field.

use crate::domain::recurrence::{parse_date, parse_month};
use crate::error::Reason;
use crate::error::{Error, Result};
use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value};
use std::ops::RangeInclusive;

/// The arguments of a call as a JSON object. A model may send `""` or
/// `null` for none, or the object's JSON inside a JSON string.
pub fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(Map::new());
    }
    let value = serde_json::from_str::<Value>(text)
        .map_err(|e| format!("arguments: not valid JSON ({e})"))?;
    as_object(value)
}

/// A JSON value as the arguments object (see [`parse_arguments`]).
pub fn as_object(value: Value) -> Result<Map<String, Value>, String> {
    const NOT_AN_OBJECT: &str = "arguments: must be a JSON object";
    match value {
        Value::Object(m) => Ok(m),
        Value::Null => Ok(Map::new()),
        Value::String(s) if s.trim().is_empty() => Ok(Map::new()),
        Value::String(s) => match serde_json::from_str::<Value>(s.trim()) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(NOT_AN_OBJECT.into()),
        },
        _ => Err(NOT_AN_OBJECT.into()),
    }
}

/// `accountId` → `account_id`.
pub(super) fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A read tool's arguments.
pub(super) struct Args(pub(super) Map<String, Value>);

impl Args {
    /// The argument `name` (or its snake_case twin); `null` and `""` count
    /// as left out.
    pub(super) fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .get(name)
            .or_else(|| self.0.get(&snake(name)))
            .filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()))
    }

    /// A text argument (a number counts as its digits).
    pub(super) fn text(&self, name: &'static str) -> Result<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(Error::invalid(name, Reason::NotText)),
        }
    }

    /// A whole number in `range`, given as a number or as digits.
    pub(super) fn int(
        &self,
        name: &'static str,
        range: RangeInclusive<i64>,
    ) -> Result<Option<i64>> {
        let wrong = || Error::invalid(name, Reason::WholeNumber(*range.start(), *range.end()));
        let n = match self.get(name) {
            None => return Ok(None),
            Some(Value::Number(n)) => n.to_string(),
            Some(Value::String(s)) => s.trim().to_string(),
            Some(_) => return Err(wrong()),
        };
        // `6.0` is a whole number too.
        let n = n.strip_suffix(".0").unwrap_or(&n);
        match n.parse::<i64>() {
            Ok(n) if range.contains(&n) => Ok(Some(n)),
            _ => Err(wrong()),
        }
    }

    /// A required day (see [`normalise_date`]).
    pub(super) fn date(&self, name: &'static str) -> Result<NaiveDate> {
        match self.text(name)? {
            Some(s) => parse_date(name, &normalise_date(&s)),
            None => Err(Error::invalid(name, Reason::Required)),
        }
    }

    /// The first day of the month of `year` and `month` (as `getDashboard`
    /// reads them: this month by default, January when only the year is
    /// given); `month` may also be `YYYY-MM`.
    pub(super) fn month(&self, today: NaiveDate) -> Result<NaiveDate> {
        if let Some(Value::String(s)) = self.get("month") {
            if s.trim().len() == 7 && s.contains('-') {
                return Ok(parse_month("month", s)?.0);
            }
        }
        let year = self.int("year", 1900..=2200)?;
        let month = self.int("month", 1..=12)?;
        let first = NaiveDate::from_ymd_opt(
            year.map_or(today.year(), |y| y as i32),
            month.map_or(if year.is_some() { 1 } else { today.month() }, |m| m as u32),
            1,
        );
        first.ok_or_else(|| Error::invalid("month", Reason::Between(1, 12)))
    }
}

/// A day as `parse_date` reads it: `23.11.2026` becomes `2026-11-23`, and
/// a timestamp its day; anything else is left for `parse_date` to refuse.
pub(super) fn normalise_date(s: &str) -> String {
    let s = s.trim();
    let parts: Vec<&str> = s.split('.').collect();
    if let [d, m, y] = parts[..] {
        let digits = |p: &str, n: RangeInclusive<usize>| {
            n.contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit())
        };
        if digits(d, 1..=2) && digits(m, 1..=2) && digits(y, 4..=4) {
            return format!("{y}-{m:0>2}-{d:0>2}");
        }
    }
    // Byte 10 is ASCII here, so `s[..10]` ends on a character boundary.
    if s.len() > 10 && matches!(s.as_bytes()[10], b'T' | b' ') {
        return s[..10].to_string();
    }
    s.to_string()
}

/// A frequency as `Frequency::parse` reads it: lower case, `half-yearly`
/// and `half yearly` as `half_yearly`, and a few words models use.
pub(super) fn normalise_frequency(s: &str) -> String {
    let code = s.trim().to_lowercase().replace(['-', ' '], "_");
    let alias = match code.as_str() {
        "annually" | "annual" | "every_year" | "jährlich" => "yearly",
        "month" | "every_month" | "monatlich" => "monthly",
        "week" | "every_week" | "wöchentlich" => "weekly",
        "quarter" | "every_quarter" | "vierteljährlich" => "quarterly",
        "semiannually" | "semi_annually" | "semi_annual" | "halbjährlich" => "half_yearly",
        "one_time" | "onetime" | "one_off" | "single" | "einmalig" => "once",
        _ => return code,
    };
    alias.to_string()
}
