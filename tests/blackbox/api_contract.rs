//! The OpenAPI document served at /api/v1/openapi.json, checked against
//! real responses of every endpoint: every documented field present with
//! its type, nothing undocumented.

use crate::support::*;
use serde_json::{json, Value};

/// Resolves `{"$ref": "#/components/schemas/X"}`.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            let target = &doc["components"]["schemas"][name];
            assert!(!target.is_null(), "dangling $ref {r}");
            resolve(doc, target)
        }
        None => schema,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(expected: &str, v: &Value) -> bool {
    let actual = type_name(v);
    actual == expected || (expected == "number" && actual == "integer")
}

/// A small JSON-Schema check: type (one or several), properties, required,
/// additionalProperties (false or a schema), items, maxItems, enum, oneOf,
/// and the formats date, date-time and uuid.
fn check(doc: &Value, schema: &Value, v: &Value, path: &str, errors: &mut Vec<String>) {
    let schema = resolve(doc, schema);
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let matching = options
            .iter()
            .filter(|o| {
                let mut e = Vec::new();
                check(doc, o, v, path, &mut e);
                e.is_empty()
            })
            .count();
        if matching != 1 {
            errors.push(format!("{path}: matches {matching} of oneOf, {v}"));
        }
        return;
    }
    if let Some(t) = schema.get("type") {
        let ok = match t {
            Value::String(s) => type_matches(s, v),
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_str)
                .any(|s| type_matches(s, v)),
            _ => true,
        };
        if !ok {
            errors.push(format!("{path}: expected {t}, got {}", type_name(v)));
            return;
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        if !values.contains(v) {
            errors.push(format!("{path}: {v} not in {values:?}"));
        }
    }
    if let (Some(f), Some(s)) = (schema.get("format").and_then(Value::as_str), v.as_str()) {
        let ok = match f {
            "date" => chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10,
            "date-time" => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
            "uuid" => uuid::Uuid::parse_str(s).is_ok(),
            _ => true,
        };
        if !ok {
            errors.push(format!("{path}: {s:?} is not a {f}"));
        }
    }
    if let Value::Object(map) = v {
        let props = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = name.as_str().unwrap();
            if !map.contains_key(name) {
                errors.push(format!("{path}: missing {name}"));
            }
        }
        for (k, item) in map {
            match props.and_then(|p| p.get(k)) {
                Some(s) => check(doc, s, item, &format!("{path}.{k}"), errors),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{path}: undocumented field {k}"))
                    }
                    Some(s @ Value::Object(_)) => {
                        check(doc, s, item, &format!("{path}.{k}"), errors)
                    }
                    _ => {}
                },
            }
        }
    }
    if let Value::Array(items) = v {
        if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
            if items.len() as u64 > max {
                errors.push(format!("{path}: more than {max} items"));
            }
        }
        if let Some(s) = schema.get("items") {
            for (i, item) in items.iter().enumerate() {
                check(doc, s, item, &format!("{path}[{i}]"), errors);
            }
        }
    }
}

/// Validates a response body against the documented schema of `path` and `status`.
fn validate(doc: &Value, path: &str, status: u16, body: &Value) {
    let op = &doc["paths"][path]["get"];
    assert!(!op.is_null(), "{path} is not documented");
    let schema = &op["responses"][status.to_string()]["content"]["application/json"]["schema"];
    assert!(!schema.is_null(), "{path}: no schema for {status}");
    let mut errors = Vec::new();
    check(doc, schema, body, path, &mut errors);
    assert!(
        errors.is_empty(),
        "{path} {status}:\n{}\nbody: {body}",
        errors.join("\n")
    );
}

#[tokio::test]
async fn every_endpoint_answers_exactly_as_documented() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    crate::api::scenario(&app, &user).await;
    let uid = user.id.clone();
    app.state
        .db
        .run(move |c| {
            c.execute(
                "INSERT INTO insights (id, user_id, type, severity, title, message, metadata, dedupe_key, created_at, expires_at)
                 VALUES ('6c1f3bd4-1c2b-4a7e-9d4e-2b8e3f0a9c11', ?1, 'budget_warning', 'critical', 'T', 'M',
                         '{\"income\":\"1.00\"}', 'k', '2025-03-01T00:00:00Z', NULL)",
                [&uid],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let token = app.token(&user, Value::Null).await;

    let doc: Value = app
        .get("/api/v1/openapi.json", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["servers"][0]["url"], "/api/v1");

    let calls = [
        ("/health", "/health"),
        ("/me", "/me"),
        ("/summary", "/summary?upcomingDays=14&forecastMonths=4"),
        ("/accounts", "/accounts?forecastMonths=2"),
        ("/payments", "/payments?start=2025-03-01&end=2025-03-31"),
        ("/insights", "/insights"),
        ("/net-worth", "/net-worth?months=3"),
    ];
    for (path, url) in calls {
        let body = app.api_json(url, &token).await;
        validate(&doc, path, 200, &body);
    }
    // The data exercised every optional shape: a next payment, categories
    // null and not, balances null and not, an insight.
    let s = app.api_json("/summary?upcomingDays=14", &token).await;
    assert!(s["upcoming"]["next"].is_object());
    let a = app.api_json("/accounts", &token).await;
    assert!(a["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["forecast"]["projectedBalance"].is_null()));
    assert!(a["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["forecast"]["projectedBalance"].is_number()));
    assert_eq!(
        app.api_json("/insights", &token).await["insights"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Errors have the documented shape too.
    let bad: Value = app
        .api("/summary?upcomingDays=0", &token)
        .await
        .json()
        .await
        .unwrap();
    validate(&doc, "/summary", 400, &bad);
    let unauthorized: Value = app.api("/me", "csk_nope").await.json().await.unwrap();
    validate(&doc, "/me", 401, &unauthorized);
    let uid = user.id.clone();
    app.state
        .db
        .run(move |c| {
            c.execute_batch("PRAGMA foreign_keys = OFF")?;
            c.execute("DELETE FROM users WHERE id = ?1", [&uid])?;
            c.execute_batch("PRAGMA foreign_keys = ON")?;
            Ok(())
        })
        .await
        .unwrap();
    let gone: Value = app.api("/me", &token).await.json().await.unwrap();
    validate(&doc, "/me", 404, &gone);

    // Every documented path is a real route.
    for path in doc["paths"].as_object().unwrap().keys() {
        let res = app.api(path, &token).await;
        let body: Value = res.json().await.unwrap();
        assert_ne!(
            body["error"]["message"], "no such endpoint",
            "{path} is documented but not routed"
        );
    }
}

#[test]
fn the_validator_finds_missing_mistyped_and_undocumented_fields() {
    let doc = json!({"components": {"schemas": {"P": {
        "type": "object", "required": ["a", "d"], "additionalProperties": false,
        "properties": {"a": {"type": "number"}, "d": {"type": "string", "format": "date"}, "n": {"type": ["string", "null"]}}
    }}}});
    let schema = json!({"$ref": "#/components/schemas/P"});
    let run = |v: Value| {
        let mut e = Vec::new();
        check(&doc, &schema, &v, "x", &mut e);
        e
    };
    assert!(run(json!({"a": 1.5, "d": "2025-01-31", "n": null})).is_empty());
    assert_eq!(run(json!({"d": "2025-01-31"})), vec!["x: missing a"]);
    assert_eq!(
        run(json!({"a": "1", "d": "2025-01-31"})),
        vec!["x.a: expected \"number\", got string"]
    );
    assert_eq!(
        run(json!({"a": 1, "d": "2025-02-30"})),
        vec!["x.d: \"2025-02-30\" is not a date"]
    );
    assert_eq!(
        run(json!({"a": 1, "d": "2025-01-31", "z": 1})),
        vec!["x: undocumented field z"]
    );
}
