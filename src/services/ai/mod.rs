//! A small client of OpenAI-compatible Chat Completions servers: OpenAI,
//! Ollama, llama.cpp's server, vLLM, LM Studio (`docs/ai.md`). One endpoint,
//! `POST {AI_BASE_URL}/chat/completions`, whole or streamed.
//!
//! Requests carry text and image parts (images as `data:` URIs, the one form
//! every server takes), optional tools and an optional JSON schema for the
//! answer. Replies are read leniently, since the servers differ in details
//! (see [`stream`]), and every failure is an [`AiError`] that says whether
//! the provider failed (the caller answers 502) or the model's answer
//! cannot be used (422).

pub mod json;
pub mod stream;

use crate::config::{Ai, Secret};
use base64::Engine;
use serde_json::{json, Map, Value};
use std::time::Duration;
pub use stream::StreamEvent;

/// The largest reply read from the provider; an answer is a few KiB.
const MAX_REPLY: usize = 8 * 1024 * 1024;
/// How much of a provider's error text is kept.
const MAX_MESSAGE: usize = 300;

/// Why a call to the provider gave no usable answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AiError {
    /// No connection (refused, DNS, TLS, reset).
    #[error("the AI provider could not be reached ({0})")]
    Unreachable(String),
    /// No answer within `AI_TIMEOUT_SECONDS`.
    #[error("the AI provider did not answer within {0} s (AI_TIMEOUT_SECONDS)")]
    Timeout(u64),
    /// An error status, with the provider's own message.
    #[error("the AI provider answered {status}: {message}")]
    Status { status: u16, message: String },
    /// A reply that is an error object (also mid-stream) or no chat
    /// completion at all.
    #[error("the AI provider failed: {0}")]
    Provider(String),
    /// The server or model does not take tools (llama.cpp without
    /// `--jinja`, vLLM without `--enable-auto-tool-choice`, a model without
    /// function calling).
    #[error("the model {model} does not accept tools here: {reason}")]
    ToolsRefused { model: String, reason: String },
    /// The model answered, but not with anything usable.
    #[error("the AI answer could not be used: {0}")]
    Unusable(String),
}

impl AiError {
    /// Whether the model's answer was the problem (422), not the provider (502).
    pub fn is_unusable_answer(&self) -> bool {
        matches!(self, AiError::Unusable(_))
    }
}

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
    fn from_json(v: &Value) -> Option<Usage> {
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
fn one_line(text: &str) -> String {
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

/// [`AiClient::chat_deadline`] in multiples of `AI_TIMEOUT_SECONDS`.
pub const CHAT_DEADLINE_FACTOR: u32 = 3;

/// The provider, as configured. Cheap to clone.
#[derive(Clone, Debug)]
pub struct AiClient {
    http: reqwest::Client,
    endpoint: String,
    api_key: Secret,
    model: String,
    vision_model: String,
    timeout: Duration,
}

impl AiClient {
    /// `None` when `AI_API_KEY` is not set: AI is off.
    pub fn from_config(ai: &Ai) -> crate::Result<Option<AiClient>> {
        let Some(api_key) = ai.api_key.clone() else {
            return Ok(None);
        };
        // No proxy and no redirects: the operator names the server, and a
        // redirect would turn the POST into a GET or send the key elsewhere.
        let http = reqwest::Client::builder()
            .user_agent(concat!("cashkeeper/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(ai.timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| anyhow::anyhow!("AI client: {e}"))?;
        Ok(Some(AiClient {
            http,
            endpoint: format!("{}/chat/completions", ai.base_url),
            api_key,
            model: ai.model.clone(),
            vision_model: ai.vision_model.clone(),
            timeout: ai.timeout,
        }))
    }

    /// `AI_MODEL`.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// `AI_VISION_MODEL`.
    pub fn vision_model(&self) -> &str {
        &self.vision_model
    }

    /// How long one chat request may take as a whole, all its rounds
    /// included: [`CHAT_DEADLINE_FACTOR`] × `AI_TIMEOUT_SECONDS`. The
    /// timeout alone bounds only each silence of a stream, so a provider
    /// that trickles a byte now and then would otherwise hold the request
    /// forever.
    pub fn chat_deadline(&self) -> Duration {
        self.timeout * CHAT_DEADLINE_FACTOR
    }

    /// One whole answer. With a JSON schema, a server that refuses
    /// `response_format` (400 or 422) is asked once more without it.
    pub async fn complete(&self, req: &ChatRequest) -> Result<Completion, AiError> {
        let with_schema = req.json_schema.is_some();
        match self.complete_once(req, with_schema).await {
            Err(AiError::Status {
                status: 400 | 422, ..
            }) if with_schema => {
                tracing::info!(
                    model = %req.model,
                    "the AI provider refused response_format; asking again without it"
                );
                self.complete_once(req, false).await
            }
            other => other,
        }
    }

    /// A whole answer that must be a JSON object ([`json::extract_object`]
    /// finds it inside fences or prose); anything else is
    /// [`AiError::Unusable`].
    pub async fn complete_json(&self, req: &ChatRequest) -> Result<Map<String, Value>, AiError> {
        let completion = self.complete(req).await?;
        if completion.content.trim().is_empty() {
            let why = match completion.finish_reason.as_deref() {
                Some("length") => "the answer is empty: the model ran out of tokens",
                _ => "the answer is empty",
            };
            return Err(AiError::Unusable(why.into()));
        }
        json::extract_object(&completion.content)
            .ok_or_else(|| AiError::Unusable("the answer holds no JSON object".into()))
    }

    async fn complete_once(
        &self,
        req: &ChatRequest,
        with_schema: bool,
    ) -> Result<Completion, AiError> {
        let body = req.to_wire(false, with_schema);
        let work = async {
            let res = self.send(&body, "application/json").await?;
            let status = res.status().as_u16();
            let bytes = read_capped(res).await?;
            if !(200..300).contains(&status) {
                return Err(status_error(
                    status,
                    &bytes,
                    &req.model,
                    !req.tools.is_empty(),
                ));
            }
            parse_completion(&bytes)
        };
        tokio::time::timeout(self.timeout, work)
            .await
            .unwrap_or(Err(AiError::Timeout(self.timeout.as_secs())))
    }

    /// A streamed answer: `on_event` sees the text as it arrives (and
    /// signs of life while the model reasons); the whole answer comes back
    /// at the end. `AI_TIMEOUT_SECONDS` bounds the wait for the reply and
    /// each silence in it, not the whole answer. A server that ignores
    /// `stream` and answers whole is read as such.
    pub async fn stream(
        &self,
        req: &ChatRequest,
        mut on_event: impl FnMut(StreamEvent),
    ) -> Result<Completion, AiError> {
        let body = req.to_wire(true, req.json_schema.is_some());
        let timeout = || AiError::Timeout(self.timeout.as_secs());
        let mut res = tokio::time::timeout(self.timeout, self.send(&body, "text/event-stream"))
            .await
            .map_err(|_| timeout())??;
        let status = res.status().as_u16();
        let is_json = res
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !(200..300).contains(&status) || is_json {
            let bytes = tokio::time::timeout(self.timeout, read_capped(res))
                .await
                .map_err(|_| timeout())??;
            if !(200..300).contains(&status) {
                return Err(status_error(
                    status,
                    &bytes,
                    &req.model,
                    !req.tools.is_empty(),
                ));
            }
            let completion = parse_completion(&bytes)?;
            if !completion.content.is_empty() {
                on_event(StreamEvent::Text(completion.content.clone()));
            }
            return Ok(completion);
        }
        let mut decoder = stream::SseDecoder::default();
        let mut acc = stream::StreamAccumulator::default();
        let mut received = 0usize;
        while !acc.is_done() {
            let chunk = tokio::time::timeout(self.timeout, res.chunk())
                .await
                .map_err(|_| timeout())?
                .map_err(transport_error)?;
            // The end of the body ends the answer, [DONE] or not.
            let (events, last) = match chunk {
                Some(bytes) => {
                    received += bytes.len();
                    if received > MAX_REPLY {
                        return Err(AiError::Provider("the streamed reply is too long".into()));
                    }
                    (decoder.push(&bytes), false)
                }
                None => (decoder.finish(), true),
            };
            for event in events {
                for e in acc.push(&event)? {
                    on_event(e);
                }
            }
            if last {
                break;
            }
        }
        Ok(acc.finish())
    }

    async fn send(&self, body: &Value, accept: &str) -> Result<reqwest::Response, AiError> {
        self.http
            .post(&self.endpoint)
            .bearer_auth(self.api_key.expose())
            .header(reqwest::header::ACCEPT, accept)
            .json(body)
            .send()
            .await
            .map_err(transport_error)
    }
}

/// The body, at most [`MAX_REPLY`] bytes.
async fn read_capped(mut res: reqwest::Response) -> Result<Vec<u8>, AiError> {
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(transport_error)? {
        if body.len() + chunk.len() > MAX_REPLY {
            return Err(AiError::Provider("the reply is too long".into()));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A reqwest error as an [`AiError`], without the URL, with its causes.
/// (Waiting too long for an answer is [`AiError::Timeout`], decided by the
/// caller's clock; a connection that cannot be made in time is unreachable.)
fn transport_error(e: reqwest::Error) -> AiError {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    AiError::Unreachable(one_line(&text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn an_image_goes_as_a_data_uri_part_and_text_as_a_plain_string() {
        let mut req = ChatRequest::new(
            "llava",
            vec![
                Message::system("Read receipts."),
                Message::user_parts(vec![
                    Part::Text("This one:".into()),
                    Part::ImageUrl(data_uri("image/png", &[0x89, b'P', b'N', b'G'])),
                ]),
            ],
        );
        req.json_schema = Some(JsonSchema {
            name: "receipt".into(),
            schema: json!({"type": "object"}),
        });
        let wire = req.to_wire(false, true);
        assert_eq!(wire["model"], "llava");
        assert_eq!(wire["stream"], false);
        assert_eq!(
            wire["messages"][0],
            json!({"role": "system", "content": "Read receipts."})
        );
        assert_eq!(
            wire["messages"][1]["content"],
            json!([
                {"type": "text", "text": "This one:"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}},
            ])
        );
        assert_eq!(wire["response_format"]["type"], "json_schema");
        assert_eq!(wire["response_format"]["json_schema"]["name"], "receipt");
        assert!(wire.get("tools").is_none() && wire.get("tool_choice").is_none());
        assert!(req.to_wire(false, false).get("response_format").is_none());
    }

    #[test]
    fn replayed_tool_calls_and_results_keep_ids_names_and_never_null_content() {
        let call = ToolCall {
            id: "call_1".into(),
            name: "get_summary".into(),
            arguments: "{}".into(),
        };
        let mut req = ChatRequest::new(
            "m",
            vec![
                Message::assistant("", vec![call.clone()]),
                Message::tool_result(&call, r#"{"total":1}"#),
            ],
        );
        req.tools = vec![Tool {
            name: "get_summary".into(),
            description: "The month's summary".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }];
        let wire = req.to_wire(true, false);
        assert_eq!(wire["stream_options"], json!({"include_usage": true}));
        assert_eq!(wire["messages"][0]["content"], "");
        assert_eq!(
            wire["messages"][0]["tool_calls"][0]["function"]["name"],
            "get_summary"
        );
        assert_eq!(wire["messages"][1]["tool_call_id"], "call_1");
        assert_eq!(wire["messages"][1]["name"], "get_summary");
        assert_eq!(wire["tools"][0]["type"], "function");
        assert_eq!(wire["tools"][0]["function"]["name"], "get_summary");
    }

    #[test]
    fn whole_replies_are_read_leniently() {
        let c = parse_completion(
            br#"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"a\":1}","reasoning_content":"hmm"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8},"timings":{}}"#,
        )
        .unwrap();
        assert_eq!(c.content, r#"{"a":1}"#);
        assert_eq!(c.finish_reason.as_deref(), Some("stop"));
        assert_eq!(c.usage.map(|u| u.total_tokens), Some(8));
        let c = parse_completion(
            br#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":3,"function":{"name":"search","arguments":{"query":"rent"}}},{"function":{"name":"get_summary","arguments":""}}]},"finish_reason":"tool_calls"}]}"#,
        )
        .unwrap();
        assert_eq!(c.content, "");
        assert_eq!(
            c.tool_calls,
            vec![
                ToolCall {
                    id: "3".into(),
                    name: "search".into(),
                    arguments: r#"{"query":"rent"}"#.into()
                },
                ToolCall {
                    id: "call_1".into(),
                    name: "get_summary".into(),
                    arguments: "{}".into()
                },
            ]
        );
        let c = parse_completion(
            br#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}"#,
        )
        .unwrap();
        assert_eq!(c.content, "ab");
    }

    #[test]
    fn a_reply_that_is_no_completion_is_a_provider_failure() {
        for body in [
            &b"<html>Ollama is running</html>"[..],
            br#"{"models":[]}"#,
            br#"{"error":{"message":"quota exceeded"}}"#,
        ] {
            assert!(matches!(parse_completion(body), Err(AiError::Provider(_))));
        }
        assert_eq!(
            parse_completion(br#"{"error":{"message":"quota exceeded"}}"#),
            Err(AiError::Provider("quota exceeded".into()))
        );
    }

    #[test]
    fn error_statuses_carry_the_providers_message() {
        for (body, message) in [
            (&br#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#[..], "Incorrect API key provided"),
            (br#"{"object":"error","message":"The model `x` does not exist.","code":404}"#, "The model `x` does not exist."),
            (br#"{"error":"model \"llava\" not found, try pulling it first"}"#, "model \"llava\" not found, try pulling it first"),
            (br#"{"detail":"Not Found"}"#, "Not Found"),
            (b"upstream connect error", "upstream connect error"),
            (b"<html><body>Bad Gateway</body></html>", "Bad Gateway"),
            (b"", "Bad Gateway"),
        ] {
            assert_eq!(
                status_error(502, body, "m", false),
                AiError::Status { status: 502, message: message.into() },
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        let long = format!(r#"{{"error":{{"message":"{}"}}}}"#, "x".repeat(1000));
        let AiError::Status { message, .. } = status_error(400, long.as_bytes(), "m", false) else {
            panic!("a status error")
        };
        assert!(message.chars().count() <= MAX_MESSAGE + 1, "cut short");
    }

    #[test]
    fn a_server_refusing_tools_is_named_with_the_model_and_the_reason() {
        for (status, body) in [
            (500, &br#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#[..]),
            (400, br#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400}"#),
            (400, br#"{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}"#),
        ] {
            let err = status_error(status, body, "gemma:2b", true);
            let AiError::ToolsRefused { model, reason } = &err else {
                panic!("{err:?}")
            };
            assert_eq!(model, "gemma:2b");
            assert!(reason.contains("tool"), "{reason}");
            assert!(err.to_string().starts_with("the model gemma:2b does not accept tools"), "{err}");
        }
        // Without tools sent, or for a missing key, it is just the status.
        let body = br#"{"error":{"message":"does not support tools"}}"#;
        assert!(matches!(
            status_error(400, body, "m", false),
            AiError::Status { .. }
        ));
        assert!(matches!(
            status_error(401, body, "m", true),
            AiError::Status { .. }
        ));
    }

    /// A loopback server answering `/chat/completions` with `replies` in
    /// turn (status, content type, body); records each request body.
    async fn provider(
        replies: Vec<(u16, &'static str, String)>,
    ) -> (String, Arc<Mutex<Vec<Value>>>) {
        let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
        let log = seen.clone();
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move |body: axum::body::Bytes| {
                let (log, replies) = (log.clone(), replies.clone());
                async move {
                    log.lock()
                        .unwrap()
                        .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
                    let (status, kind, body) = replies.lock().unwrap().next().unwrap();
                    (
                        axum::http::StatusCode::from_u16(status).unwrap(),
                        [(axum::http::header::CONTENT_TYPE, kind)],
                        body,
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (format!("http://{addr}/v1"), seen)
    }

    fn client(base_url: &str) -> AiClient {
        let config = Ai {
            api_key: Some(Secret::new("sk-test")),
            base_url: base_url.to_string(),
            model: "m".into(),
            vision_model: "v".into(),
            timeout: Duration::from_secs(30),
        };
        AiClient::from_config(&config).unwrap().unwrap()
    }

    #[tokio::test]
    async fn a_refused_response_format_is_asked_again_without_it() {
        let (base, seen) = provider(vec![
            (400, "application/json", r#"{"error":{"message":"response_format type must be one of \"text\" or \"json_object\""}}"#.into()),
            (200, "application/json", r#"{"choices":[{"message":{"content":"```json\n{\"ok\":true}\n```"}}]}"#.into()),
        ])
        .await;
        let mut req = ChatRequest::new("v", vec![Message::user("JSON please")]);
        req.json_schema = Some(JsonSchema {
            name: "x".into(),
            schema: json!({"type": "object"}),
        });
        let answer = client(&base).complete_json(&req).await.unwrap();
        assert_eq!(Value::Object(answer), json!({"ok": true}));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 2);
        assert!(seen[0].get("response_format").is_some());
        assert!(seen[1].get("response_format").is_none());
    }

    #[tokio::test]
    async fn a_streamed_answer_arrives_in_pieces_and_whole() {
        let sse = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","reasoning":"hm"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#,
            "[DONE]",
        ]
        .iter()
        .map(|d| format!("data: {d}\n\n"))
        .collect::<String>();
        let (base, seen) = provider(vec![
            (200, "text/event-stream", sse),
            (
                200,
                "application/json",
                r#"{"choices":[{"message":{"content":"whole"}}]}"#.into(),
            ),
            (
                200,
                "text/event-stream",
                "data: {\"error\":{\"message\":\"overloaded\"}}\n\n".into(),
            ),
        ])
        .await;
        let ai = client(&base);
        let req = ChatRequest::new("m", vec![Message::user("hi")]);
        let mut events = Vec::new();
        let c = ai.stream(&req, |e| events.push(e)).await.unwrap();
        assert_eq!(c.content, "Hello");
        assert_eq!(c.usage.map(|u| u.total_tokens), Some(5));
        assert_eq!(
            events,
            vec![
                StreamEvent::Thinking,
                StreamEvent::Text("Hel".into()),
                StreamEvent::Text("lo".into())
            ]
        );
        assert_eq!(seen.lock().unwrap()[0]["stream"], true);
        // A server that ignores `stream` and answers whole.
        let mut events = Vec::new();
        let c = ai.stream(&req, |e| events.push(e)).await.unwrap();
        assert_eq!(c.content, "whole");
        assert_eq!(events, vec![StreamEvent::Text("whole".into())]);
        // An error in the stream.
        assert_eq!(
            ai.stream(&req, |_| {}).await,
            Err(AiError::Provider("overloaded".into()))
        );
    }

    #[tokio::test]
    async fn a_closed_port_is_unreachable() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let err = client(&format!("http://127.0.0.1:{port}/v1"))
            .complete(&ChatRequest::new("m", vec![Message::user("hi")]))
            .await
            .unwrap_err();
        assert!(matches!(err, AiError::Unreachable(_)), "{err:?}");
        assert!(!err.is_unusable_answer());
    }
}
