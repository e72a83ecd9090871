//! Properties of action input decoding: every registered action decodes any
//! JSON value without panicking, and a refusal is a field error whose field
//! is `body`, a key of the input (or a path into it), or a required field.

use cashkeeper::actions::{catalogue, Registry};
use cashkeeper::Error;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// The field names the actions read, and a few they do not.
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
    "",
    "unknown",
];

/// Texts the action inputs meet: amounts, dates, frequencies, currencies.
const TEXTS: &[&str] = &[
    "",
    " ",
    "12.50",
    "12,50",
    "-3",
    "1e3",
    "1e400",
    "999999999.99",
    "0.001",
    "NaN",
    "2025-01-31",
    "2025-02-30",
    "1899-12-31",
    "2025-06",
    "once",
    "monthly",
    "half_yearly",
    "EUR",
    "checking",
    "de",
    "a@example.org",
];

fn any_key() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => proptest::sample::select(KEYS).prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

fn any_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        3 => proptest::sample::select(TEXTS).prop_map(Value::from),
        1 => any::<String>().prop_map(Value::String),
    ]
}

fn any_value() -> impl Strategy<Value = Value> {
    any_leaf().prop_recursive(2, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((any_key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn any_object() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::vec((any_key(), any_value()), 0..10)
        .prop_map(|kv| kv.into_iter().collect())
}

/// Whether `field` is `key` or a path into it (`key.x`, `key[0]`).
fn names_key(field: &str, key: &str) -> bool {
    field
        .strip_prefix(key)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

fn check_all(registry: &Registry, names: &[&str], input: &Value) -> Result<(), TestCaseError> {
    for name in names {
        let Err(e) = registry.get(name).unwrap().decode(input.clone()) else {
            continue;
        };
        let text = e.to_string();
        let Error::Invalid { field, reason } = &e else {
            return Err(TestCaseError::fail(format!(
                "{name}: not a field error: {text:?} for {input}"
            )));
        };
        prop_assert!(
            !field.is_empty() && !reason.to_string().is_empty(),
            "{}: {:?}",
            name,
            text
        );
        prop_assert_eq!(&text, &format!("{field}: {reason}"));
        // Serde also reads a struct from an array, by position: then the
        // field is a position (`[1]`). The dispatcher refuses any body that
        // is not an object before decoding, so only `decode` itself sees one.
        let named = field == "body"
            || *reason == cashkeeper::error::Reason::Required
            || match input {
                Value::Object(o) => o.keys().any(|k| names_key(field, k)),
                Value::Array(_) => field.starts_with('['),
                _ => false,
            };
        prop_assert!(named, "{}: {:?} names no field of {}", name, text, input);
    }
    Ok(())
}

/// Every registered action, by name.
fn actions() -> (&'static Registry, Vec<&'static str>) {
    let r = catalogue();
    let mut names: Vec<&'static str> = r.names().copied().collect();
    names.sort_unstable();
    (r, names)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_action_decodes_any_object_or_names_the_field(input in any_object()) {
        let (registry, names) = actions();
        check_all(registry, &names, &Value::Object(input))?;
    }

    #[test]
    fn every_action_decodes_any_value_or_names_the_field(input in any_value()) {
        let (registry, names) = actions();
        check_all(registry, &names, &input)?;
    }
}
