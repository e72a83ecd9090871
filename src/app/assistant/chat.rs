//! One request of `POST /api/chat` (`docs/assistant.md`): the person's
//! message joins a new or stored conversation, then the model answers in
//! at most [`MAX_ROUNDS`] rounds of tool calls and a last round of text.
//! Every message is stored: the person's, the assistant's with the calls
//! it made, and each tool's result; each valid preview of a write tool
//! also as a pending proposal (`store::proposals`). What one model reply
//! can make the server do and keep is bounded: [`TOOL_CALLS_MAX`] calls
//! run, [`ARGUMENTS_MAX`] bytes of arguments, [`STORED_TEXT_MAX`] bytes of
//! text stored per message.

use super::tools::{self, Outcome, Preview};
use crate::domain::locale::Locale;
use crate::error::{AiTask, Error, Reason, Result};
use crate::services::ai::{AiClient, AiError, ChatRequest, Message, StreamEvent, ToolCall};
use crate::state::AppState;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::conversations::{self, NewMessage, StoredMessage};
use crate::store::proposals::{self, NewProposal};
use crate::store::table;
use crate::store::users::User;
use serde::Serialize;
use serde_json::{json, Value};

/// Tool rounds a request may take; the round after them offers no tools,
/// so the model answers in words.
pub const MAX_ROUNDS: usize = 6;
/// Chat requests per user in any 60 seconds.
pub const PER_MINUTE: u32 = 20;
/// The longest message a person may send, in characters.
pub const CONTENT_MAX: usize = 8_000;
/// The most messages one request may carry.
pub const MESSAGES_MAX: usize = 50;
/// The most stored messages replayed to the model.
const HISTORY_MAX: usize = 40;
/// Tool calls run of one model reply; the others are answered to the
/// model with an error and not stored.
pub const TOOL_CALLS_MAX: usize = 16;
/// The longest arguments (JSON text, bytes) a tool call may have; longer
/// ones are not run and stored as `{}`.
pub const ARGUMENTS_MAX: usize = 16 * 1024;
/// The most of a message's text that is stored (bytes): a model's answer
/// or a tool's result beyond it is cut.
pub const STORED_TEXT_MAX: usize = 64 * 1024;

/// What the person asked: the messages of a new conversation, or (with a
/// conversation id) the last `user` message to add to a stored one.
#[derive(Debug)]
pub struct Ask {
    pub messages: Vec<(String, String)>,
    pub conversation_id: Option<String>,
}

/// Reads a request body; a refusal names the field.
pub fn parse(body: &[u8]) -> Result<Ask> {
    let value: Value =
        serde_json::from_slice(body).map_err(|_| Error::invalid("body", Reason::NotAnObject))?;
    let obj = value
        .as_object()
        .ok_or_else(|| Error::invalid("body", Reason::NotAnObject))?;
    let conversation_id = match obj.get("conversationId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(_) => return Err(Error::invalid("conversationId", Reason::NotAConversation)),
    };
    let list = match obj.get("messages") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(Value::Array(_)) | None => return Err(Error::invalid("messages", Reason::Required)),
        Some(_) => return Err(Error::invalid("messages", Reason::NotAList)),
    };
    if list.len() > MESSAGES_MAX {
        return Err(Error::invalid(
            "messages",
            Reason::MaxMessages(MESSAGES_MAX),
        ));
    }
    let mut messages = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let role = match m.get("role").and_then(Value::as_str) {
            Some(r @ ("user" | "assistant")) => r.to_string(),
            _ => {
                return Err(Error::invalid(
                    format!("messages[{i}].role"),
                    Reason::UserOrAssistant,
                ))
            }
        };
        let content = match m.get("content").and_then(Value::as_str) {
            Some(c) if !c.trim().is_empty() => c.trim().to_string(),
            _ => {
                return Err(Error::invalid(
                    format!("messages[{i}].content"),
                    Reason::Required,
                ))
            }
        };
        if content.chars().count() > CONTENT_MAX {
            return Err(Error::invalid(
                format!("messages[{i}].content"),
                Reason::MaxChars(CONTENT_MAX),
            ));
        }
        messages.push((role, content));
    }
    if messages.last().map(|(r, _)| r.as_str()) != Some("user") {
        return Err(Error::invalid(
            format!("messages[{}].role", messages.len() - 1),
            Reason::LastMessageUsers,
        ));
    }
    Ok(Ask {
        messages,
        conversation_id,
    })
}

/// What the person sees as the answer comes: the events of the stream.
#[derive(Clone, Debug)]
pub enum Event {
    Conversation {
        id: String,
    },
    Delta {
        text: String,
    },
    Tool {
        name: String,
        arguments: Value,
        summary: String,
    },
    Preview {
        proposal_id: String,
        tool: String,
        arguments: Value,
        preview: Preview,
    },
    Done {
        message_id: String,
    },
    Error {
        error: String,
    },
}

impl Event {
    pub fn name(&self) -> &'static str {
        match self {
            Event::Conversation { .. } => "conversation",
            Event::Delta { .. } => "delta",
            Event::Tool { .. } => "tool",
            Event::Preview { .. } => "preview",
            Event::Done { .. } => "done",
            Event::Error { .. } => "error",
        }
    }

    pub fn data(&self) -> Value {
        match self {
            Event::Conversation { id } => json!({ "id": id }),
            Event::Delta { text } => json!({ "text": text }),
            Event::Tool {
                name,
                arguments,
                summary,
            } => json!({ "name": name, "arguments": arguments, "summary": summary }),
            Event::Preview {
                proposal_id,
                tool,
                arguments,
                preview,
            } => json!({
                "proposalId": proposal_id,
                "tool": tool,
                "arguments": arguments,
                "preview": preview,
            }),
            Event::Done { message_id } => json!({ "messageId": message_id }),
            Event::Error { error } => json!({ "error": error }),
        }
    }
}

/// The whole answer, for a caller that does not stream.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub conversation_id: String,
    pub message: AnswerMessage,
    pub tool_calls: Vec<Value>,
    pub previews: Vec<Value>,
}

#[derive(Serialize)]
pub struct AnswerMessage {
    pub id: String,
    pub role: &'static str,
    pub content: String,
}

/// A conversation ready for the model: its id and its stored messages,
/// the person's new ones included.
pub struct Started {
    pub conversation_id: String,
    /// Whether this request started the conversation: one whose first
    /// answer does not come is not kept ([`unanswered`]).
    pub new: bool,
    history: Vec<StoredMessage>,
}

/// Finds the user's conversation (another user's id is "not found") or
/// starts one titled by the first message, and stores what the person
/// sent.
pub async fn start(state: &AppState, user: &User, ask: Ask) -> Result<Started> {
    let (user_id, now) = (user.id.clone(), crate::clock::timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| {
            let (id, new) = match &ask.conversation_id {
                Some(id) => {
                    conversations::find(tx, &user_id, id)?.ok_or(Error::NotFound)?;
                    let (role, content) = ask.messages.last().expect("checked: not empty");
                    conversations::append(
                        tx,
                        &user_id,
                        id,
                        &NewMessage::text(role, content),
                        &now,
                    )?;
                    (id.clone(), false)
                }
                None => {
                    let first = ask
                        .messages
                        .iter()
                        .find(|(r, _)| r == "user")
                        .map(|(_, c)| c.as_str())
                        .unwrap_or_default();
                    let conv =
                        conversations::create(tx, &user_id, &conversations::title_of(first), &now)?;
                    for (role, content) in &ask.messages {
                        conversations::append(
                            tx,
                            &user_id,
                            &conv.id,
                            &NewMessage::text(role, content),
                            &now,
                        )?;
                    }
                    (conv.id, true)
                }
            };
            let history = conversations::messages(tx, &user_id, &id)?;
            Ok(Started {
                conversation_id: id,
                new,
                history,
            })
        })
        .await
}

/// A conversation a request started whose first answer did not come (the
/// provider failed, the deadline passed, the person left) is removed with
/// the question, so that a failed question leaves no empty conversation
/// and asking again starts one; one that proposed a write is kept, for
/// its proposal may still be confirmed. Answers whether it was removed.
pub async fn unanswered(state: &AppState, user: &User, conversation_id: &str) -> Result<bool> {
    let (user_id, id) = (user.id.clone(), conversation_id.to_string());
    state
        .db
        .transaction(move |tx| conversations::delete_unanswered(tx, &user_id, &id))
        .await
}

/// Why a chat request ended without an answer.
#[derive(Debug)]
pub enum Failure {
    /// The provider failed or refused; the person reads a plain sentence,
    /// the log the cause ([`Failure::log`]).
    Provider(AiError),
    Internal(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Internal(e)
    }
}

impl Failure {
    /// What the person reads, in `locale`: never the cause.
    pub fn message(&self, locale: Locale) -> String {
        let reason = match self {
            Failure::Provider(e) if e.is_unusable_answer() => Reason::AiUnusable(AiTask::Assistant),
            Failure::Provider(AiError::ToolsRefused { .. }) => Reason::AiNoTools,
            Failure::Provider(_) => Reason::AiUnavailable(AiTask::Assistant),
            Failure::Internal(e) => return e.text(locale),
        };
        Error::refused(reason).text(locale)
    }

    /// The cause, for the log.
    pub fn log(&self) {
        match self {
            Failure::Provider(e) => tracing::warn!(error = %e, "assistant: the AI provider failed"),
            Failure::Internal(e) => tracing::error!(error = ?e, "chat failed"),
        }
    }
}

/// Runs the model and the tools on a started conversation. `emit` sees
/// each event as it happens (text only when `stream`); the answer comes
/// back at the end. Dropping the future cancels the provider's request.
pub async fn answer(
    state: &AppState,
    ai: &AiClient,
    user: &User,
    started: Started,
    stream: bool,
    emit: &(dyn Fn(Event) + Send + Sync),
) -> std::result::Result<Answer, Failure> {
    let conversation_id = started.conversation_id;
    let mut messages = vec![Message::system(system_prompt(state, user).await?)];
    messages.extend(replay(started.history));
    let catalogue = tools::catalogue();
    let (mut tool_calls, mut previews) = (Vec::new(), Vec::new());
    for round in 0..=MAX_ROUNDS {
        let mut req = ChatRequest::new(ai.model(), messages.clone());
        if round < MAX_ROUNDS {
            req.tools = catalogue.clone();
        }
        let completion = if stream {
            ai.stream(&req, |e| {
                if let StreamEvent::Text(text) = e {
                    emit(Event::Delta { text });
                }
            })
            .await
        } else {
            ai.complete(&req).await
        }
        .map_err(Failure::Provider)?;
        if completion.tool_calls.is_empty() || round == MAX_ROUNDS {
            let message_id = store(
                state,
                user,
                &conversation_id,
                "assistant",
                &completion.content,
                None,
                None,
            )
            .await?;
            emit(Event::Done {
                message_id: message_id.clone(),
            });
            return Ok(Answer {
                conversation_id,
                message: AnswerMessage {
                    id: message_id,
                    role: "assistant",
                    content: completion.content,
                },
                tool_calls,
                previews,
            });
        }
        // At most TOOL_CALLS_MAX calls run and are stored; a call with
        // oversized arguments is not run and is stored without them.
        let (run, refused) = completion
            .tool_calls
            .split_at(completion.tool_calls.len().min(TOOL_CALLS_MAX));
        let calls: Value = run
            .iter()
            .map(|c| {
                let arguments = if c.arguments.len() > ARGUMENTS_MAX {
                    "{}"
                } else {
                    c.arguments.as_str()
                };
                json!({ "id": c.id, "name": c.name, "arguments": arguments })
            })
            .collect();
        let message_id = store(
            state,
            user,
            &conversation_id,
            "assistant",
            &completion.content,
            Some((&calls, None)),
            None,
        )
        .await?;
        messages.push(Message::assistant(
            completion.content.clone(),
            completion.tool_calls.clone(),
        ));
        for call in run {
            let mut looked = None;
            let result = if call.arguments.len() > ARGUMENTS_MAX {
                json!({ "error": format!("the arguments are too long: at most {ARGUMENTS_MAX} bytes") })
            } else {
                let arguments =
                    serde_json::from_str::<Value>(&call.arguments).unwrap_or(Value::Null);
                match tools::run(state, user, &call.name, &call.arguments).await {
                    Outcome::Read {
                        result,
                        looked: seen,
                    } => {
                        let event = Event::Tool {
                            name: call.name.clone(),
                            arguments,
                            summary: seen.text(user.locale),
                        };
                        looked = Some(seen.stored());
                        tool_calls.push(event.data());
                        emit(event);
                        result
                    }
                    Outcome::Proposed { arguments, preview } => {
                        let told = json!({
                            "proposed": true,
                            "valid": preview.valid,
                            "errors": preview.errors,
                            "summary": preview.summary,
                        });
                        let proposal_id =
                            propose(state, user, &conversation_id, &message_id, call, &arguments)
                                .await?;
                        let event = Event::Preview {
                            proposal_id,
                            tool: call.name.clone(),
                            arguments,
                            preview,
                        };
                        previews.push(event.data());
                        emit(event);
                        told
                    }
                    Outcome::Failed(error) => json!({ "error": error }),
                }
            };
            let text = result.to_string();
            store(
                state,
                user,
                &conversation_id,
                "tool",
                &text,
                Some((&Value::Null, Some(call))),
                looked.as_deref(),
            )
            .await?;
            messages.push(Message::tool_result(call, text));
        }
        // Every call is answered (providers refuse a history with an
        // unanswered one), but only in this request: the model is told to
        // call fewer, and nothing of them is stored.
        if !refused.is_empty() {
            let text = json!({
                "error": format!("not run: at most {TOOL_CALLS_MAX} tool calls per reply; call fewer at a time")
            })
            .to_string();
            for call in refused {
                messages.push(Message::tool_result(call, text.clone()));
            }
        }
    }
    unreachable!("the last round offers no tools and so answers")
}

/// Stores a valid preview as a pending proposal of the assistant message
/// `message_id`; answers the proposal's id.
async fn propose(
    state: &AppState,
    user: &User,
    conversation_id: &str,
    message_id: &str,
    call: &ToolCall,
    arguments: &Value,
) -> Result<String> {
    let (user_id, now) = (user.id.clone(), crate::clock::timestamp(state.clock.now()));
    let (conversation_id, message_id, call_id, tool, arguments) = (
        conversation_id.to_string(),
        message_id.to_string(),
        call.id.clone(),
        call.name.clone(),
        arguments.clone(),
    );
    state
        .db
        .transaction(move |tx| {
            proposals::create(
                tx,
                &user_id,
                &NewProposal {
                    conversation_id: &conversation_id,
                    message_id: &message_id,
                    tool_call_id: &call_id,
                    tool: &tool,
                    arguments: &arguments,
                },
                &now,
            )
        })
        .await
}

/// `text` cut to at most [`STORED_TEXT_MAX`] bytes, at a character's edge.
fn bounded(text: &str) -> &str {
    if text.len() <= STORED_TEXT_MAX {
        return text;
    }
    let mut end = STORED_TEXT_MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Stores one message of the answer: an assistant message with the calls
/// it made, or a tool's result for a call; its text at most
/// [`STORED_TEXT_MAX`] bytes.
async fn store(
    state: &AppState,
    user: &User,
    conversation_id: &str,
    role: &'static str,
    content: &str,
    tool: Option<(&Value, Option<&ToolCall>)>,
    summary: Option<&str>,
) -> Result<String> {
    let (user_id, id, content) = (
        user.id.clone(),
        conversation_id.to_string(),
        bounded(content).to_string(),
    );
    let summary = summary.map(str::to_string);
    let now = crate::clock::timestamp(state.clock.now());
    let (calls, answered) = match tool {
        Some((calls, call)) => (
            (!calls.is_null()).then(|| calls.clone()),
            call.map(|c| (c.id.clone(), c.name.clone())),
        ),
        None => (None, None),
    };
    state
        .db
        .transaction(move |tx| {
            conversations::append(
                tx,
                &user_id,
                &id,
                &NewMessage {
                    role,
                    content: &content,
                    tool_calls: calls.as_ref(),
                    tool_call_id: answered.as_ref().map(|(id, _)| id.as_str()),
                    tool_name: answered.as_ref().map(|(_, name)| name.as_str()),
                    summary: summary.as_deref(),
                },
                &now,
            )
        })
        .await
}

/// The stored messages as the model reads them: the latest
/// [`HISTORY_MAX`], starting with one of the person's. Calls and results
/// are kept only in pairs: an answer cut off between its calls and their
/// results (the person left, the provider failed) would otherwise be a
/// history that providers refuse.
fn replay(history: Vec<StoredMessage>) -> Vec<Message> {
    let skip = history.len().saturating_sub(HISTORY_MAX);
    let mut kept: Vec<StoredMessage> = history.into_iter().skip(skip).collect();
    let first_user = kept.iter().position(|m| m.role == "user").unwrap_or(0);
    kept.drain(..first_user);
    let answered: std::collections::HashSet<String> = kept
        .iter()
        .filter(|m| m.role == "tool")
        .filter_map(|m| m.tool_call_id.clone())
        .collect();
    let mut called = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(kept.len());
    for m in kept {
        match m.role.as_str() {
            "user" => out.push(Message::user(m.content)),
            "assistant" => {
                let calls: Vec<ToolCall> = m
                    .tool_calls
                    .as_ref()
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| {
                        Some(ToolCall {
                            id: c.get("id")?.as_str()?.to_string(),
                            name: c.get("name")?.as_str()?.to_string(),
                            arguments: c
                                .get("arguments")
                                .and_then(Value::as_str)
                                .unwrap_or("{}")
                                .to_string(),
                        })
                    })
                    .filter(|c| answered.contains(&c.id))
                    .collect();
                if calls.is_empty() && m.content.trim().is_empty() {
                    continue;
                }
                called.extend(calls.iter().map(|c| c.id.clone()));
                out.push(Message::assistant(m.content, calls));
            }
            "tool" => {
                let id = m.tool_call_id.unwrap_or_default();
                if !called.contains(&id) {
                    continue;
                }
                let call = ToolCall {
                    id,
                    name: m.tool_name.unwrap_or_default(),
                    arguments: String::new(),
                };
                out.push(Message::tool_result(&call, m.content));
            }
            _ => {}
        }
    }
    out
}

/// What the model is told first: who it is for, today, the base currency,
/// the accounts and categories (with their ids, for the tools), and the
/// rules: numbers only from tools, writes only as proposals.
async fn system_prompt(state: &AppState, user: &User) -> Result<String> {
    let uid = user.id.clone();
    let (accounts, categories) = state
        .db
        .run(move |c| {
            Ok((
                table::all::<Account>(c, &uid)?,
                table::all::<Category>(c, &uid)?,
            ))
        })
        .await?;
    let today = state.clock.today();
    let accounts: Vec<String> = accounts
        .iter()
        .take(100)
        .map(|a| format!("- {} ({}, {}, id {})", a.name, a.kind, a.currency, a.id))
        .collect();
    let categories: Vec<String> = categories
        .iter()
        .take(100)
        .map(|k| format!("- {} (id {})", k.name, k.id))
        .collect();
    let language = user.locale.english_name();
    Ok(format!(
        "You are the assistant of cashkeeper, {name}'s personal finance tracker. \
         Answer in {language}, briefly and concretely.\n\
         Today is {today} ({weekday}). Amounts are in {base} unless a tool says otherwise.\n\
         Use the tools for every number (balances, spending, payments, forecasts, reserves, \
         subscriptions): never guess or invent figures. Dates are YYYY-MM-DD.\n\
         To add or change an entry, call the matching create_ or update_ tool: it is not \
         saved, the person sees it as a proposal and confirms it. Tell them to confirm.\n\
         Accounts:\n{accounts}\nCategories:\n{categories}",
        name = if user.name.is_empty() {
            "the user"
        } else {
            &user.name
        },
        weekday = today.format("%A"),
        base = user.base_currency,
        accounts = if accounts.is_empty() {
            "- none yet".to_string()
        } else {
            accounts.join("\n")
        },
        categories = if categories.is_empty() {
            "- none yet".to_string()
        } else {
            categories.join("\n")
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_the_field_it_fails_on() {
        let err = |body: &str| parse(body.as_bytes()).unwrap_err().to_string();
        assert_eq!(err("[]"), "body: must be a JSON object");
        assert_eq!(err("{"), "body: must be a JSON object");
        assert_eq!(err("{}"), "messages: is required");
        assert_eq!(err(r#"{"messages":[]}"#), "messages: is required");
        assert_eq!(err(r#"{"messages":"hi"}"#), "messages: must be a list");
        assert_eq!(
            err(r#"{"messages":[{"role":"system","content":"x"}]}"#),
            "messages[0].role: must be user or assistant"
        );
        assert_eq!(
            err(r#"{"messages":[{"role":"user","content":"  "}]}"#),
            "messages[0].content: is required"
        );
        assert_eq!(
            err(
                r#"{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}"#
            ),
            "messages[1].role: the last message must be the user's"
        );
        assert_eq!(
            err(r#"{"messages":[{"role":"user","content":"a"}],"conversationId":5}"#),
            "conversationId: must be a conversation's id"
        );
        let long = format!(
            r#"{{"messages":[{{"role":"user","content":"{}"}}]}}"#,
            "x".repeat(8001)
        );
        assert_eq!(
            err(&long),
            "messages[0].content: must be at most 8000 characters"
        );
        let ok =
            parse(br#"{"messages":[{"role":"user","content":" Hallo "}],"conversationId":"c1"}"#)
                .unwrap();
        assert_eq!(ok.messages, vec![("user".to_string(), "Hallo".to_string())]);
        assert_eq!(ok.conversation_id.as_deref(), Some("c1"));
    }

    fn stored(role: &str, content: &str) -> StoredMessage {
        StoredMessage {
            id: String::new(),
            role: role.into(),
            content: content.into(),
            tool_calls: None,
            tool_call_id: None,
            tool_name: None,
            summary: None,
            created_at: String::new(),
        }
    }

    #[test]
    fn the_replay_keeps_calls_and_results_and_starts_with_the_person() {
        let mut history = vec![stored("assistant", "old"), stored("user", "Wie viel?")];
        history.push(StoredMessage {
            tool_calls: Some(json!([{"id": "c1", "name": "list_accounts", "arguments": "{}"}])),
            ..stored("assistant", "")
        });
        history.push(StoredMessage {
            tool_call_id: Some("c1".into()),
            tool_name: Some("list_accounts".into()),
            ..stored("tool", "{\"accounts\":[]}")
        });
        let replayed = replay(history);
        assert_eq!(
            replayed.len(),
            3,
            "the leading assistant message is dropped"
        );
        assert_eq!(replayed[1].tool_calls[0].name, "list_accounts");
        assert_eq!(replayed[2].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(replayed[2].name.as_deref(), Some("list_accounts"));
    }
}
