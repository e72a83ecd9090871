//! Stored conversations: the list, one conversation (each message with the
//! proposals it made and their state), and deleting one.

use crate::domain::locale::Locale;
use crate::error::{Error, Result};
use crate::i18n::assistant::Looked;
use crate::state::AppState;
use crate::store::conversations::{self, Conversation, StoredMessage};
use crate::store::proposals::{self, Proposal};
use crate::store::users::UserId;
use serde::Serialize;
use serde_json::Value;

/// The user's conversations, the latest first.
pub async fn list(state: &AppState, user: &UserId) -> Result<Vec<Conversation>> {
    let user = user.clone();
    state.db.run(move |c| conversations::list(c, &user)).await
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub id: String,
    pub role: String,
    pub content: String,
    pub tool_calls: Value,
    /// The proposals its tool calls made: `{id, toolCallId, tool,
    /// arguments, state, recordId}`.
    pub proposals: Vec<Proposal>,
    /// The call a tool message answers.
    #[serde(skip)]
    pub tool_call_id: Option<String>,
    /// What a read tool's message looked at, in the reader's language
    /// ("Konten angesehen"); absent for messages stored before it was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub created_at: String,
}

impl MessageView {
    fn new(m: StoredMessage, proposals: &mut Vec<Proposal>, locale: Locale) -> Self {
        let (own, others) = std::mem::take(proposals)
            .into_iter()
            .partition(|p| p.message_id == m.id);
        *proposals = others;
        MessageView {
            id: m.id,
            role: m.role,
            content: m.content,
            tool_calls: m.tool_calls.unwrap_or(Value::Array(Vec::new())),
            proposals: own,
            tool_call_id: m.tool_call_id,
            summary: m.summary.map(|s| Looked::shown(&s, locale)),
            created_at: m.created_at,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub messages: Vec<MessageView>,
}

/// One of the user's conversations with its messages, worded in `locale`;
/// another user's is not found.
pub async fn get(
    state: &AppState,
    user: &UserId,
    id: String,
    locale: Locale,
) -> Result<ConversationView> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            let conv = conversations::find(c, &user, &id)?.ok_or(Error::NotFound)?;
            let messages = conversations::messages(c, &user, &id)?;
            let mut made = proposals::of_conversation(c, &user, &id)?;
            Ok(ConversationView {
                id: conv.id,
                title: conv.title,
                created_at: conv.created_at,
                messages: messages
                    .into_iter()
                    .map(|m| MessageView::new(m, &mut made, locale))
                    .collect(),
            })
        })
        .await
}

/// Deletes one of the user's conversations with its messages.
pub async fn delete(state: &AppState, user: &UserId, id: String) -> Result<()> {
    let user = user.clone();
    let deleted = state
        .db
        .transaction(move |tx| conversations::delete(tx, &user, &id))
        .await?;
    if !deleted {
        return Err(Error::NotFound);
    }
    Ok(())
}
