//! What the assistant proposed (`docs/assistant.md`): one row per valid
//! preview of a write tool, so that a proposal is booked once. A proposal
//! is `pending` until it is confirmed (`saved`, with the booked record's
//! id) or discarded; it never goes back.

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;
use serde_json::Value;

/// Where a proposal is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Pending,
    Saved,
    Discarded,
}

impl State {
    pub fn code(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Saved => "saved",
            State::Discarded => "discarded",
        }
    }

    fn from_code(code: &str) -> State {
        match code {
            "saved" => State::Saved,
            "discarded" => State::Discarded,
            _ => State::Pending,
        }
    }
}

/// A stored proposal, as `getConversation` shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposal {
    pub id: String,
    #[serde(skip)]
    pub message_id: String,
    /// The tool call of the assistant message that made it.
    pub tool_call_id: String,
    pub tool: String,
    /// What Confirm sends to the tool's action.
    pub arguments: Value,
    pub state: State,
    /// The booked record, once saved.
    pub record_id: Option<String>,
}

/// A proposal to store.
pub struct NewProposal<'a> {
    pub conversation_id: &'a str,
    pub message_id: &'a str,
    pub tool_call_id: &'a str,
    pub tool: &'a str,
    pub arguments: &'a Value,
}

const COLUMNS: &str = "id, message_id, tool_call_id, tool, arguments, state, record_id";

fn proposal(r: &Row<'_>) -> rusqlite::Result<Proposal> {
    let arguments: String = r.get(4)?;
    let state: String = r.get(5)?;
    Ok(Proposal {
        id: r.get(0)?,
        message_id: r.get(1)?,
        tool_call_id: r.get(2)?,
        tool: r.get(3)?,
        arguments: serde_json::from_str(&arguments).unwrap_or(Value::Null),
        state: State::from_code(&state),
        record_id: r.get(6)?,
    })
}

/// Stores a pending proposal of the user's conversation; answers its id.
pub fn create(c: &Connection, user_id: &UserId, p: &NewProposal<'_>, now: &str) -> Result<String> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO assistant_proposals
           (id, user_id, conversation_id, message_id, tool_call_id, tool, arguments, state, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, ?8, ?8)",
        params![
            id,
            user_id,
            p.conversation_id,
            p.message_id,
            p.tool_call_id,
            p.tool,
            p.arguments.to_string(),
            now,
            State::Pending.code()
        ],
    )?;
    Ok(id)
}

/// The user's proposal with this id; another user's is `None`.
pub fn find(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<Proposal>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM assistant_proposals WHERE id = ?1 AND user_id = ?2"
    ))?
    .query_row(params![id, user_id], proposal)
    .optional()?)
}

/// The proposals of the user's conversation, in the order they were made.
pub fn of_conversation(
    c: &Connection,
    user_id: &UserId,
    conversation_id: &str,
) -> Result<Vec<Proposal>> {
    let rows = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM assistant_proposals WHERE conversation_id = ?1 AND user_id = ?2
             ORDER BY created_at, rowid"
        ))?
        .query_map(params![conversation_id, user_id], proposal)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Moves a pending proposal to `state` (with the booked record when
/// saved); `false` when it is not pending (any more).
pub fn settle(
    c: &Connection,
    user_id: &UserId,
    id: &str,
    state: State,
    record_id: Option<&str>,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE assistant_proposals SET state = ?1, record_id = ?2, updated_at = ?3
         WHERE id = ?4 AND user_id = ?5 AND state = ?6",
        params![
            state.code(),
            record_id,
            now,
            id,
            user_id,
            State::Pending.code()
        ],
    )? == 1)
}
