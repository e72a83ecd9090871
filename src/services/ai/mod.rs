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
mod wire;

use crate::config::{Ai, Secret};
use serde_json::{Map, Value};
use std::time::Duration;
pub use stream::StreamEvent;
pub use wire::*;

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
        let http = crate::outbound::http_client()
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
    use serde_json::json;
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
