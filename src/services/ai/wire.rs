//! The wire format of Chat Completions: messages with text and image
//! parts, tools, a JSON schema for the answer, and the reply read
//! leniently, with a provider's error turned into an [`AiError`].

use super::{AiError, MAX_MESSAGE};
use base64::Engine;
use serde_json::{json, Map, Value};

/// Who speaks a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// A piece of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Text(String),
    /// An image as a `data:` URI ([`data_uri`]).
    ImageUrl(String),
}

/// `data:<mime>;base64,<bytes>`: how images are sent (Ollama takes no
/// other form). `mime` must come from the bytes, not from the uploader.
pub fn data_uri(mime: &str, bytes: &[u8]) -> String {
    format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// One message of the conversation sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
    /// The calls an assistant message made (replayed history).
    pub tool_calls: Vec<ToolCall>,
    /// A tool result: the call it answers and the tool's name (Ollama
    /// reads the name).
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
}

impl Message {
    fn new(role: Role, parts: Vec<Part>) -> Message {
        Message {
            role,
            parts,
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
        }
    }

    pub fn system(text: impl Into<String>) -> Message {
        Message::new(Role::System, vec![Part::Text(text.into())])
    }

    pub fn user(text: impl Into<String>) -> Message {
        Message::new(Role::User, vec![Part::Text(text.into())])
    }

    pub fn user_parts(parts: Vec<Part>) -> Message {
        Message::new(Role::User, parts)
    }

    pub fn assistant(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Message {
        Message {
            tool_calls,
            ..Message::new(Role::Assistant, vec![Part::Text(text.into())])
        }
    }

    /// The result of `call`, for the model's next round.
    pub fn tool_result(call: &ToolCall, content: impl Into<String>) -> Message {
        Message {
            tool_call_id: Some(call.id.clone()),
            name: Some(call.name.clone()),
            ..Message::new(Role::Tool, vec![Part::Text(content.into())])
        }
    }

    fn to_wire(&self) -> Value {
        let has_image = self.parts.iter().any(|p| matches!(p, Part::ImageUrl(_)));
        // Plain text as a string (every server takes it; some take nothing
        // else), never null: replayed history with null content is refused.
        let content = if has_image {
            Value::Array(
                self.parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(t) => json!({"type": "text", "text": t}),
                        Part::ImageUrl(u) => json!({"type": "image_url", "image_url": {"url": u}}),
                    })
                    .collect(),
            )
        } else {
            let text: Vec<&str> = self
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_str()),
                    Part::ImageUrl(_) => None,
                })
                .collect();
            Value::String(text.join("\n\n"))
        };
        let mut m = Map::new();
        m.insert("role".into(), self.role.as_str().into());
        m.insert("content".into(), content);
        if !self.tool_calls.is_empty() {
            let calls = self
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    })
                })
                .collect();
            m.insert("tool_calls".into(), Value::Array(calls));
        }
        if let Some(id) = &self.tool_call_id {
            m.insert("tool_call_id".into(), id.clone().into());
        }
        if let Some(name) = &self.name {
            m.insert("name".into(), name.clone().into());
        }
        Value::Object(m)
    }
}

/// A function the model may call. Keep `parameters` flat: no `$ref`, no
/// `$defs`, no empty `enum` (strict servers refuse them).
#[derive(Clone, Debug, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The answer's required shape, sent as `response_format` `json_schema`.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonSchema {
    pub name: String,
    pub schema: Value,
}

/// A request to `/chat/completions`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub json_schema: Option<JsonSchema>,
    pub max_tokens: Option<u32>,
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            model: model.into(),
            messages,
            tools: Vec::new(),
            json_schema: None,
            max_tokens: None,
        }
    }

    /// The JSON body. `tool_choice` is never sent: Ollama ignores it, and
    /// leaving it out is `auto` everywhere else.
    pub fn to_wire(&self, stream: bool, with_schema: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), self.model.clone().into());
        body.insert(
            "messages".into(),
            self.messages.iter().map(Message::to_wire).collect(),
        );
        if !self.tools.is_empty() {
            let tools = self
                .tools
                .iter()
                .map(|t| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": t.name,
                            "description": t.description,
                            "parameters": t.parameters,
                        },
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let (true, Some(s)) = (with_schema, &self.json_schema) {
            body.insert(
                "response_format".into(),
                json!({
                    "type": "json_schema",
                    "json_schema": {"name": s.name, "strict": true, "schema": s.schema},
                }),
            );
        }
        if let Some(n) = self.max_tokens {
            body.insert("max_tokens".into(), n.into());
        }
        body.insert("stream".into(), stream.into());
        if stream {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }
}

/// A call the model asked for; `arguments` is JSON text (`{}` when the
/// server sent nothing), checked by whoever runs the tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// Tokens used, when the server says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

impl Usage {
    pub(super) fn from_json(v: &Value) -> Option<Usage> {
        let n = |k: &str| v.get(k).and_then(Value::as_u64);
        let (prompt, completion) = (n("prompt_tokens")?, n("completion_tokens").unwrap_or(0));
        Some(Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: n("total_tokens").unwrap_or(prompt + completion),
        })
    }
}

/// The model's answer: text (reasoning left out), tool calls, why it
/// stopped, and the usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

/// A reply of `/chat/completions` without streaming, read leniently: only
/// `choices[0].message` matters; content may be a string, null or a list of
/// text parts; ids may be numbers or missing; arguments a string or an
/// object.
pub fn parse_completion(body: &[u8]) -> Result<Completion, AiError> {
    let Ok(reply) = serde_json::from_slice::<Value>(body) else {
        return Err(AiError::Provider(format!(
            "the reply is not JSON: {}",
            one_line(&String::from_utf8_lossy(&body[..body.len().min(200)]))
        )));
    };
    if reply.get("error").is_some_and(|e| !e.is_null()) {
        return Err(AiError::Provider(
            error_message(&reply).unwrap_or_else(|| "an error without a message".into()),
        ));
    }
    let Some(choice) = reply
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Err(AiError::Provider(
            "the reply holds no answer (no choices); is AI_BASE_URL an OpenAI-compatible API?"
                .into(),
        ));
    };
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let content = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    };
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(n, c)| {
                    let f = c.get("function");
                    ToolCall {
                        id: match c.get("id") {
                            Some(Value::String(s)) if !s.is_empty() => s.clone(),
                            Some(Value::Number(n)) => n.to_string(),
                            _ => format!("call_{n}"),
                        },
                        name: f
                            .and_then(|f| f.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        arguments: match f.and_then(|f| f.get("arguments")) {
                            Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                            Some(v @ Value::Object(_)) => v.to_string(),
                            _ => "{}".to_string(),
                        },
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Completion {
        content,
        tool_calls,
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_string),
        usage: reply.get("usage").and_then(Usage::from_json),
    })
}

/// The provider's own words in an error body: `error.message` (OpenAI,
/// Ollama, llama.cpp), `error` as text, `message` (vLLM) or `detail`
/// (FastAPI servers); on one line, cut short.
pub fn error_message(body: &Value) -> Option<String> {
    let text = match body.get("error") {
        Some(Value::Object(e)) => match e.get("message") {
            Some(Value::String(m)) => m.clone(),
            _ => Value::Object(e.clone()).to_string(),
        },
        Some(Value::String(s)) => s.clone(),
        _ => match (body.get("message"), body.get("detail")) {
            (Some(Value::String(m)), _) => m.clone(),
            (_, Some(Value::String(d))) => d.clone(),
            (_, Some(d)) if !d.is_null() => d.to_string(),
            _ => return None,
        },
    };
    let text = one_line(&text);
    (!text.is_empty()).then_some(text)
}

/// Whitespace collapsed to single spaces, at most [`MAX_MESSAGE`] characters.
pub(super) fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(MAX_MESSAGE) {
        Some((cut, _)) => format!("{}…", &joined[..cut]),
        None => joined,
    }
}

/// The error for a reply with status `status` and body `body`: a refusal
/// of tools when tools were sent and the provider's words are about them
/// ("tools param requires --jinja flag", "does not support tools", "\"auto\"
/// tool choice requires --enable-auto-tool-choice …"), else the status with
/// the provider's message.
pub fn status_error(status: u16, body: &[u8], model: &str, sent_tools: bool) -> AiError {
    let message = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| error_message(&v))
        .unwrap_or_else(|| {
            let text = one_line(&String::from_utf8_lossy(&body[..body.len().min(4096)]));
            if text.is_empty() || text.starts_with('<') {
                // Nothing, or an HTML error page.
                reqwest::StatusCode::from_u16(status)
                    .ok()
                    .and_then(|s| s.canonical_reason())
                    .unwrap_or("error")
                    .to_string()
            } else {
                text
            }
        });
    let lower = message.to_ascii_lowercase();
    let about_tools =
        lower.contains("tool") || lower.contains("function call") || lower.contains("jinja");
    // llama.cpp refuses some requests with a 500, so any status counts but
    // those about the key or the rate.
    if sent_tools && about_tools && ![401, 403, 429].contains(&status) {
        return AiError::ToolsRefused {
            model: model.to_string(),
            reason: message,
        };
    }
    AiError::Status { status, message }
}
