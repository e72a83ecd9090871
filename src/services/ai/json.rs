//! The JSON object in a model's answer. Asked for JSON, models still wrap
//! it: in a ```json fence, in a sentence ("Here is the data: {…}"), or
//! after a `<think>…</think>` block; a server that refused
//! `response_format` leaves all of that to us.

use serde_json::{Map, Value};

/// How many `{` are tried as the start of the object before giving up, so
/// a long answer full of braces costs little.
const MAX_STARTS: usize = 64;

/// The first JSON object in `answer`: the whole answer, or the first `{`
/// from which a complete object parses (inside a fence or amid prose),
/// after any reasoning block is removed. `None` when there is none.
pub fn extract_object(answer: &str) -> Option<Map<String, Value>> {
    let text = without_reasoning(answer);
    let text = text.trim();
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
        return Some(map);
    }
    for (start, _) in text.match_indices('{').take(MAX_STARTS) {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = values.next() {
            return Some(map);
        }
    }
    None
}

/// The answer without `<think>…</think>` blocks; an opening tag that is
/// never closed hides the rest, and a closing tag without an opening one
/// (the template opened it) hides what comes before.
fn without_reasoning(answer: &str) -> String {
    let mut text = answer.to_string();
    while let Some(open) = text.find("<think>") {
        match text[open..].find("</think>") {
            Some(close) => text.replace_range(open..open + close + "</think>".len(), ""),
            None => text.truncate(open),
        }
    }
    match text.rfind("</think>") {
        Some(close) => text[close + "</think>".len()..].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(answer: &str) -> Option<Value> {
        extract_object(answer).map(Value::Object)
    }

    #[test]
    fn a_plain_answer_is_the_object() {
        assert_eq!(
            object(r#" {"total":"12.50"} "#),
            Some(json!({"total":"12.50"}))
        );
    }

    #[test]
    fn a_fenced_block_is_found_closed_or_not() {
        let fenced = "```json\n{\"merchant\": \"REWE\", \"items\": [{\"name\": \"Milk\"}]}\n```";
        assert_eq!(
            object(fenced),
            Some(json!({"merchant":"REWE","items":[{"name":"Milk"}]}))
        );
        assert_eq!(object("```JSON\n{\"total\": 3}"), Some(json!({"total": 3})));
    }

    #[test]
    fn prose_around_the_object_and_braces_in_the_prose_are_skipped() {
        let answer = "Sure {as asked}! Here it is: {\"total\": \"4.20\", \"note\": \"a } brace\"} Hope this helps.";
        assert_eq!(
            object(answer),
            Some(json!({"total":"4.20","note":"a } brace"}))
        );
    }

    #[test]
    fn reasoning_blocks_are_removed_first() {
        let answer = "<think>The JSON could be {\"total\": 1}</think>\n{\"total\": 2}";
        assert_eq!(object(answer), Some(json!({"total": 2})));
        assert_eq!(
            object("thinking done</think>{\"total\": 3}"),
            Some(json!({"total": 3}))
        );
        assert_eq!(object("<think>{\"total\": 4} and then it stopped"), None);
    }

    #[test]
    fn no_object_is_none() {
        for answer in [
            "",
            "I cannot read this receipt.",
            "[1, 2]",
            "{not json}",
            "\"text\"",
        ] {
            assert_eq!(object(answer), None, "{answer}");
        }
    }
}
