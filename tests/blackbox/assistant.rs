//! `POST /api/chat` and the conversations against an AI provider the test
//! runs on loopback: a real HTTP server speaking the OpenAI wire format in
//! two dialects (OpenAI: tool-call arguments in fragments with `index` and
//! `id`; Ollama: whole tool calls in one chunk, no `index`), recording what
//! it receives and answering scripted turns.

use crate::support::*;
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
    assert_eq!(
        body["error"], "The AI service cannot be reached right now. Try again later.",
        "a plain sentence; the provider's words are for the log: {body}"
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
    assert_eq!(
        events[2].data["error"],
        "The AI service cannot be reached right now. Try again later."
    );

    // A server that refuses tools: the person is told that the model
    // cannot look things up and who can change it; the log says which
    // model and why.
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
        error.contains("cannot look things up") && error.contains("AI_MODEL"),
        "{error}"
    );
    assert!(!error.contains("does not support tools"), "{error}");

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
async fn a_reopened_conversation_shows_what_was_looked_up_as_it_did_live() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    provider.then(Turn::Calls(vec![("list_accounts".into(), "{}".into())]));
    provider.then(Turn::Text("Auf dem Girokonto sind 1.000,00 €.".into()));
    let (_, events) = chat_stream(&app, &user, ask("Wie viel habe ich?")).await;
    let summary = events
        .iter()
        .find(|e| e.event == "tool")
        .expect("a tool event")
        .data["summary"]
        .as_str()
        .unwrap()
        .to_string();
    let id = events[0].data["id"].as_str().unwrap().to_string();
    let page = conversation_page(&app, &user, &id).await;
    let line = format!("<p class=\"msg-tool\">{}</p>", html_escape(&summary));
    assert!(page.contains(&line), "{line} in {page}");
    assert!(!page.contains("list_accounts"), "{page}");
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
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

/// A conversation in which the model proposed a one-time expense of 12.40
/// at the bakery today; the proposal as the streamed preview carries it.
async fn proposed(app: &TestApp, provider: &ChatProvider, user: &TestUser) -> Value {
    let account = app.account(user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    let args = json!({"name": "Bäckerei", "amount": "12.40", "date": today, "accountId": account});
    provider.then(Turn::Calls(vec![(
        "create_daily_expense".into(),
        args.to_string(),
    )]));
    provider.then(Turn::Text("Bitte bestätigen.".into()));
    let (_, events) = chat_stream(app, user, ask("Trag 12,40 beim Bäcker ein")).await;
    let conversation = events[0].data["id"].clone();
    let mut preview = events
        .into_iter()
        .find(|e| e.event == "preview")
        .expect("a preview")
        .data;
    preview["conversationId"] = conversation;
    preview
}

async fn daily_expenses(app: &TestApp, user: &TestUser) -> Vec<Value> {
    app.ok(user, "listDailyExpenses", json!({}))
        .await
        .as_array()
        .unwrap()
        .clone()
}

/// A proposal confirmed books its expense as a save does: a budget it
/// overspends is under Insights at once, not after the morning's job.
#[tokio::test]
async fn a_confirmed_proposal_that_overspends_a_budget_is_an_insight_at_once() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let food = app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        &user,
        "setBudget",
        json!({"categoryId": food, "amount": 10}),
    )
    .await;
    let today = app.state.clock.today().to_string();
    let args = json!({"name": "Bäckerei", "amount": "12.40", "date": today,
                      "accountId": account, "categoryId": food});
    provider.then(Turn::Calls(vec![(
        "create_daily_expense".into(),
        args.to_string(),
    )]));
    provider.then(Turn::Text("Bitte bestätigen.".into()));
    let (_, events) = chat_stream(&app, &user, ask("Trag 12,40 beim Bäcker ein")).await;
    let preview = events
        .into_iter()
        .find(|e| e.event == "preview")
        .expect("a preview")
        .data;
    let warnings = || async {
        app.ok(&user, "listInsights", json!({}))
            .await
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "budget_warning" && i["metadata"]["categoryId"] == food)
            .cloned()
            .collect::<Vec<Value>>()
    };
    assert_eq!(warnings().await, Vec::<Value>::new());
    app.ok(
        &user,
        "confirmProposal",
        json!({ "proposalId": preview["proposalId"] }),
    )
    .await;
    let over = warnings().await;
    assert_eq!(over.len(), 1, "{over:?}");
    assert_eq!(over[0]["metadata"]["amount"], "12.40");
    assert_eq!(over[0]["metadata"]["limit"], "10.00");
}

async fn conversation_page(app: &TestApp, user: &TestUser, id: &str) -> String {
    let res = app
        .get(&format!("/assistant?c={id}"), Some(&user.cookie))
        .await;
    assert_eq!(res.status(), 200);
    res.text().await.unwrap()
}

#[tokio::test]
async fn a_confirmed_proposal_is_booked_once_and_shows_saved_after_a_reload() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let preview = proposed(&app, &provider, &user).await;
    let proposal = preview["proposalId"]
        .as_str()
        .expect("the preview carries proposalId");
    assert!(daily_expenses(&app, &user).await.is_empty());

    let saved = app
        .ok(&user, "confirmProposal", json!({ "proposalId": proposal }))
        .await;
    assert_eq!(saved["proposalId"], proposal);
    assert_eq!(saved["state"], "saved");
    let record = saved["recordId"].as_str().unwrap().to_string();
    let booked = daily_expenses(&app, &user).await;
    assert_eq!(booked.len(), 1);
    assert_eq!(booked[0]["id"], record.as_str());
    assert_eq!(booked[0]["name"], "Bäckerei");
    assert_eq!(booked[0]["amount"], 12.4);

    // A second Confirm (another tab, a reload) books nothing and says why.
    let again = app
        .action(
            "confirmProposal",
            json!({ "proposalId": proposal }),
            Some(&user.cookie),
        )
        .await;
    assert!(!again.ok(), "{}", again.body);
    // Said in words, the record beside them for the page to link, never
    // its id in the words.
    assert_eq!(
        again.error(),
        Some("proposalId: This proposal is saved already, in another tab or before"),
        "{}",
        again.body
    );
    assert_eq!(again.body["state"], "saved", "{}", again.body);
    assert_eq!(again.body["recordId"], record.as_str(), "{}", again.body);
    assert_eq!(daily_expenses(&app, &user).await.len(), 1);

    // Reopened, the conversation knows the proposal was booked.
    let id = preview["conversationId"].as_str().unwrap();
    let conv = app.ok(&user, "getConversation", json!({ "id": id })).await;
    let proposals: Vec<&Value> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["proposals"].as_array().unwrap())
        .collect();
    assert_eq!(proposals.len(), 1, "{conv}");
    assert_eq!(proposals[0]["id"], proposal);
    assert_eq!(proposals[0]["tool"], "create_daily_expense");
    assert_eq!(proposals[0]["state"], "saved");
    assert_eq!(proposals[0]["recordId"], record.as_str());
    assert_eq!(proposals[0]["arguments"]["name"], "Bäckerei");
    let page = conversation_page(&app, &user, id).await;
    assert!(page.contains("proposal-state saved"), "{page}");
    assert!(page.contains("Saved."));
    assert!(page.contains("Open: Bäckerei"));
    assert!(
        !page.contains("button class=\"link review\""),
        "no Confirm for a booked proposal"
    );
}

#[tokio::test]
async fn a_discarded_proposal_cannot_be_confirmed_and_the_json_reply_carries_its_id() {
    let provider = ChatProvider::start(Dialect::Ollama).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.set_locale_to(&user, "de").await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let today = app.state.clock.today().to_string();
    provider.then(Turn::Calls(vec![(
        "create_daily_expense".into(),
        json!({"name": "Kiosk", "amount": "3.50", "date": today, "accountId": account}).to_string(),
    )]));
    provider.then(Turn::Text("Bitte bestätigen.".into()));
    let (status, body, _) =
        chat_json(&app, Some(&user.cookie), &ask("Kiosk 3,50").to_string()).await;
    assert_eq!(status, 200, "{body}");
    let proposal = body["previews"][0]["proposalId"]
        .as_str()
        .expect("the JSON reply's preview carries proposalId")
        .to_string();

    let page = conversation_page(&app, &user, body["conversationId"].as_str().unwrap()).await;
    assert!(
        page.contains(&format!("data-proposal=\"{proposal}\"")),
        "a pending proposal can be looked at and confirmed"
    );
    let discarded = app
        .ok(&user, "discardProposal", json!({ "proposalId": proposal }))
        .await;
    assert_eq!(
        discarded,
        json!({"proposalId": proposal, "state": "discarded"})
    );
    let refused = app
        .action(
            "confirmProposal",
            json!({ "proposalId": proposal }),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(
        refused.error(),
        Some("proposalId: Dieser Vorschlag ist schon verworfen, in einem anderen Tab oder zuvor"),
        "{}",
        refused.body
    );
    assert_eq!(refused.body["state"], "discarded", "{}", refused.body);
    assert!(daily_expenses(&app, &user).await.is_empty());
    let conv = app
        .ok(
            &user,
            "getConversation",
            json!({ "id": body["conversationId"] }),
        )
        .await;
    assert_eq!(conv["messages"][1]["proposals"][0]["state"], "discarded");
    assert_eq!(conv["messages"][1]["proposals"][0]["recordId"], Value::Null);
    let page = conversation_page(&app, &user, body["conversationId"].as_str().unwrap()).await;
    assert!(page.contains("proposal-state discarded"), "{page}");
    assert!(page.contains("Verworfen."));
    assert!(!page.contains(&format!("data-proposal=\"{proposal}\"")));
    let missing = app
        .action("confirmProposal", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(missing.error(), Some("proposalId: bitte ausfüllen"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_confirms_at_once_book_one_record() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let preview = proposed(&app, &provider, &user).await;
    let body = json!({ "proposalId": preview["proposalId"] });
    let (a, b) = tokio::join!(
        app.action("confirmProposal", body.clone(), Some(&user.cookie)),
        app.action("confirmProposal", body.clone(), Some(&user.cookie)),
    );
    let oks = [&a, &b].iter().filter(|r| r.ok()).count();
    assert_eq!(oks, 1, "{} / {}", a.body, b.body);
    let refused = if a.ok() { &b } else { &a };
    assert!(
        refused.error().unwrap().contains("saved"),
        "{}",
        refused.body
    );
    assert_eq!(daily_expenses(&app, &user).await.len(), 1);
}

#[tokio::test]
async fn another_users_proposal_id_is_like_an_unknown_one() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    app.account(&bob, "Bobs Konto", "EUR").await;
    let preview = proposed(&app, &provider, &alice).await;
    let unknown = app
        .action(
            "confirmProposal",
            json!({ "proposalId": "00000000-0000-4000-8000-000000000000" }),
            Some(&bob.cookie),
        )
        .await;
    for action in ["confirmProposal", "discardProposal"] {
        let theirs = app
            .action(
                action,
                json!({ "proposalId": preview["proposalId"] }),
                Some(&bob.cookie),
            )
            .await;
        assert_eq!(theirs.status, unknown.status);
        assert_eq!(theirs.body, unknown.body, "{action}");
    }
    assert!(daily_expenses(&app, &bob).await.is_empty());
    assert!(daily_expenses(&app, &alice).await.is_empty());
    // Alice's proposal is still hers to confirm.
    let saved = app
        .ok(
            &alice,
            "confirmProposal",
            json!({ "proposalId": preview["proposalId"] }),
        )
        .await;
    assert_eq!(saved["state"], "saved");
}

#[tokio::test]
async fn a_thousand_tool_calls_in_one_reply_run_sixteen_and_the_answer_still_comes() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.account(&user, "Girokonto", "EUR").await;
    provider.then(Turn::Calls(
        (0..1000)
            .map(|_| ("list_accounts".to_string(), "{}".to_string()))
            .collect(),
    ));
    provider.then(Turn::Text("Ein Konto.".into()));
    let (status, events) = chat_stream(&app, &user, ask("Welche Konten?")).await;
    assert_eq!(status, 200);
    let ran = events.iter().filter(|e| e.event == "tool").count();
    assert_eq!(ran, 16, "at most 16 calls of one reply run");
    assert!(events.iter().any(|e| e.event == "done"));
    let text: String = events
        .iter()
        .filter(|e| e.event == "delta")
        .map(|e| e.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Ein Konto.");

    // The model hears of every call, the ones not run as an error.
    let results = tool_messages(&provider, 1);
    assert_eq!(results.len(), 1000);
    let refused = results
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                .unwrap()
                .contains("at most 16 tool calls")
        })
        .count();
    assert_eq!(refused, 984);

    // Only what ran is stored.
    let id = events[0].data["id"].as_str().unwrap();
    let conv = app.ok(&user, "getConversation", json!({ "id": id })).await;
    let messages = conv["messages"].as_array().unwrap();
    assert_eq!(messages[1]["toolCalls"].as_array().unwrap().len(), 16);
    assert_eq!(messages.iter().filter(|m| m["role"] == "tool").count(), 16);
    assert_eq!(messages.len(), 1 + 1 + 16 + 1);
}

/// A provider on a bare socket that answers a streamed request with a
/// byte every 100 ms, forever (an SSE comment line: never an event).
async fn provider_that_trickles() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let mut got = Vec::new();
                loop {
                    let Ok(n) = socket.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
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
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
                loop {
                    tick.tick().await;
                    if socket.write_all(b"1\r\n:\r\n").await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("http://{addr}/v1")
}

#[tokio::test]
async fn a_provider_that_trickles_forever_ends_in_an_error_event_in_the_users_language() {
    let base_url = provider_that_trickles().await;
    // AI_TIMEOUT_SECONDS 1: every silence is shorter, the whole answer
    // may take 3 s.
    let app = spawn_app_with(move |c| {
        c.ai.api_key = Some(Secret::new("sk-chat-key"));
        c.ai.base_url = base_url;
        c.ai.model = "test-chat".into();
        c.ai.timeout = std::time::Duration::from_secs(1);
    })
    .await;
    let user = app.new_user().await;
    app.set_locale_to(&user, "de").await;
    let (status, events) = chat_stream(&app, &user, ask("Erzähl mir alles")).await;
    assert_eq!(status, 200);
    let last = events.last().expect("events");
    assert_eq!(last.event, "error", "{events:?}");
    assert_eq!(
        last.data["error"],
        "Die Antwort hat zu lange gedauert (mehr als 3 Sekunden) und wurde abgebrochen; bitte versuch es noch einmal."
    );
    assert!(!events.iter().any(|e| e.event == "done"));
}

#[tokio::test]
async fn proposals_travel_with_the_users_export_and_stay_booked() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let preview = proposed(&app, &provider, &user).await;
    let saved = app
        .ok(
            &user,
            "confirmProposal",
            json!({ "proposalId": preview["proposalId"] }),
        )
        .await;
    let archive = app
        .get("/api/export", Some(&user.cookie))
        .await
        .bytes()
        .await
        .unwrap();
    let data: Value = {
        use std::io::Read;
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive.to_vec())).unwrap();
        let mut text = String::new();
        zip.by_name("data.json")
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let rows = data["tables"]["assistant_proposals"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{}", data["tables"]["assistant_proposals"]);
    assert_eq!(rows[0]["state"], "saved");
    assert_eq!(rows[0]["record_id"], saved["recordId"]);

    // Loaded into a fresh instance, the conversation still knows.
    let other = app_with_chat(&provider.base_url).await;
    let newcomer = other.new_user().await;
    let (status, body) = other.load_archive(Some(&newcomer.cookie), &archive).await;
    assert_eq!(status, 200, "{body}");
    // The archive loads with new ids: the conversation, its proposal and
    // the booked record are found under theirs, still tied together.
    let listed = other.ok(&newcomer, "listConversations", json!({})).await;
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let conv = other
        .ok(
            &newcomer,
            "getConversation",
            json!({ "id": listed[0]["id"] }),
        )
        .await;
    let proposal = &conv["messages"][1]["proposals"][0];
    assert_eq!(proposal["state"], "saved", "{conv}");
    let booked = daily_expenses(&other, &newcomer).await;
    assert_eq!(booked.len(), 1);
    assert_eq!(proposal["recordId"], booked[0]["id"], "{conv}");
    assert_ne!(proposal["recordId"], saved["recordId"]);
    let again = other
        .action(
            "confirmProposal",
            json!({ "proposalId": proposal["id"] }),
            Some(&newcomer.cookie),
        )
        .await;
    assert!(again.error().unwrap().contains("saved"), "{}", again.body);
    assert_eq!(daily_expenses(&other, &newcomer).await.len(), 1);
}

/// A conversation reopened in the browser, in both languages: what was
/// looked up is said in words (not the tool's name), the stored proposal
/// opens as a card that names the account and the category it books on,
/// and nothing runs out of the page.
async fn a_reopened_conversation_reads_as_it_did_live(width: u32, height: u32, dark: bool) {
    use crate::support::browser::{screenshot, signed_in_with, wait_for_css};
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let account = app.account(&user, "Girokonto", "EUR").await;
    let category = app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let Some(browser) = signed_in_with(&app, &user, width, height, dark).await else {
        return;
    };
    let c = &browser.client;
    let today = app.state.clock.today().to_string();
    for (locale, looked, booked) in [
        (
            "de",
            "Konten angesehen",
            "· Konto „Girokonto“ · Kategorie „Lebensmittel“",
        ),
        (
            "en",
            "looked at your accounts",
            "· account “Girokonto” · category “Lebensmittel”",
        ),
    ] {
        app.ok(&user, "updateSettings", json!({ "locale": locale }))
            .await;
        let args = json!({"name": "Bäckerei", "amount": "12.40", "date": today,
                          "accountId": account, "categoryId": category});
        provider.then(Turn::Calls(vec![("list_accounts".into(), "{}".into())]));
        provider.then(Turn::Calls(vec![(
            "create_daily_expense".into(),
            args.to_string(),
        )]));
        provider.then(Turn::Text("Bitte bestätigen.".into()));
        let (_, events) = chat_stream(&app, &user, ask("Trag 12,40 beim Bäcker ein")).await;
        let id = events[0].data["id"].as_str().unwrap().to_string();

        c.goto(&app.url(&format!("/assistant?c={id}")))
            .await
            .unwrap();
        let at = format!("{locale} {width}px dark={dark}");
        let review = wait_for_css(c, ".msg-assistant button.review").await;
        let said = c
            .execute(
                "return [...document.querySelectorAll('.msg-assistant .msg-tool')] \
                 .map(p => p.textContent.trim());",
                vec![],
            )
            .await
            .unwrap();
        let said: Vec<String> = serde_json::from_value(said).unwrap();
        assert!(said.iter().any(|s| s.contains(looked)), "{at}: {said:?}");
        assert!(
            said.iter().all(|s| !s.contains("list_accounts")),
            "{at}: {said:?}"
        );
        review.click().await.unwrap();
        let card = wait_for_css(c, "article.proposal .proposal-summary").await;
        let summary = card.text().await.unwrap();
        assert!(summary.contains(booked), "{at}: {summary}");
        wait_for_css(c, "article.proposal button.confirm").await;
        let overflow = c
            .execute(
                "return document.documentElement.scrollWidth > window.innerWidth + 1;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(overflow, json!(false), "{at}: the page scrolls sideways");
        let scheme = if dark { "-dark" } else { "" };
        screenshot(c, &format!("assistant-reopened-{locale}-{width}{scheme}")).await;
    }
    browser.client.clone().close().await.unwrap();
}

#[tokio::test]
async fn a_reopened_conversation_reads_as_it_did_live_on_a_phone() {
    a_reopened_conversation_reads_as_it_did_live(390, 844, false).await;
}

#[tokio::test]
async fn a_reopened_conversation_reads_as_it_did_live_on_a_phone_in_the_dark() {
    a_reopened_conversation_reads_as_it_did_live(390, 844, true).await;
}

#[tokio::test]
async fn a_reopened_conversation_reads_as_it_did_live_on_a_desktop() {
    a_reopened_conversation_reads_as_it_did_live(1280, 900, false).await;
}

#[tokio::test]
async fn a_reopened_conversation_reads_as_it_did_live_on_a_desktop_in_the_dark() {
    a_reopened_conversation_reads_as_it_did_live(1280, 900, true).await;
}

/// The titles of the user's conversations.
async fn conversation_titles(app: &TestApp, user: &TestUser) -> Vec<String> {
    let list = app.ok(user, "listConversations", json!({})).await;
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_failed_question_leaves_no_empty_conversation_and_its_retry_makes_one() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    let failing = || Turn::Status(500, r#"{"error":{"message":"out of memory"}}"#.into());

    // Streamed: the conversation event came, then the error; nothing kept.
    provider.then(failing());
    let (_, events) = chat_stream(&app, &user, ask("Was habe ich im Mai ausgegeben?")).await;
    assert_eq!(events.last().unwrap().event, "error");
    let id = events[0].data["id"].as_str().unwrap().to_string();
    assert!(conversation_titles(&app, &user).await.is_empty());
    let reply = app
        .action("getConversation", json!({ "id": id }), Some(&user.cookie))
        .await;
    assert_eq!(
        reply.body["success"], false,
        "the unanswered conversation is gone: {:?}",
        reply.body
    );

    // Broken off in the middle of the answer: nothing kept either.
    provider.then(Turn::BreaksOff("Im Mai".into()));
    let (_, events) = chat_stream(&app, &user, ask("Was habe ich im Mai ausgegeben?")).await;
    assert_eq!(events.last().unwrap().event, "error");
    assert!(conversation_titles(&app, &user).await.is_empty());

    // As JSON: a 502 and nothing kept.
    provider.then(failing());
    let (status, _, _) = chat_json(
        &app,
        Some(&user.cookie),
        &ask("Was habe ich im Mai ausgegeben?").to_string(),
    )
    .await;
    assert_eq!(status, 502);
    assert!(conversation_titles(&app, &user).await.is_empty());

    // The retry that is answered makes exactly one conversation.
    provider.then(Turn::Text("Im Mai 412,30 €.".into()));
    let (_, events) = chat_stream(&app, &user, ask("Was habe ich im Mai ausgegeben?")).await;
    assert_eq!(events.last().unwrap().event, "done");
    assert_eq!(
        conversation_titles(&app, &user).await,
        ["Was habe ich im Mai ausgegeben?"]
    );

    // A later question of a kept conversation that fails leaves it as it was.
    let id = events[0].data["id"].as_str().unwrap().to_string();
    provider.then(failing());
    let (_, events) = chat_stream(
        &app,
        &user,
        json!({"conversationId": id, "messages": [{"role": "user", "content": "Und im Juni?"}]}),
    )
    .await;
    assert_eq!(events.last().unwrap().event, "error");
    let conv = app.ok(&user, "getConversation", json!({ "id": id })).await;
    assert_eq!(conv["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn a_reopened_conversation_words_its_tool_lines_in_the_readers_language_of_the_day() {
    let provider = ChatProvider::start(Dialect::OpenAi).await;
    let app = app_with_chat(&provider.base_url).await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    app.account(&user, "Girokonto", "EUR").await;
    provider.then(Turn::Calls(vec![
        ("list_accounts".into(), "{}".into()),
        ("list_budgets".into(), r#"{"month":"2026-03"}"#.into()),
    ]));
    provider.then(Turn::Text("Auf dem Girokonto sind 1.000,00 €.".into()));
    let (_, events) = chat_stream(&app, &user, ask("Wie viel habe ich?")).await;
    let live: Vec<&str> = events
        .iter()
        .filter(|e| e.event == "tool")
        .map(|e| e.data["summary"].as_str().unwrap())
        .collect();
    assert_eq!(
        live,
        ["Konten angesehen", "Budgets für März 2026 angesehen"]
    );
    let id = events[0].data["id"].as_str().unwrap().to_string();

    app.ok(&user, "updateSettings", json!({"locale": "en"}))
        .await;
    let page = conversation_page(&app, &user, &id).await;
    for line in [
        "looked at your accounts",
        "looked at your budgets for March 2026",
    ] {
        assert!(
            page.contains(&format!("<p class=\"msg-tool\">{line}</p>")),
            "{line} in {page}"
        );
    }
    assert!(!page.contains("angesehen"), "{page}");
    let conv = app.ok(&user, "getConversation", json!({ "id": id })).await;
    let said: Vec<&str> = conv["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["summary"].as_str())
        .collect();
    assert_eq!(
        said,
        [
            "looked at your accounts",
            "looked at your budgets for March 2026"
        ]
    );
}
