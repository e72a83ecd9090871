//! Stored conversations: `listConversations`, `getConversation` (each
//! message with the proposals it made and their state),
//! `deleteConversation`.

use super::super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{required_id, IdInput};
use crate::error::{Error, Result};
use crate::store::conversations::{self, StoredMessage};
use crate::store::proposals::{self, Proposal};
use serde::Serialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listConversations", list);
    r.session("getConversation", get);
    r.session("deleteConversation", delete);
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    Reply::data(
        ctx.state
            .db
            .run(move |c| conversations::list(c, &user))
            .await?,
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageView {
    id: String,
    role: String,
    content: String,
    tool_calls: Value,
    /// The proposals its tool calls made: `{id, toolCallId, tool,
    /// arguments, state, recordId}`.
    proposals: Vec<Proposal>,
    created_at: String,
}

impl MessageView {
    fn new(m: StoredMessage, proposals: &mut Vec<Proposal>) -> Self {
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
            created_at: m.created_at,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConversationView {
    id: String,
    title: String,
    created_at: String,
    messages: Vec<MessageView>,
}

async fn get(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let user = ctx.user_id()?;
    let view = ctx
        .state
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
                    .map(|m| MessageView::new(m, &mut made))
                    .collect(),
            })
        })
        .await?;
    Reply::data(view)
}

async fn delete(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let user = ctx.user_id()?;
    let deleted = ctx
        .state
        .db
        .transaction(move |tx| conversations::delete(tx, &user, &id))
        .await?;
    if !deleted {
        return Err(Error::NotFound);
    }
    Reply::data(())
}
