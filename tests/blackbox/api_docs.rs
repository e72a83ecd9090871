//! The Home Assistant examples of `docs/api.md` against the served OpenAPI
//! document and real replies: every resource is an operation, and every
//! field a sensor reads (`value_json.…`, `attribute='…'`,
//! `json_attributes_path`, `json_attributes`) is in its reply's schema.

use crate::helpers::*;
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

/// The schema at a dotted path of fields below `schema`.
fn walk<'a>(doc: &'a Value, schema: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut at = resolve(doc, schema);
    for field in path {
        at = resolve(doc, at["properties"].get(*field)?);
    }
    Some(at)
}

/// The identifiers after each `marker` in `text` (`value_json.a.b` → "a.b").
fn after_each<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    text.match_indices(marker)
        .map(|(i, _)| {
            let rest = &text[i + marker.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
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
            let fields: Vec<&str> = path.split('.').filter(|f| !f.is_empty()).collect();
            assert!(
                walk(&openapi, reply, &fields).is_some(),
                "{}: value_json.{path}",
                r.path
            );
            read += 1;
        }
        assert!(read > 0, "{}: no sensor reads a field", r.path);
        // `attribute='x'` and `selectattr('x'`: a field of the list's items.
        let items: Vec<&Value> = after_each(&text, "value_json.")
            .into_iter()
            .filter_map(|p| walk(&openapi, reply, &p.split('.').collect::<Vec<_>>()))
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
                let (dotted, filtered) = match p.split_once('[') {
                    Some((d, _)) => (d, true),
                    None => (p, false),
                };
                let fields: Vec<&str> = dotted.split('.').collect();
                let mut at = walk(&openapi, reply, &fields)
                    .unwrap_or_else(|| panic!("{}: json_attributes_path {p}", r.path));
                if filtered {
                    at = resolve(&openapi, &at["items"]);
                }
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
