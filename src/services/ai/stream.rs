//! Streamed Chat Completions, as pure functions over the bytes received:
//! [`SseDecoder`] frames server-sent events, [`StreamAccumulator`] turns
//! their `data:` payloads into text as it arrives and, at the end, one
//! [`Completion`].
//!
//! The servers disagree on details (`docs/ai.md`), so the accumulator is
//! lenient where they differ and strict nowhere else:
//! - `data: [DONE]` ends the stream, and so does the end of the body;
//! - a chunk with `choices: []` and a `usage` object (the last one, when
//!   usage was asked for) only records the usage;
//! - `reasoning` (Ollama) and `reasoning_content` (llama.cpp, vLLM)
//!   deltas are never part of the answer; they only say the model is busy;
//! - tool calls arrive as fragments keyed by `index` (OpenAI, llama.cpp),
//!   whole in one chunk (Ollama), without `index` (older Ollama, Gemini
//!   proxies), or with `index` 0 for every parallel call told apart only by
//!   `id` (Ollama); ids may be numbers or missing;
//! - `finish_reason` may be `""`, unknown, or arrive with the tool calls;
//! - an `error` object (or an `event: error`) mid-stream fails the answer
//!   with the provider's message.

use super::{error_message, AiError, Completion, ToolCall, Usage};
use serde_json::Value;
use std::collections::HashMap;

/// One server-sent event: its `event:` name, if any, and its `data:` lines
/// joined with `\n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Frames server-sent events out of network chunks. Lines end in `\n`,
/// `\r\n` or `\r`; a blank line ends an event; lines starting with `:` are
/// comments (keepalives); one space after `data:` is dropped. Text is
/// decoded only once a whole line is there, so a chunk boundary inside a
/// multi-byte character does no harm.
#[derive(Default)]
pub struct SseDecoder {
    pending: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl SseDecoder {
    /// Feeds bytes; answers the events they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < self.pending.len() {
            let b = self.pending[i];
            if b == b'\n' || b == b'\r' {
                // A `\r` at the very end may be the first half of `\r\n`:
                // wait for the next byte.
                if b == b'\r' && i + 1 == self.pending.len() {
                    break;
                }
                let line = String::from_utf8_lossy(&self.pending[start..i]).into_owned();
                let crlf = b == b'\r' && self.pending[i + 1] == b'\n';
                i += if crlf { 2 } else { 1 };
                start = i;
                if let Some(e) = self.line(&line) {
                    events.push(e);
                }
            } else {
                i += 1;
            }
        }
        self.pending.drain(..start);
        events
    }

    /// The body ended: a last event without its blank line still counts.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.pending.is_empty() {
            let rest = std::mem::take(&mut self.pending);
            let line = String::from_utf8_lossy(&rest);
            let line = line.trim_end_matches('\r').to_string();
            if let Some(e) = self.line(&line) {
                events.push(e);
            }
        }
        if let Some(e) = self.line("") {
            events.push(e);
        }
        events
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let event = self.event.take();
            if self.data.is_empty() {
                return None;
            }
            let data = std::mem::take(&mut self.data).join("\n");
            return Some(SseEvent { event, data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_string()),
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        None
    }
}

/// What a caller may show while the answer streams in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamEvent {
    /// A piece of the answer's text.
    Text(String),
    /// The model is reasoning: no text, but a sign of life (a thinking
    /// model may reason for minutes before its first word).
    Thinking,
}

/// One tool call being put together from fragments.
#[derive(Default)]
struct Slot {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Puts one choice's answer together from stream chunks.
#[derive(Default)]
pub struct StreamAccumulator {
    content: String,
    slots: Vec<Slot>,
    /// The server's tool-call index (or the fragment's position in its
    /// chunk when the server sends none) → the slot it last opened.
    by_index: HashMap<i64, usize>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl StreamAccumulator {
    /// Whether `[DONE]` arrived: nothing after it counts.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Takes one event's payload. An error object, or a payload that is
    /// not JSON, fails the answer.
    pub fn push(&mut self, event: &SseEvent) -> Result<Vec<StreamEvent>, AiError> {
        let data = event.data.trim();
        if self.done || data.is_empty() {
            return Ok(Vec::new());
        }
        if data.starts_with("[DONE]") {
            self.done = true;
            return Ok(Vec::new());
        }
        let value: Option<Value> = serde_json::from_str(data).ok();
        if event.event.as_deref() == Some("error") {
            let message = value
                .as_ref()
                .and_then(error_message)
                .unwrap_or_else(|| super::one_line(data));
            return Err(AiError::Provider(message));
        }
        let Some(chunk) = value else {
            return Err(AiError::Provider(format!(
                "a streamed piece is not JSON: {}",
                super::one_line(data)
            )));
        };
        if let Some(message) = chunk.get("error").and_then(|_| error_message(&chunk)) {
            return Err(AiError::Provider(message));
        }
        if let Some(usage) = chunk.get("usage").and_then(Usage::from_json) {
            self.usage = Some(usage);
        }
        let mut out = Vec::new();
        let choices = chunk.get("choices").and_then(Value::as_array);
        // One answer is asked for; a server sending more keeps the first.
        let choice = choices.and_then(|cs| {
            cs.iter()
                .find(|c| c.get("index").and_then(Value::as_i64).unwrap_or(0) == 0)
        });
        let Some(choice) = choice else {
            return Ok(out);
        };
        if let Some(delta) = choice.get("delta") {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                if !text.is_empty() {
                    self.content.push_str(text);
                    out.push(StreamEvent::Text(text.to_string()));
                }
            }
            let reasoning = ["reasoning", "reasoning_content"].iter().any(|k| {
                delta
                    .get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|t| !t.is_empty())
            });
            if reasoning {
                out.push(StreamEvent::Thinking);
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for (position, call) in calls.iter().enumerate() {
                    self.tool_fragment(position, call);
                }
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            if !reason.is_empty() {
                self.finish_reason = Some(reason.to_string());
            }
        }
        Ok(out)
    }

    /// Adds one tool-call fragment to the slot it belongs to.
    fn tool_fragment(&mut self, position: usize, call: &Value) {
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        let arguments = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(s)) => s.clone(),
            // Some servers send the arguments as an object, whole.
            Some(v @ Value::Object(_)) => v.to_string(),
            _ => String::new(),
        };
        let id = match call.get("id") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let key = call
            .get("index")
            .and_then(Value::as_i64)
            .unwrap_or(position as i64);

        let current = self.by_index.get(&key).copied();
        let slot = if let Some(s) = id
            .as_deref()
            .and_then(|id| self.slots.iter().position(|s| s.id.as_deref() == Some(id)))
        {
            // A server repeating the call's id on every fragment.
            s
        } else {
            match current {
                // A new id where another call was: a new call (Ollama sends
                // index 0 for every call of a parallel batch).
                Some(s) if id.is_some() && self.slots[s].id.is_some() => self.open(),
                // No id, but a name after a finished call: a new whole call
                // from a server that numbers nothing.
                Some(s)
                    if id.is_none()
                        && name.is_some()
                        && !self.slots[s].name.is_empty()
                        && is_complete_json(&self.slots[s].arguments)
                        && (name != Some(self.slots[s].name.as_str()) || !arguments.is_empty()) =>
                {
                    self.open()
                }
                Some(s) => s,
                None => self.open(),
            }
        };
        self.by_index.insert(key, slot);
        let s = &mut self.slots[slot];
        if s.id.is_none() {
            s.id = id;
        }
        // Some servers resend the whole name with every fragment: assign.
        if let Some(name) = name {
            s.name = name.to_string();
        }
        s.arguments.push_str(&arguments);
    }

    fn open(&mut self) -> usize {
        self.slots.push(Slot::default());
        self.slots.len() - 1
    }

    /// The answer so far, as a whole; the end of the body counts as the end
    /// of the answer whether or not `[DONE]` came.
    pub fn finish(self) -> Completion {
        let tool_calls = self
            .slots
            .into_iter()
            .filter(|s| !(s.name.is_empty() && s.arguments.trim().is_empty()))
            .enumerate()
            .map(|(n, s)| ToolCall {
                id: s.id.unwrap_or_else(|| format!("call_{n}")),
                name: s.name,
                arguments: if s.arguments.trim().is_empty() {
                    "{}".to_string()
                } else {
                    s.arguments
                },
            })
            .collect();
        Completion {
            content: self.content,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
        }
    }
}

fn is_complete_json(text: &str) -> bool {
    !text.trim().is_empty() && serde_json::from_str::<Value>(text).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a whole body through the decoder and the accumulator, in
    /// network chunks of `size` bytes.
    fn run(body: &str, size: usize) -> (Result<Completion, AiError>, Vec<StreamEvent>) {
        let mut decoder = SseDecoder::default();
        let mut acc = StreamAccumulator::default();
        let mut seen = Vec::new();
        let bytes = body.as_bytes();
        let mut events = Vec::new();
        for piece in bytes.chunks(size.max(1)) {
            events.extend(decoder.push(piece));
        }
        events.extend(decoder.finish());
        for e in events {
            if acc.is_done() {
                break;
            }
            match acc.push(&e) {
                Ok(out) => seen.extend(out),
                Err(err) => return (Err(err), seen),
            }
        }
        (Ok(acc.finish()), seen)
    }

    /// The same body split every way must give the same answer.
    fn whole(body: &str) -> Completion {
        let (first, _) = run(body, body.len());
        let first = first.expect("the stream is readable");
        for size in [1, 2, 3, 7, 64] {
            let (other, _) = run(body, size);
            assert_eq!(other.as_ref(), Ok(&first), "chunks of {size} bytes");
        }
        first
    }

    fn data(chunks: &[&str]) -> String {
        chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
    }

    #[test]
    fn text_arrives_in_pieces_and_done_ends_the_stream() {
        let body = data(&[
            r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"Grüß "},"finish_reason":null}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"dich"},"finish_reason":null}]}"#,
            r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
            r#"{"choices":[{"index":0,"delta":{"content":"after the end"}}]}"#,
        ]);
        let c = whole(&body);
        assert_eq!(c.content, "Grüß dich");
        assert_eq!(c.finish_reason.as_deref(), Some("stop"));
        assert!(c.tool_calls.is_empty());
        let (_, events) = run(&body, 5);
        assert_eq!(
            events,
            vec![
                StreamEvent::Text("Grüß ".into()),
                StreamEvent::Text("dich".into())
            ]
        );
    }

    #[test]
    fn the_usage_only_final_chunk_records_usage() {
        let c = whole(&data(&[
            r#"{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":1,"total_tokens":13}}"#,
            "[DONE]",
        ]));
        assert_eq!(c.content, "ok");
        assert_eq!(
            c.usage,
            Some(Usage {
                prompt_tokens: 12,
                completion_tokens: 1,
                total_tokens: 13
            })
        );
    }

    #[test]
    fn reasoning_deltas_are_not_part_of_the_answer() {
        let body = data(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Let me think"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":" about it"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"42","reasoning_content":null},"timings":{"n":1}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]);
        assert_eq!(whole(&body).content, "42");
        let (_, events) = run(&body, body.len());
        assert_eq!(
            events,
            vec![
                StreamEvent::Thinking,
                StreamEvent::Thinking,
                StreamEvent::Text("42".into())
            ]
        );
    }

    #[test]
    fn openai_tool_call_fragments_are_joined_by_index() {
        let c = whole(&data(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_summary","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"month\":"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"list_accounts","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"2026-08\"}"}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
            "[DONE]",
        ]));
        assert_eq!(
            c.tool_calls,
            vec![
                ToolCall {
                    id: "call_a".into(),
                    name: "get_summary".into(),
                    arguments: r#"{"month":"2026-08"}"#.into()
                },
                ToolCall {
                    id: "call_b".into(),
                    name: "list_accounts".into(),
                    arguments: "{}".into()
                },
            ]
        );
        assert_eq!(c.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn fragments_without_index_or_id_continue_the_call_they_follow() {
        let c = whole(&data(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x1","function":{"name":"search","arguments":"{\"query\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":\"rent\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]));
        assert_eq!(
            c.tool_calls,
            vec![ToolCall {
                id: "x1".into(),
                name: "search".into(),
                arguments: r#"{"query":"rent"}"#.into()
            }]
        );
    }

    #[test]
    fn whole_calls_without_index_are_told_apart_by_position_and_id() {
        // Older Ollama and Gemini proxies: whole calls, no index.
        let c = whole(&data(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"name":"get_summary","arguments":"{}"}},{"id":"call_2","function":{"name":"list_insights","arguments":"{\"unread\":true}"}}]},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]));
        let names: Vec<_> = c.tool_calls.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["get_summary", "list_insights"]);
        assert_eq!(c.tool_calls[1].arguments, r#"{"unread":true}"#);
        // No ids and no index at all, one whole call per chunk.
        let c = whole(&data(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"get_summary","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"list_accounts","arguments":{"all":true}}}]}}]}"#,
        ]));
        assert_eq!(
            c.tool_calls,
            vec![
                ToolCall {
                    id: "call_0".into(),
                    name: "get_summary".into(),
                    arguments: "{}".into()
                },
                ToolCall {
                    id: "call_1".into(),
                    name: "list_accounts".into(),
                    arguments: r#"{"all":true}"#.into()
                },
            ]
        );
    }

    #[test]
    fn ollamas_parallel_calls_all_at_index_zero_are_separate_calls() {
        // Ollama: each call whole, each in its own chunk, index 0 for all,
        // and the finish reason in a chunk of its own.
        let c = whole(&data(&[
            r#"{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_ab12cd34","index":0,"type":"function","function":{"name":"list_payments","arguments":"{\"start\":\"2026-08-01\",\"end\":\"2026-08-31\"}"}}]},"finish_reason":null}]}"#,
            r#"{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_ef56gh78","index":0,"type":"function","function":{"name":"get_reserve_plan","arguments":"{}"}}]},"finish_reason":null}]}"#,
            r#"{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]));
        assert_eq!(c.tool_calls.len(), 2);
        assert_eq!(c.tool_calls[0].id, "call_ab12cd34");
        assert_eq!(c.tool_calls[0].name, "list_payments");
        assert_eq!(
            c.tool_calls[0].arguments,
            r#"{"start":"2026-08-01","end":"2026-08-31"}"#
        );
        assert_eq!(c.tool_calls[1].id, "call_ef56gh78");
        assert_eq!(c.tool_calls[1].arguments, "{}");
    }

    #[test]
    fn a_repeated_name_and_id_numbers_do_not_break_a_call() {
        // The name resent with every fragment; the id a number.
        let c = whole(&data(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":7,"function":{"name":"search","arguments":"{\"query\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":7,"function":{"name":"search","arguments":"\"rent\"}"}}]},"finish_reason":""}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]));
        assert_eq!(
            c.tool_calls,
            vec![ToolCall {
                id: "7".into(),
                name: "search".into(),
                arguments: r#"{"query":"rent"}"#.into()
            }]
        );
    }

    #[test]
    fn an_empty_or_unknown_finish_reason_and_a_missing_done_are_accepted() {
        let c = whole(&data(&[
            r#"{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":""}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"eos"}]}"#,
        ]));
        assert_eq!(c.content, "ab");
        assert_eq!(c.finish_reason.as_deref(), Some("eos"));
        // The last event without its blank line and without [DONE].
        let c = whole(r#"data: {"choices":[{"index":0,"delta":{"content":"end"}}]}"#);
        assert_eq!(c.content, "end");
        assert_eq!(c.finish_reason, None);
    }

    #[test]
    fn an_error_object_mid_stream_fails_with_the_providers_message() {
        let body = data(&[
            r#"{"choices":[{"index":0,"delta":{"content":"par"}}]}"#,
            r#"{"error":{"message":"model overloaded","type":"server_error"}}"#,
            "[DONE]",
        ]);
        let (result, events) = run(&body, 9);
        assert_eq!(result, Err(AiError::Provider("model overloaded".into())));
        assert_eq!(events, vec![StreamEvent::Text("par".into())]);
        // As an `event: error`, and with the error a plain string.
        let body = "event: error\ndata: {\"error\":\"context length exceeded\"}\n\n";
        assert_eq!(
            run(body, 4).0,
            Err(AiError::Provider("context length exceeded".into()))
        );
        // A payload that is not JSON.
        assert!(matches!(
            run("data: <html>oops</html>\n\n", 100).0,
            Err(AiError::Provider(m)) if m.contains("not JSON")
        ));
    }

    #[test]
    fn sse_framing_follows_the_rules_of_the_format() {
        let mut d = SseDecoder::default();
        let mut events =
            d.push(b": keepalive\r\n\r\ndata: one\r\ndata:two\r\n\r\nevent: x\rdata:  three\r");
        events.extend(d.push(b"\r"));
        events.extend(d.push(b"id: 5\nretry: 10\ndata\n\n"));
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: None,
                    data: "one\ntwo".into()
                },
                SseEvent {
                    event: Some("x".into()),
                    data: " three".into()
                },
                SseEvent {
                    event: None,
                    data: "".into()
                },
            ]
        );
        // A multi-byte character split between two network chunks.
        let text = "data: {\"choices\":[{\"delta\":{\"content\":\"€\"}}]}\n\n".as_bytes();
        let cut = text.iter().position(|b| *b == 0xe2).unwrap() + 1;
        let mut d = SseDecoder::default();
        let mut events = d.push(&text[..cut]);
        events.extend(d.push(&text[cut..]));
        assert_eq!(events.len(), 1);
        assert!(events[0].data.contains('€'));
    }
}
