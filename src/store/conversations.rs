//! The assistant's conversations and every message of them: the person's,
//! the assistant's (with the tool calls it made) and the tools' results.

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

/// The longest title: the first message, cut.
pub const TITLE_MAX: usize = 60;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
}

/// A stored message. `tool_calls` is the JSON list an assistant message
/// made (`[{"id","name","arguments"}]`), `tool_call_id` and `tool_name`
/// what a tool message answers.
#[derive(Clone, Debug)]
pub struct StoredMessage {
    pub id: String,
    pub role: String,
    pub content: String,
    pub tool_calls: Option<serde_json::Value>,
    pub tool_call_id: Option<String>,
    pub tool_name: Option<String>,
    /// What a read tool's message told the person when it ran.
    pub summary: Option<String>,
    pub created_at: String,
}

/// A message to store.
pub struct NewMessage<'a> {
    pub role: &'a str,
    pub content: &'a str,
    pub tool_calls: Option<&'a serde_json::Value>,
    pub tool_call_id: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    pub summary: Option<&'a str>,
}

impl<'a> NewMessage<'a> {
    pub fn text(role: &'a str, content: &'a str) -> Self {
        NewMessage {
            role,
            content,
            tool_calls: None,
            tool_call_id: None,
            tool_name: None,
            summary: None,
        }
    }
}

/// The title of a conversation that starts with `first`: its first line's
/// words, at most [`TITLE_MAX`] characters.
pub fn title_of(first: &str) -> String {
    let words = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if words.chars().count() <= TITLE_MAX {
        return words;
    }
    let cut: String = words.chars().take(TITLE_MAX - 1).collect();
    format!("{}…", cut.trim_end())
}

fn conversation(r: &Row<'_>) -> rusqlite::Result<Conversation> {
    Ok(Conversation {
        id: r.get(0)?,
        title: r.get(1)?,
        created_at: r.get(2)?,
        updated_at: r.get(3)?,
    })
}

pub fn create(c: &Connection, user_id: &UserId, title: &str, now: &str) -> Result<Conversation> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO conversations (id, user_id, title, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
        params![id, user_id, title, now],
    )?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

pub fn find(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<Conversation>> {
    Ok(c.prepare_cached(
        "SELECT id, title, created_at, updated_at FROM conversations WHERE id = ?1 AND user_id = ?2",
    )?
    .query_row(params![id, user_id], conversation)
    .optional()?)
}

/// The user's conversations, the most recently active first.
pub fn list(c: &Connection, user_id: &UserId) -> Result<Vec<Conversation>> {
    let rows = c
        .prepare_cached(
            "SELECT id, title, created_at, updated_at FROM conversations WHERE user_id = ?1
             ORDER BY updated_at DESC, created_at DESC, id DESC",
        )?
        .query_map([user_id], conversation)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn delete(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM conversations WHERE id = ?1 AND user_id = ?2",
        params![id, user_id],
    )? == 1)
}

/// Deletes the user's conversation unless a proposal was made in it;
/// answers whether it was deleted.
pub fn delete_unanswered(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM conversations WHERE id = ?1 AND user_id = ?2
           AND NOT EXISTS (SELECT 1 FROM assistant_proposals
                            WHERE conversation_id = ?1 AND user_id = ?2)",
        params![id, user_id],
    )? == 1)
}

/// The messages of the user's conversation, in order.
pub fn messages(
    c: &Connection,
    user_id: &UserId,
    conversation_id: &str,
) -> Result<Vec<StoredMessage>> {
    let rows = c
        .prepare_cached(
            "SELECT id, role, content, tool_calls, tool_call_id, tool_name, created_at, summary
             FROM conversation_messages WHERE conversation_id = ?1 AND user_id = ?2
             ORDER BY seq, created_at, id",
        )?
        .query_map(params![conversation_id, user_id], |r| {
            let calls: Option<String> = r.get(3)?;
            Ok(StoredMessage {
                id: r.get(0)?,
                role: r.get(1)?,
                content: r.get(2)?,
                tool_calls: calls.and_then(|s| serde_json::from_str(&s).ok()),
                tool_call_id: r.get(4)?,
                tool_name: r.get(5)?,
                created_at: r.get(6)?,
                summary: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Appends a message to the user's conversation (the caller found it) and
/// marks the conversation active; answers the message's id.
pub fn append(
    c: &Connection,
    user_id: &UserId,
    conversation_id: &str,
    m: &NewMessage<'_>,
    now: &str,
) -> Result<String> {
    let id = super::new_id();
    let calls = m.tool_calls.map(|v| v.to_string());
    c.execute(
        "INSERT INTO conversation_messages
           (id, conversation_id, user_id, role, content, tool_calls, tool_call_id, tool_name, created_at, seq, summary)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,
                 (SELECT COALESCE(MAX(seq), 0) + 1 FROM conversation_messages WHERE conversation_id = ?2), ?10)",
        params![id, conversation_id, user_id, m.role, m.content, calls, m.tool_call_id, m.tool_name, now, m.summary],
    )?;
    c.execute(
        "UPDATE conversations SET updated_at = ?1 WHERE id = ?2 AND user_id = ?3",
        params![now, conversation_id, user_id],
    )?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_the_first_words_cut_at_sixty_characters() {
        assert_eq!(
            title_of("  Was habe ich\n im März ausgegeben? "),
            "Was habe ich im März ausgegeben?"
        );
        let long =
            "Kann ich mir im März einen neuen Laptop leisten, wenn die Versicherung fällig wird?";
        let t = title_of(long);
        assert_eq!(t.chars().count(), TITLE_MAX);
        assert!(t.ends_with('…'));
        assert!(long.starts_with(t.trim_end_matches('…')));
    }
}
