//! `POST /api/chat` and the conversations against an AI provider the test
//! runs on loopback: a real HTTP server speaking the OpenAI wire format in
//! two dialects (OpenAI: tool-call arguments in fragments with `index` and
//! `id`; Ollama: whole tool calls in one chunk, no `index`), recording what
//! it receives and answering scripted turns.

use crate::helpers::*;
use cashkeeper::config::Secret;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How the provider streams tool calls.
#[derive(Clone, Copy)]
pub enum Dialect {
    OpenAi,
    Ollama,
}

/// One scripted turn of the provider.
pub enum Turn {
    /// Answers this text.
    Text(String),
    /// Calls these tools: `(name, arguments as JSON text)`.
    Calls(Vec<(String, String)>),
    /// Answers this status and body (before any stream).
    Status(u16, String),
    /// Starts streaming this text, then sends an error object.
    BreaksOff(String),
    /// Never answers.
    Hang,
}

pub struct ChatProvider {
    pub base_url: String,
    turns: Arc<Mutex<VecDeque<Turn>>>,
    requests: Arc<Mutex<Vec<(String, Value)>>>,
}

fn sse(chunks: &[Value]) -> String {
    let mut out = String::new();
    for c in chunks {
        out.push_str(&format!("data: {c}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "c", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// The turn as a streamed body in `dialect`.
fn streamed(turn: &Turn, dialect: Dialect) -> (u16, &'static str, String) {
    match turn {
        Turn::Text(text) => {
            let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
            // Words one by one, and a reasoning delta that must not show.
            chunks.push(chunk(json!({"reasoning_content": "thinking…"}), None));
            for (i, word) in text.split(' ').enumerate() {
                let piece = if i == 0 {
                    word.to_string()
                } else {
                    format!(" {word}")
                };
                chunks.push(chunk(json!({"content": piece}), None));
            }
            chunks.push(chunk(json!({}), Some("stop")));
            chunks.push(json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}));
            (200, "text/event-stream", sse(&chunks))
        }
        Turn::Calls(calls) => {
            let mut chunks = Vec::new();
            match dialect {
                Dialect::OpenAi => {
                    for (i, (name, args)) in calls.iter().enumerate() {
                        chunks.push(chunk(
                            json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function",
                                                   "function": {"name": name, "arguments": ""}}]}),
                            None,
                        ));
                        let mid = args.len() / 2;
                        for part in [&args[..mid], &args[mid..]] {
                            chunks.push(chunk(
                                json!({"tool_calls": [{"index": i, "function": {"arguments": part}}]}),
                                None,
                            ));
                        }
                    }
                }
                Dialect::Ollama => {
                    let whole: Vec<Value> = calls
                        .iter()
                        .enumerate()
                        .map(|(i, (name, args))| {
                            json!({"id": format!("call_{i}"), "function": {"name": name, "arguments": serde_json::from_str::<Value>(args).unwrap()}})
                        })
                        .collect();
                    chunks.push(chunk(
                        json!({"role": "assistant", "content": "", "tool_calls": whole}),
                        None,
                    ));
                }
            }
            chunks.push(chunk(json!({}), Some("tool_calls")));
            (200, "text/event-stream", sse(&chunks))
        }
        Turn::Status(status, body) => (*status, "application/json", body.clone()),
        Turn::Hang => unreachable!("a hanging turn never answers"),
        Turn::BreaksOff(text) => {
            let chunks = [
                format!("data: {}\n\n", chunk(json!({"content": text}), None)),
                "data: {\"error\":{\"message\":\"model runner crashed\"}}\n\n".to_string(),
            ];
            (200, "text/event-stream", chunks.concat())
        }
    }
}

/// The turn as one JSON completion.
fn whole(turn: &Turn) -> (u16, &'static str, String) {
    let message = match turn {
        Turn::Text(text) => json!({"role": "assistant", "content": text}),
        Turn::Calls(calls) => {
            json!({"role": "assistant", "content": null, "tool_calls": calls.iter().enumerate().map(|(i, (name, args))| json!({"id": format!("call_{i}"), "type": "function", "function": {"name": name, "arguments": args}})).collect::<Vec<_>>()})
        }
        Turn::Status(status, body) => return (*status, "application/json", body.clone()),
        Turn::Hang => unreachable!("a hanging turn never answers"),
        Turn::BreaksOff(_) => {
            return (
                500,
                "application/json",
                r#"{"error":{"message":"broken"}}"#.into(),
            )
        }
    };
    let body = json!({"id": "c", "object": "chat.completion", "model": "m",
                      "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]});
    (200, "application/json", body.to_string())
}

impl ChatProvider {
    pub async fn start(dialect: Dialect) -> ChatProvider {
        let turns: Arc<Mutex<VecDeque<Turn>>> = Arc::default();
        let requests: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
        let (script, log) = (turns.clone(), requests.clone());
        let app = axum::Router::new()
            .route(
                "/v1/chat/completions",
                axum::routing::post(
                    move |headers: axum::http::HeaderMap, body: axum::body::Bytes| {
                        let (script, log) = (script.clone(), log.clone());
                        async move {
                            let auth = headers
                                .get("authorization")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or("")
                                .to_string();
                            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                            let stream = body["stream"] == true;
                            log.lock().unwrap().push((auth, body));
                            let turn = script.lock().unwrap().pop_front();
                            if matches!(turn, Some(Turn::Hang)) {
                                std::future::pending::<()>().await;
                            }
                            let (status, ct, text) = match turn {
                                Some(t) if stream => streamed(&t, dialect),
                                Some(t) => whole(&t),
                                None => (
                                    500,
                                    "application/json",
                                    r#"{"error":{"message":"nothing scripted"}}"#.to_string(),
                                ),
                            };
                            (
                                StatusCode::from_u16(status).unwrap(),
                                [("content-type", ct)],
                                text,
                            )
                        }
                    },
                ),
            )
            .layer(axum::extract::DefaultBodyLimit::disable());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        ChatProvider {
            base_url: format!("http://{addr}/v1"),
            turns,
            requests,
        }
    }

    pub fn then(&self, turn: Turn) -> &ChatProvider {
        self.turns.lock().unwrap().push_back(turn);
        self
    }

    pub fn requests(&self) -> Vec<(String, Value)> {
        self.requests.lock().unwrap().clone()
    }
}

/// The app with AI pointed at `base_url`.
pub async fn app_with_chat(base_url: &str) -> TestApp {
    let base_url = base_url.to_string();
    spawn_app_with(move |c| {
        c.ai.api_key = Some(Secret::new("sk-chat-key"));
        c.ai.base_url = base_url;
        c.ai.model = "test-chat".into();
    })
    .await
}

/// A server-sent event as received.
#[derive(Debug)]
pub struct Received {
    pub event: String,
    pub data: Value,
}

/// Posts a chat request asking for a stream and reads every event.
pub async fn chat_stream(
    app: &TestApp,
    user: &TestUser,
    body: Value,
) -> (StatusCode, Vec<Received>) {
    let res = app
        .client
        .post(app.url("/api/chat"))
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = res.status();
    if status == 200 {
        assert_eq!(res.headers()["content-type"], "text/event-stream");
        assert_eq!(res.headers()["x-accel-buffering"], "no");
    }
    let text = res.text().await.unwrap();
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let (mut event, mut data) = (String::new(), String::new());
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("event:") {
                event = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push_str(v.trim_start());
            }
        }
        if !event.is_empty() {
            events.push(Received {
                event,
                data: serde_json::from_str(&data).unwrap_or(Value::Null),
            });
        }
    }
    (status, events)
}

async fn chat_json(
    app: &TestApp,
    cookie: Option<&str>,
    body: &str,
) -> (StatusCode, Value, reqwest::header::HeaderMap) {
    let mut req = app
        .client
        .post(app.url("/api/chat"))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(c) = cookie {
        req = req.header("cookie", format!("cashkeeper_session={c}"));
    }
    let res = req.send().await.unwrap();
    let (status, headers) = (res.status(), res.headers().clone());
    (status, res.json().await.unwrap_or(Value::Null), headers)
}

fn ask(text: &str) -> Value {
    json!({"messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn a_streamed_answer_comes_word_by_word_and_is_stored() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Tagesgeld", "EUR").await;
    provider.then(Turn::Text("Hallo! Wie kann ich helfen?".into()));

    let (status, events) = chat_stream(&app, &user, ask("Hallo")).await;
    assert_eq!(status, 200);
    assert_eq!(events[0].event, "conversation");
    let conversation = events[0].data["id"].as_str().unwrap().to_string();
    let text: String = events
        .iter()
        .filter(|e| e.event == "delta")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hallo! Wie kann ich helfen?", "reasoning stays out");
    assert!(
        events.iter().filter(|e| e.event == "delta").count() > 1,
        "streamed in pieces"
    );
    let done = events.last().unwrap();
    assert_eq!(done.event, "done");

    // The provider got the model, the key, the tools' place and a system
    // prompt naming today, the base currency and the accounts.
    let (auth, sent) = &provider.requests()[0];
    assert_eq!(auth, "Bearer sk-chat-key");
    assert_eq!(sent["model"], "test-chat");
    assert_eq!(sent["stream"], true);
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains(&app.state.clock.today().to_string()),
        "{system}"
    );
    assert!(
        system.contains("EUR") && system.contains("Tagesgeld"),
        "{system}"
    );
    assert_eq!(
        sent["messages"][1],
        json!({"role": "user", "content": "Hallo"})
    );

    let conv = app
        .ok(&user, "getConversation", json!({"id": conversation}))
        .await;
    assert_eq!(conv["title"], "Hallo");
    let roles: Vec<&str> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(
        conv["messages"][1]["content"],
        "Hallo! Wie kann ich helfen?"
    );
    assert_eq!(conv["messages"][1]["id"], done.data["messageId"]);
    let list = app.ok(&user, "listConversations", json!({})).await;
    assert_eq!(list[0]["id"], conversation.as_str());
}

#[tokio::test]
async fn a_continued_conversation_sends_the_history_and_answers_as_json_without_a_stream() {
    let provider = ChatProvider::start(Dialect::Ollama).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    provider.then(Turn::Text("Erste Antwort".into()));
    provider.then(Turn::Text("Zweite Antwort".into()));
    let (status, first, _) =
        chat_json(&app, Some(&user.cookie), &ask("Erste Frage").to_string()).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["message"]["role"], "assistant");
    assert_eq!(first["message"]["content"], "Erste Antwort");
    assert_eq!(first["toolCalls"], json!([]));
    assert_eq!(first["previews"], json!([]));
    let id = first["conversationId"].as_str().unwrap();
    let body =
        json!({"conversationId": id, "messages": [{"role": "user", "content": "Zweite Frage"}]});
    let (status, second, _) = chat_json(&app, Some(&user.cookie), &body.to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(second["conversationId"], id);
    let sent = &provider.requests()[1].1;
    let replay: Vec<(&str, &str)> = sent["messages"].as_array().unwrap()[1..]
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        replay,
        [
            ("user", "Erste Frage"),
            ("assistant", "Erste Antwort"),
            ("user", "Zweite Frage")
        ]
    );
    assert_eq!(sent["stream"], false);

    // Another user's conversation is an unknown one, for the route and the actions.
    let other = app.new_user().await;
    let (status, body, _) = chat_json(
        &app,
        Some(&other.cookie),
        &json!({"conversationId": id, "messages": [{"role": "user", "content": "x"}]}).to_string(),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    for action in ["getConversation", "deleteConversation"] {
        let r = app
            .action(action, json!({"id": id}), Some(&other.cookie))
            .await;
        assert_eq!(r.error(), Some("not found"), "{action}");
    }
    assert!(app
        .ok(&other, "listConversations", json!({}))
        .await
        .as_array()
        .unwrap()
        .is_empty());
    app.ok(&user, "deleteConversation", json!({"id": id})).await;
    let r = app
        .action("getConversation", json!({"id": id}), Some(&user.cookie))
        .await;
    assert_eq!(r.error(), Some("not found"));
}

#[tokio::test]
async fn the_checks_come_in_order_session_key_rate_then_body() {
    let no_ai = spawn_app().await;
    let (status, body, _) = chat_json(&no_ai, None, "not json").await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "unauthorized");
    let user = no_ai.new_user().await;
    let (status, body, _) = chat_json(&no_ai, Some(&user.cookie), "not json").await;
    assert_eq!(status, 503);
    assert!(body["error"].as_str().unwrap().contains("AI_API_KEY"));

    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    for (body, field) in [
        ("not json", "body: "),
        ("{}", "messages: "),
        (
            r#"{"messages":[{"role":"tool","content":"x"}]}"#,
            "messages[0].role: ",
        ),
        (
            r#"{"messages":[{"role":"user","content":""}]}"#,
            "messages[0].content: ",
        ),
    ] {
        let (status, reply, _) = chat_json(&app, Some(&user.cookie), body).await;
        assert_eq!(status, 400, "{body}");
        assert!(
            reply["error"].as_str().unwrap().starts_with(field),
            "{reply}"
        );
    }
    // 4 requests so far; 16 more reach the limit, the 21st is refused.
    for _ in 0..16 {
        let (status, _, _) = chat_json(&app, Some(&user.cookie), "{}").await;
        assert_eq!(status, 400);
    }
    let (status, reply, headers) = chat_json(&app, Some(&user.cookie), &ask("x").to_string()).await;
    assert_eq!(status, 429, "{reply}");
    let wait: i64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait));
    // Another user is not limited by the first.
    let other = app.new_user().await;
    let (status, _, _) = chat_json(&app, Some(&other.cookie), "{}").await;
    assert_eq!(status, 400);
    assert!(
        provider.requests().is_empty(),
        "nothing refused reached the provider"
    );
}

#[tokio::test]
async fn a_failing_provider_is_a_502_or_an_error_event_and_the_server_lives_on() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    provider.then(Turn::Status(
        500,
        r#"{"error":{"message":"out of memory"}}"#.into(),
    ));
    let (status, body, _) = chat_json(&app, Some(&user.cookie), &ask("Hallo").to_string()).await;
    assert_eq!(status, 502);
    assert!(
        body["error"].as_str().unwrap().contains("out of memory"),
        "{body}"
    );

    provider.then(Turn::Status(
        500,
        r#"{"error":{"message":"out of memory"}}"#.into(),
    ));
    let (status, events) = chat_stream(&app, &user, ask("Hallo")).await;
    assert_eq!(status, 200);
    assert_eq!(events.last().unwrap().event, "error");

    provider.then(Turn::BreaksOff("Ich sehe".into()));
    let (_, events) = chat_stream(&app, &user, ask("Und jetzt?")).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names, ["conversation", "delta", "error"]);
    assert!(events[2].data["error"]
        .as_str()
        .unwrap()
        .contains("model runner crashed"));

    // A server that refuses tools: the person is told which model and why.
    provider.then(Turn::Status(
        400,
        r#"{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools"}}"#
            .into(),
    ));
    let (_, events) = chat_stream(&app, &user, ask("Hallo")).await;
    let error = events.last().unwrap().data["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("test-chat") && error.contains("does not support tools"),
        "{error}"
    );

    provider.then(Turn::Text("Wieder da.".into()));
    let (status, body, _) = chat_json(&app, Some(&user.cookie), &ask("Hallo?").to_string()).await;
    assert_eq!(status, 200);
    assert_eq!(body["message"]["content"], "Wieder da.");
}

/// The tool messages of the provider's `n`-th request.
fn tool_messages(provider: &ChatProvider, n: usize) -> Vec<Value> {
    provider.requests()[n].1["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_read_tool_runs_on_the_users_numbers_and_its_result_goes_back_to_the_model() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    provider.then(Turn::Calls(vec![("list_accounts".into(), "{}".into())]));
    provider.then(Turn::Text("Auf dem Girokonto sind 1.000,00 €.".into()));

    let (_, events) = chat_stream(&app, &user, ask("Wie viel habe ich?")).await;
    let tool = events
        .iter()
        .find(|e| e.event == "tool")
        .expect("a tool event");
    assert_eq!(tool.data["name"], "list_accounts");
    assert!(!tool.data["summary"].as_str().unwrap().is_empty());
    assert_eq!(events.last().unwrap().event, "done");

    let first = &provider.requests()[0].1;
    let tools = first["tools"].as_array().unwrap();
    assert!(tools
        .iter()
        .all(|t| t["type"] == "function" && t["function"]["parameters"]["type"] == "object"));
    assert!(tools
        .iter()
        .any(|t| t["function"]["name"] == "create_daily_expense"));
    let results = tool_messages(&provider, 1);
    assert_eq!(results[0]["tool_call_id"], "call_0");
    let content = results[0]["content"].as_str().unwrap();
    assert!(
        content.contains("Girokonto") && content.contains("1000"),
        "{content}"
    );
    // The assistant message replayed carries the call, its arguments whole.
    let replayed = &provider.requests()[1].1["messages"];
    let call = replayed
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(call["tool_calls"][0]["function"]["name"], "list_accounts");
    assert_eq!(call["tool_calls"][0]["function"]["arguments"], "{}");

    let conv = app
        .ok(
            &user,
            "getConversation",
            json!({"id": events[0].data["id"]}),
        )
        .await;
    let roles: Vec<&str> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(conv["messages"][1]["toolCalls"][0]["name"], "list_accounts");
}

#[tokio::test]
async fn a_proposed_expense_is_not_written_until_confirmed_with_the_ordinary_action() {
    let provider = ChatProvider::start(Dialect::Ollama).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    let args = json!({"name": "Bäckerei", "amount": "12.40", "date": today, "accountId": account});
    provider.then(Turn::Calls(vec![(
        "create_daily_expense".into(),
        args.to_string(),
    )]));
    provider.then(Turn::Text(
        "Ich habe die Ausgabe vorbereitet; bitte bestätigen.".into(),
    ));

    let (_, events) = chat_stream(&app, &user, ask("Trag 12,40 beim Bäcker ein")).await;
    let preview = events
        .iter()
        .find(|e| e.event == "preview")
        .expect("a preview");
    assert_eq!(preview.data["tool"], "create_daily_expense");
    assert_eq!(preview.data["preview"]["valid"], true);
    let told = tool_messages(&provider, 1);
    let told: Value = serde_json::from_str(told[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(told["proposed"], true);
    assert!(
        app.ok(&user, "listDailyExpenses", json!({}))
            .await
            .as_array()
            .unwrap()
            .is_empty(),
        "nothing is written before Confirm"
    );

    // Confirm: the page sends the arguments to the ordinary action.
    let saved = app
        .ok(
            &user,
            "createDailyExpense",
            preview.data["arguments"].clone(),
        )
        .await;
    assert_eq!(saved["name"], "Bäckerei");
    assert_eq!(saved["amount"], 12.4);
    let listed = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn six_tool_rounds_at_most_and_a_failing_tool_is_told_to_the_model() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    provider.then(Turn::Calls(vec![("no_such_tool".into(), "{}".into())]));
    for _ in 0..5 {
        provider.then(Turn::Calls(vec![("list_accounts".into(), "{}".into())]));
    }
    provider.then(Turn::Text("Fertig.".into()));
    let (status, body, _) = chat_json(&app, Some(&user.cookie), &ask("Los").to_string()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"]["content"], "Fertig.");
    let requests = provider.requests();
    assert_eq!(requests.len(), 7);
    assert!(requests[5].1["tools"].is_array());
    assert!(
        requests[6].1.get("tools").is_none(),
        "the last round offers no tools"
    );
    let failed: Value =
        serde_json::from_str(tool_messages(&provider, 1)[0]["content"].as_str().unwrap()).unwrap();
    assert!(
        failed["error"].as_str().unwrap().contains("no_such_tool"),
        "{failed}"
    );
    assert_eq!(body["toolCalls"].as_array().unwrap().len(), 5);
}

/// A provider on a bare socket: it answers one streamed request with a
/// first word and then keeps the stream open, and reports when the other
/// side closes the connection.
async fn provider_that_keeps_streaming() -> (String, tokio::sync::oneshot::Receiver<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (closed_tx, closed_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        // Read the request head and its body (sent at once by the client).
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = Vec::new();
        loop {
            let n = socket.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got);
            if let Some(end) = text.find("\r\n\r\n") {
                let len: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if got.len() >= end + 4 + len {
                    break;
                }
            }
        }
        let first = format!("data: {}\n\n", chunk(json!({"content": "Moment"}), None));
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        socket.write_all(head.as_bytes()).await.unwrap();
        socket
            .write_all(format!("{:x}\r\n{first}\r\n", first.len()).as_bytes())
            .await
            .unwrap();
        // Nothing more is sent; the read ends when the client hangs up.
        let _ = socket.read(&mut buf).await;
        let _ = closed_tx.send(());
    });
    (format!("http://{addr}/v1"), closed_rx)
}

#[tokio::test]
async fn a_person_who_leaves_cancels_the_providers_request() {
    let (base_url, closed) = provider_that_keeps_streaming().await;
    let app = app_with_chat(&base_url).await;
    let user = app.new_user().await;
    let mut res = app
        .client
        .post(app.url("/api/chat"))
        .header("cookie", format!("cashkeeper_session={}", user.cookie))
        .header("content-type", "application/json")
        .header("accept", "text/event-stream")
        .body(ask("Erzähl mir alles").to_string())
        .send()
        .await
        .unwrap();
    // Read until the first word has come through, then leave.
    let mut seen = String::new();
    while !seen.contains("Moment") {
        let chunk = res.chunk().await.unwrap().expect("the stream goes on");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(res);
    // The service drops the provider's request at once (AI_TIMEOUT_SECONDS
    // is 120 s: without the cancellation the socket would stay open).
    tokio::time::timeout(std::time::Duration::from_secs(30), closed)
        .await
        .expect("the provider's connection was closed")
        .unwrap();
}
