//! `/assistant`: the chat with the assistant (`docs/assistant.md`).
//!
//! The page lists the stored conversations and, with `?c=<id>`, shows one
//! of them; both are read through the actions `listConversations` and
//! `getConversation`, so the page relies on their contract only. A stored
//! proposal shows its state: pending ones can be looked at again and
//! confirmed, saved ones say so and link to where the record is, discarded
//! ones say so. Asking, the streamed answer (`POST /api/chat`), the
//! proposed entries and their Confirm (`confirmProposal`) / Discard
//! (`discardProposal`) are `assets/assistant.js`. Without an AI provider
//! the page explains how to configure one instead.

use super::common::PageResult;
use crate::app::assistant::conversations::{self, MessageView};
use crate::app::assistant::tools;
use crate::http::session::{SignedIn, Viewer};
use crate::i18n::{format, Texts};
use crate::state::AppState;
use crate::store::conversations::Conversation;
use crate::store::proposals::State as ProposalState;
use crate::web::layout::page_with_scripts;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Deserialize, Default)]
pub struct AssistantQuery {
    /// The conversation to open.
    c: Option<String>,
}

/// What the chat shows of the stored messages: each question, and each
/// answer with what the assistant did on the way (tool results are not
/// shown).
enum Block {
    User(String),
    Assistant(Vec<Piece>),
}

enum Piece {
    Text(String),
    /// A read tool ran: the line the person was shown then ("Konten
    /// angesehen"); `None` for one stored before that line was kept.
    Used(Option<String>),
    /// A write tool was proposed: it can be looked at again through
    /// `previewTool`, and confirmed through `confirmProposal` when it is a
    /// stored proposal (`proposal`) that is still pending. One from before
    /// proposals were stored can only be looked at.
    Proposed {
        tool: String,
        arguments: Value,
        proposal: Option<String>,
    },
    /// A stored proposal that was confirmed: what was saved, and where.
    Saved {
        tool: String,
        arguments: Value,
    },
    /// A stored proposal that was discarded.
    Discarded {
        tool: String,
    },
}

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
    Query(q): Query<AssistantQuery>,
) -> PageResult {
    let t = viewer.t();
    if state.ai.is_none() {
        return Ok(page_with_scripts(
            &viewer,
            "/assistant",
            t.nav_assistant,
            &[],
            html! { h1 { (t.nav_assistant) } (not_configured(t)) },
        )
        .into_response());
    }
    let user = &session.user.id;
    let listed = conversations::list(&state, user).await?;
    let wanted = q.c.filter(|c| !c.trim().is_empty());
    let opened = match &wanted {
        // An unknown or another user's conversation is not found.
        Some(id) => {
            match conversations::get(&state, user, id.trim().to_string(), session.user.locale).await
            {
                Ok(c) => Some(c),
                Err(e @ crate::Error::Internal(_)) => return Err(e.into()),
                Err(_) => None,
            }
        }
        None => None,
    };
    let blocks = opened
        .as_ref()
        .map(|c| blocks(&c.messages))
        .unwrap_or_default();
    let current = opened.as_ref().map(|c| c.id.as_str()).unwrap_or("");
    Ok(page_with_scripts(
        &viewer,
        "/assistant",
        t.nav_assistant,
        &["assistant.js"],
        html! {
            div.assistant data-assistant="" data-conversation=(current) data-texts=(script_texts(t)) {
                div.page-head {
                    h1 { (t.nav_assistant) }
                    a.button href="/assistant" { (t.assistant_new) }
                }
                div.assistant-grid {
                    section.chat aria-label=(t.assistant_chat) {
                        @if wanted.is_some() && opened.is_none() {
                            p.notice role="status" { (t.assistant_not_found) }
                        }
                        div #chat-log .chat-log role="log" aria-live="polite" aria-label=(t.assistant_chat) {
                            @if blocks.is_empty() {
                                p.chat-intro.muted { (t.assistant_intro) }
                            }
                            @for b in &blocks { (block(t, b)) }
                        }
                        form #chat-form .chat-form {
                            label.sr-only for="chat-input" { (t.assistant_message) }
                            div.chat-compose {
                                textarea #chat-input name="message" rows="2" required
                                    placeholder=(t.assistant_placeholder) aria-describedby="chat-hint" {}
                                div.chat-buttons {
                                    button.primary.chat-send type="submit" { (t.assistant_send) }
                                    button.danger.chat-stop type="button" hidden { (t.assistant_stop) }
                                }
                            }
                            p #chat-hint .hint { (t.assistant_keys_hint) }
                            p.form-error.chat-error role="alert" hidden {}
                        }
                    }
                    aside.conv-panel aria-labelledby="conv-heading" {
                        h2 #conv-heading { (t.assistant_conversations) }
                        p.muted.conv-empty hidden[!listed.is_empty()] { (t.assistant_no_conversations) }
                        ul.conv-list {
                            @for c in &listed { (listed_item(&viewer, c, c.id == current)) }
                        }
                    }
                }
            }
        },
    )
    .into_response())
}

/// The stored messages as the chat shows them.
fn blocks(messages: &[MessageView]) -> Vec<Block> {
    let summaries: std::collections::HashMap<&str, &str> = messages
        .iter()
        .filter(|m| m.role == "tool")
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.summary.as_deref()?)))
        .collect();
    let mut out: Vec<Block> = Vec::new();
    for m in messages {
        let text = m.content.trim();
        match m.role.as_str() {
            "user" => out.push(Block::User(text.to_string())),
            "assistant" => {
                let mut pieces = Vec::new();
                if !text.is_empty() {
                    pieces.push(Piece::Text(text.to_string()));
                }
                for (call, tool, arguments) in tool_calls(&m.tool_calls) {
                    if !tools::is_write(&tool) {
                        let summary = (!call.is_empty())
                            .then(|| summaries.get(call.as_str()))
                            .flatten();
                        pieces.push(Piece::Used(summary.map(|s| s.to_string())));
                        continue;
                    }
                    let stored = m
                        .proposals
                        .iter()
                        .find(|p| !call.is_empty() && p.tool_call_id == call);
                    pieces.push(match stored {
                        Some(p) if p.state == ProposalState::Saved => Piece::Saved {
                            tool,
                            arguments: p.arguments.clone(),
                        },
                        Some(p) if p.state == ProposalState::Discarded => Piece::Discarded { tool },
                        Some(p) => Piece::Proposed {
                            tool,
                            arguments: p.arguments.clone(),
                            proposal: Some(p.id.clone()),
                        },
                        None => Piece::Proposed {
                            tool,
                            arguments,
                            proposal: None,
                        },
                    });
                }
                if pieces.is_empty() {
                    continue;
                }
                match out.last_mut() {
                    Some(Block::Assistant(p)) => p.extend(pieces),
                    _ => out.push(Block::Assistant(pieces)),
                }
            }
            _ => {}
        }
    }
    out
}

/// The id, name and arguments of each stored tool call, read leniently:
/// `{id, name, arguments}` or the wire form `{id, function: {name,
/// arguments}}`, arguments as an object or as JSON text.
fn tool_calls(calls: &Value) -> Vec<(String, String, Value)> {
    let Some(calls) = calls.as_array() else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(|c| {
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let f = c.get("function").unwrap_or(c);
            let name = f.get("name")?.as_str()?.to_string();
            let arguments = match f.get("arguments") {
                Some(Value::String(s)) => serde_json::from_str(s).unwrap_or(Value::Null),
                Some(v) => v.clone(),
                None => Value::Null,
            };
            Some((id, name, arguments))
        })
        .collect()
}

/// What a write tool is about: `create_daily_expense` → the label of a
/// one-time expense.
fn kind_label(t: &Texts, tool: &str) -> &'static str {
    match tool.split_once('_').map(|(_, kind)| kind) {
        Some("daily_expense") => t.kind_daily_expense,
        Some("expense") => t.kind_expense,
        Some("income") => t.kind_income,
        Some("transfer") => t.kind_transfer,
        _ => "",
    }
}

/// Where a saved proposal's record is listed, and the link's text: the
/// record's name, else the page's. A one-time expense opens its month.
fn saved_link(t: &Texts, tool: &str, arguments: &Value) -> Option<(String, String)> {
    let (page, label) = match tool.split_once('_').map(|(_, kind)| kind) {
        Some("daily_expense") => ("/daily-expenses", t.nav_daily_expenses),
        Some("expense") => ("/expenses", t.nav_expenses),
        Some("income") => ("/incomes", t.nav_incomes),
        Some("transfer") => ("/transfers", t.nav_transfers),
        _ => return None,
    };
    let month = arguments
        .get("date")
        .and_then(Value::as_str)
        .filter(|d| d.len() >= 7 && d.is_char_boundary(7))
        .map(|d| &d[..7])
        .filter(|m| crate::domain::recurrence::parse_month("month", m).is_ok());
    let href = match month {
        Some(m) if page == "/daily-expenses" => format!("{page}?month={m}"),
        _ => page.to_string(),
    };
    let name = arguments
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or(label);
    Some((href, format!("{}: {name}", t.assistant_open)))
}

fn block(t: &Texts, b: &Block) -> Markup {
    match b {
        Block::User(text) => html! {
            div.msg.msg-user {
                span.sr-only { (t.assistant_you) ": " }
                p.msg-text { (text) }
            }
        },
        Block::Assistant(pieces) => html! {
            div.msg.msg-assistant {
                span.sr-only { (t.nav_assistant) ": " }
                @for piece in pieces {
                    @match piece {
                        Piece::Text(text) => p.msg-text { (text) },
                        Piece::Used(Some(summary)) => p.msg-tool { (summary) },
                        Piece::Used(None) => p.msg-tool { (t.assistant_used_tool) },
                        Piece::Proposed { tool, arguments, proposal } => p.msg-tool {
                            (t.assistant_proposed_tool)
                            @let kind = kind_label(t, tool);
                            @if !kind.is_empty() { ": " (kind) }
                            " "
                            button.link.review type="button" data-tool=(tool) data-arguments=(arguments.to_string())
                                data-proposal=[proposal.as_deref()] {
                                (t.assistant_review)
                            }
                        },
                        Piece::Saved { tool, arguments } => p.msg-tool.proposal-state.saved {
                            (t.assistant_proposed_tool)
                            @let kind = kind_label(t, tool);
                            @if !kind.is_empty() { ": " (kind) }
                            " — " strong { (t.assistant_saved) }
                            @if let Some((href, text)) = saved_link(t, tool, arguments) {
                                " " a href=(href) { (text) }
                            }
                        },
                        Piece::Discarded { tool } => p.msg-tool.proposal-state.discarded {
                            (t.assistant_proposed_tool)
                            @let kind = kind_label(t, tool);
                            @if !kind.is_empty() { ": " (kind) }
                            " — " strong { (t.assistant_discarded) }
                        },
                    }
                }
            }
        },
    }
}

/// One stored conversation in the list (the script renders the same).
fn listed_item(viewer: &Viewer, c: &Conversation, current: bool) -> Markup {
    let t = viewer.t();
    let title = if c.title.trim().is_empty() {
        t.assistant_untitled
    } else {
        c.title.as_str()
    };
    let day = chrono::DateTime::parse_from_rfc3339(&c.updated_at)
        .ok()
        .map(|d| format::date(d.naive_utc().date(), viewer.locale));
    html! {
        li.conv {
            a.conv-link href=(format!("/assistant?c={}", c.id)) aria-current=[current.then_some("page")] {
                span.conv-title { (title) }
                @if let Some(day) = day { small.muted.conv-date { (day) } }
            }
            button.link.danger.conv-delete type="button" data-delete=(c.id)
                aria-label=(format!("{}: {title}", t.assistant_delete_named)) {
                (t.assistant_delete)
            }
        }
    }
}

/// The texts `assistant.js` shows, as JSON for `data-texts`.
fn script_texts(t: &Texts) -> String {
    json!({
        "you": t.assistant_you,
        "assistant": t.nav_assistant,
        "thinking": t.assistant_thinking,
        "stopped": t.assistant_stopped,
        "connectionLost": t.assistant_connection_lost,
        "offline": t.assistant_offline,
        "network": t.import_network,
        "tooMany": t.assistant_too_many,
        "proposal": t.assistant_proposal,
        "invalid": t.assistant_invalid,
        "confirm": t.assistant_confirm,
        "discard": t.assistant_discard,
        "saved": t.assistant_saved,
        "discarded": t.assistant_discarded,
        "open": t.assistant_open,
        "untitled": t.assistant_untitled,
        "delete": t.assistant_delete,
        "deleteNamed": t.assistant_delete_named,
        "deleteConfirm": t.assistant_delete_confirm,
        "kinds": {
            "daily_expense": t.kind_daily_expense,
            "expense": t.kind_expense,
            "income": t.kind_income,
            "transfer": t.kind_transfer,
        },
        "pages": {
            "daily_expense": t.nav_daily_expenses,
            "expense": t.nav_expenses,
            "income": t.nav_incomes,
            "transfer": t.nav_transfers,
        },
    })
    .to_string()
}

/// AI is off: what to set, with an example for OpenAI and for Ollama.
fn not_configured(t: &Texts) -> Markup {
    html! {
        section.panel.assistant-off aria-labelledby="assistant-off-title" {
            h2 #assistant-off-title { (t.assistant_off_title) }
            p { (t.assistant_off_text) }
            dl.env-vars {
                div { dt { code { "AI_API_KEY" } } dd { (t.assistant_off_key) } }
                div { dt { code { "AI_BASE_URL" } } dd { (t.assistant_off_base) } }
                div { dt { code { "AI_MODEL" } } dd { (t.assistant_off_model) } }
            }
            h3 { (t.assistant_off_openai) }
            pre.env-example { code { "AI_API_KEY=sk-… AI_MODEL=gpt-4o-mini" } }
            h3 { (t.assistant_off_ollama) }
            pre.env-example { code { "AI_BASE_URL=http://localhost:11434/v1 AI_API_KEY=ollama AI_MODEL=qwen3:8b" } }
            p { (t.assistant_off_docs) " " code { "docs/assistant.md" } }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::proposals::Proposal;
    use serde_json::json;

    /// Stored messages as `getConversation` answers them.
    fn messages(v: Value) -> Vec<MessageView> {
        let proposal = |p: &Value| Proposal {
            id: p["id"].as_str().unwrap().into(),
            message_id: String::new(),
            tool_call_id: p["toolCallId"].as_str().unwrap().into(),
            tool: p["tool"].as_str().unwrap().into(),
            arguments: p["arguments"].clone(),
            state: match p["state"].as_str().unwrap() {
                "saved" => ProposalState::Saved,
                "discarded" => ProposalState::Discarded,
                _ => ProposalState::Pending,
            },
            record_id: p["recordId"].as_str().map(Into::into),
        };
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| MessageView {
                id: String::new(),
                role: m["role"].as_str().unwrap().into(),
                content: m["content"].as_str().unwrap_or("").into(),
                tool_calls: m.get("toolCalls").cloned().unwrap_or(json!([])),
                proposals: m["proposals"]
                    .as_array()
                    .map(|ps| ps.iter().map(proposal).collect())
                    .unwrap_or_default(),
                tool_call_id: m["toolCallId"].as_str().map(Into::into),
                summary: m["summary"].as_str().map(Into::into),
                created_at: String::new(),
            })
            .collect()
    }

    #[test]
    fn stored_messages_become_questions_and_answers_with_what_the_assistant_did() {
        let messages = messages(json!([
            {"role": "user", "content": "Add 12.40 at the bakery"},
            {"role": "assistant", "content": null, "toolCalls": [
                {"id": "a", "name": "get_accounts", "arguments": "{}"},
                {"id": "b", "function": {"name": "create_daily_expense", "arguments": "{\"amount\":\"12.40\"}"}},
            ]},
            {"role": "tool", "toolCallId": "a", "summary": "looked at your accounts", "content": "{}"},
            {"role": "tool", "content": "{\"proposed\":true}"},
            {"role": "assistant", "content": "Please confirm."},
            {"role": "user", "content": "Thanks"},
        ]));
        let b = blocks(&messages);
        assert_eq!(b.len(), 3);
        let Block::Assistant(pieces) = &b[1] else {
            panic!("the answer follows the question")
        };
        assert!(matches!(&pieces[0], Piece::Used(Some(n)) if n == "looked at your accounts"));
        assert!(
            matches!(&pieces[1], Piece::Proposed { tool, arguments, proposal: None } if tool == "create_daily_expense" && arguments["amount"] == "12.40")
        );
        assert!(matches!(&pieces[2], Piece::Text(s) if s == "Please confirm."));
        assert!(matches!(&b[2], Block::User(s) if s == "Thanks"));
    }

    #[test]
    fn stored_proposals_show_their_state_and_only_pending_ones_their_id() {
        let messages = messages(json!([
            {"role": "user", "content": "Add three"},
            {"role": "assistant", "content": "", "toolCalls": [
                {"id": "a", "name": "create_daily_expense", "arguments": "{}"},
                {"id": "b", "name": "create_income", "arguments": "{}"},
                {"id": "c", "name": "create_transfer", "arguments": "{}"},
                {"id": "d", "name": "create_expense", "arguments": "{}"},
            ], "proposals": [
                {"id": "p1", "toolCallId": "a", "tool": "create_daily_expense", "state": "saved",
                 "arguments": {"name": "Bäckerei", "date": "2026-11-23"}, "recordId": "r1"},
                {"id": "p2", "toolCallId": "b", "tool": "create_income", "state": "discarded",
                 "arguments": {}, "recordId": null},
                {"id": "p3", "toolCallId": "c", "tool": "create_transfer", "state": "pending",
                 "arguments": {"amount": "5.00"}, "recordId": null},
            ]},
        ]));
        let b = blocks(&messages);
        let Block::Assistant(pieces) = &b[1] else {
            panic!("an answer")
        };
        assert!(
            matches!(&pieces[0], Piece::Saved { arguments, .. } if arguments["name"] == "Bäckerei")
        );
        assert!(matches!(&pieces[1], Piece::Discarded { tool } if tool == "create_income"));
        assert!(
            matches!(&pieces[2], Piece::Proposed { proposal: Some(id), arguments, .. } if id == "p3" && arguments["amount"] == "5.00")
        );
        assert!(matches!(&pieces[3], Piece::Proposed { proposal: None, .. }));
        let t = crate::domain::locale::Locale::De.texts();
        let html = block(t, &b[1]).into_string();
        assert!(html.contains("Gespeichert."), "{html}");
        assert!(
            html.contains("href=\"/daily-expenses?month=2026-11\""),
            "{html}"
        );
        assert!(html.contains("Öffnen: Bäckerei"), "{html}");
        assert!(html.contains("Verworfen."), "{html}");
        assert!(html.contains("data-proposal=\"p3\""), "{html}");
        assert_eq!(html.matches("data-proposal").count(), 1, "{html}");
    }
}
