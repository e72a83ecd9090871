//! The Home Assistant examples of `docs/api.md` against the served OpenAPI
//! document and real replies: every resource is an operation, and every
//! field a sensor reads (`value_json.…`, `attribute='…'`,
//! `json_attributes_path`, `json_attributes`) is in its reply's schema.

use crate::support::*;
use serde_json::{json, Value};

/// One `- resource:` of the docs with the lines that configure it.
struct Resource {
    path: String,
    query: String,
    lines: Vec<String>,
}

fn resources(doc: &str) -> Vec<Resource> {
    let section = doc
        .split("\n## Home Assistant")
        .nth(1)
        .expect("docs/api.md has a Home Assistant section");
    let section = section.split("\n## ").next().unwrap();
    let mut out: Vec<Resource> = Vec::new();
    let mut in_yaml = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_yaml = line == "```yaml";
            continue;
        }
        if !in_yaml {
            continue;
        }
        if let Some(rest) = line.trim_start().strip_prefix("- resource: ") {
            let url = rest.trim_matches('"');
            let after = url
                .split("/api/v1")
                .nth(1)
                .expect("a resource under /api/v1");
            let (path, query) = after.split_once('?').unwrap_or((after, ""));
            out.push(Resource {
                path: path.to_string(),
                query: query.to_string(),
                lines: Vec::new(),
            });
        } else if let Some(r) = out.last_mut() {
            r.lines.push(line.to_string());
        }
    }
    out
}

/// Resolves `$ref`s and, for a nullable `oneOf`/`anyOf`, the object in it.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return resolve(doc, &doc["components"]["schemas"][name]);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = schema[key].as_array() {
            if let Some(object) = alts.iter().find(|a| a["type"] != "null") {
                return resolve(doc, object);
            }
        }
    }
    schema
}

/// A path as the examples write it (`points[-1].byType`,
/// `budgets[?(@.category == 'X')]`) as steps: a field name, or `[]` for an
/// item of a list.
fn steps(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => {
                if depth == 0 {
                    if !word.is_empty() {
                        out.push(std::mem::take(&mut word));
                    }
                    out.push("[]".to_string());
                }
                depth += 1;
            }
            ']' => depth -= 1,
            _ if depth > 0 => {}
            '.' => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The schema at a path of [`steps`] below `schema`.
fn walk<'a>(doc: &'a Value, schema: &'a Value, path: &[String]) -> Option<&'a Value> {
    let mut at = resolve(doc, schema);
    for step in path {
        at = if step == "[]" {
            resolve(doc, at.get("items")?)
        } else {
            resolve(doc, at["properties"].get(step.as_str())?)
        };
    }
    Some(at)
}

/// The identifiers after each `marker` in `text` (`value_json.a.b` → "a.b").
fn after_each<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.match_indices(marker)
        .map(|(i, _)| {
            let rest = &text[i + marker.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "_.[]-".contains(c)))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[tokio::test]
async fn the_home_assistant_examples_read_fields_the_api_serves() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api.md")).unwrap();
    let resources = resources(&doc);
    assert!(resources.len() >= 2, "the summary and the budgets examples");
    let app = spawn_app().await;
    let user = app.new_user().await;
    let token = app.token(&user, json!(30)).await;
    let openapi: Value = app
        .client
        .get(app.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for r in &resources {
        let operation = &openapi["paths"][&r.path]["get"];
        assert!(
            operation.is_object(),
            "{} is not in the OpenAPI document",
            r.path
        );
        let reply = &operation["responses"]["200"]["content"]["application/json"]["schema"];
        let res = app.api(&format!("{}?{}", r.path, r.query), &token).await;
        assert_eq!(res.status(), 200, "{}?{}", r.path, r.query);
        let text = r.lines.join("\n");
        let mut read = 0;
        for path in after_each(&text, "value_json.") {
            assert!(
                walk(&openapi, reply, &steps(path)).is_some(),
                "{}: value_json.{path}",
                r.path
            );
            read += 1;
        }
        assert!(read > 0, "{}: no sensor reads a field", r.path);
        // `attribute='x'` and `selectattr('x'`: a field of the list's items.
        let items: Vec<&Value> = after_each(&text, "value_json.")
            .into_iter()
            .filter_map(|p| walk(&openapi, reply, &steps(p)))
            .filter_map(|s| s.get("items"))
            .map(|s| resolve(&openapi, s))
            .collect();
        for field in after_each(&text, "attribute='")
            .into_iter()
            .chain(after_each(&text, "selectattr('"))
        {
            assert!(
                items.iter().any(|s| s["properties"].get(field).is_some()),
                "{}: the items have no {field}",
                r.path
            );
        }
        // json_attributes_path "$.a.b" or "$.list[?(…)]", and its attributes.
        let mut block: Vec<(&Value, Vec<&str>)> = Vec::new();
        for line in &r.lines {
            let line = line.trim();
            if let Some(p) = line.strip_prefix("json_attributes_path: ") {
                let p = p.trim_matches('"').trim_start_matches("$.");
                let at = walk(&openapi, reply, &steps(p))
                    .unwrap_or_else(|| panic!("{}: json_attributes_path {p}", r.path));
                block.push((at, Vec::new()));
            } else if let Some(attr) = line.strip_prefix("- ").filter(|a| !a.contains(':')) {
                if let Some((_, attrs)) = block.last_mut() {
                    attrs.push(attr);
                }
            } else if line.starts_with("- name:") {
                // Attributes without a path are the reply's own fields.
                block.push((resolve(&openapi, reply), Vec::new()));
            }
        }
        for (schema, attrs) in block {
            for a in attrs {
                assert!(
                    schema["properties"].get(a).is_some(),
                    "{}: json_attributes {a} is not in the reply",
                    r.path
                );
            }
        }
    }
}
