//! Every registered action's input decoding (`Action::decode`) on arbitrary
//! JSON values.
//!
//! The input is either raw JSON text (first byte even) or a value built from
//! the bytes (first byte odd): mostly objects whose keys are the field names
//! the actions read, with numbers, amount-like and date-like strings, nulls,
//! booleans, arrays and nested objects as values.
//!
//! Never panics. A refusal is a field error, `"field: message"`, with a
//! non-empty field and message; the field is `body` (the input as a whole),
//! a key of the input (or a path into it), a position in an input array, or
//! a required field it lacks.

#![no_main]

use arbitrary::{Result, Unstructured};
use cashkeeper::actions::{catalogue, Registry};
use cashkeeper::Error;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use std::sync::OnceLock;

const KEYS: &[&str] = &[
    "id",
    "name",
    "amount",
    "balance",
    "currency",
    "baseCurrency",
    "frequency",
    "startDate",
    "endDate",
    "date",
    "from",
    "to",
    "month",
    "months",
    "year",
    "accountId",
    "fromAccountId",
    "toAccountId",
    "categoryId",
    "expenseId",
    "merchant",
    "kind",
    "type",
    "note",
    "notes",
    "isSubscription",
    "monthlyLimit",
    "color",
    "icon",
    "moveTo",
    "locale",
    "email",
    "password",
    "currentPassword",
    "newPassword",
    "token",
    "query",
    "expiresInDays",
    "end",
];

const STRINGS: &[&str] = &[
    "",
    " ",
    "12.50",
    "12,50",
    "-3",
    "0",
    "1e3",
    "1e400",
    "999999999.99",
    "1000000000",
    "0.001",
    "NaN",
    "2025-01-31",
    "2025-02-30",
    "1899-12-31",
    "2201-01-01",
    "2025-13",
    "2025-06",
    "once",
    "weekly",
    "monthly",
    "quarterly",
    "half_yearly",
    "yearly",
    "EUR",
    "USD",
    "checking",
    "savings",
    "en",
    "de",
    "a@example.org",
];

fn string(u: &mut Unstructured) -> Result<String> {
    if u.ratio(2, 3)? {
        Ok(u.choose(STRINGS)?.to_string())
    } else {
        u.arbitrary()
    }
}

fn value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let kinds = if depth == 0 { 7 } else { 9 };
    Ok(match u.int_in_range(0..=kinds - 1)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Value::from(u.arbitrary::<u64>()?),
        4 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        5 | 6 => Value::String(string(u)?),
        7 => {
            let n = u.int_in_range(0..=4)?;
            Value::Array((0..n).map(|_| value(u, depth - 1)).collect::<Result<_>>()?)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

fn object(u: &mut Unstructured, depth: u32) -> Result<Map<String, Value>> {
    let mut map = Map::new();
    for _ in 0..u.int_in_range(0..=10)? {
        let key = if u.ratio(7, 8)? {
            u.choose(KEYS)?.to_string()
        } else {
            u.arbitrary()?
        };
        map.insert(key, value(u, depth)?);
    }
    Ok(map)
}

fn input(data: &[u8]) -> Option<Value> {
    let (mode, rest) = data.split_first()?;
    if mode % 2 == 0 {
        return serde_json::from_slice(rest).ok();
    }
    let mut u = Unstructured::new(rest);
    if u.ratio(15, 16).ok()? {
        object(&mut u, 2).ok().map(Value::Object)
    } else {
        value(&mut u, 2).ok()
    }
}

fn actions() -> &'static (&'static Registry, Vec<&'static str>) {
    static ACTIONS: OnceLock<(&'static Registry, Vec<&'static str>)> = OnceLock::new();
    ACTIONS.get_or_init(|| {
        let r = catalogue();
        let mut names: Vec<&'static str> = r.names().copied().collect();
        names.sort_unstable();
        (r, names)
    })
}

/// Whether `field` is `key` or a path into it (`key.x`, `key[0]`).
fn names_key(field: &str, key: &str) -> bool {
    field
        .strip_prefix(key)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = input(data) else {
        return;
    };
    let (registry, names) = actions();
    for name in names {
        let action = registry.get(name).unwrap();
        let Err(e) = action.decode(input.clone()) else {
            continue;
        };
        let text = e.to_string();
        let Error::Invalid { field, reason } = &e else {
            panic!("{name}: not a field error: {text:?} for {input}");
        };
        assert!(
            !field.is_empty(),
            "{name}: no field in {text:?} for {input}"
        );
        let message = reason.to_string();
        assert!(
            !message.is_empty(),
            "{name}: no message in {text:?} for {input}"
        );
        assert_eq!(text, format!("{field}: {message}"));
        // Serde also reads a struct from an array, by position: then the
        // field is a position (`[1]`). The dispatcher refuses any body that
        // is not an object before decoding, so only `decode` itself sees one.
        let named = field == "body"
            || message == "is required"
            || match &input {
                Value::Object(o) => o.keys().any(|k| names_key(field, k)),
                Value::Array(_) => field.starts_with('['),
                _ => false,
            };
        assert!(named, "{name}: {text:?} names no field of {input}");
    }
});
