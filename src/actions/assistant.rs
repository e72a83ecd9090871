//! The assistant's actions: `listConversations`, `getConversation`,
//! `deleteConversation`, `confirmProposal`, `discardProposal` and
//! `previewTool`, over [`crate::app::assistant`]. The chat itself is
//! `POST /api/chat` (`api::chat`).

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::assistant::{conversations, proposals, tools};
use crate::app::input::{optional_id, required_id, IdInput};
use crate::error::{Error, Reason, Result};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("listConversations", list_conversations);
    r.session("getConversation", get_conversation);
    r.session("deleteConversation", delete_conversation);
    r.session("confirmProposal", confirm_proposal);
    r.session("discardProposal", discard_proposal);
    r.session("previewTool", preview_tool);
}

async fn list_conversations(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(conversations::list(&ctx.state, &ctx.user_id()?).await?)
}

async fn get_conversation(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    let user = ctx.user()?;
    Reply::data(conversations::get(&ctx.state, &user.id, id, user.locale).await?)
}

async fn delete_conversation(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = required_id(input.id)?;
    conversations::delete(&ctx.state, &ctx.user_id()?, id).await?;
    Reply::data(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProposalInput {
    #[serde(default)]
    proposal_id: Option<String>,
}

impl ProposalInput {
    fn id(self) -> Result<String> {
        optional_id(self.proposal_id).ok_or_else(|| Error::invalid("proposalId", Reason::Required))
    }
}

/// `confirmProposal {proposalId}` → `{proposalId, state: "saved", recordId, record}`.
async fn confirm_proposal(ctx: Ctx, input: ProposalInput) -> Result<Reply> {
    let id = input.id()?;
    Reply::data(proposals::confirm(&ctx.state, ctx.user()?, id).await?)
}

/// `discardProposal {proposalId}` → `{proposalId, state: "discarded"}`.
async fn discard_proposal(ctx: Ctx, input: ProposalInput) -> Result<Reply> {
    let id = input.id()?;
    Reply::data(proposals::discard(&ctx.state, &ctx.user_id()?, id).await?)
}

#[derive(Deserialize)]
struct PreviewInput {
    #[serde(default)]
    tool: Option<String>,
    /// A JSON object (or its JSON text); left out counts as `{}`.
    #[serde(default)]
    arguments: Value,
}

/// `previewTool`'s reply: the preview, the action Confirm calls and the
/// arguments to send it (the given ones, tidied as for the chat).
#[derive(Serialize)]
struct PreviewReply {
    #[serde(flatten)]
    preview: tools::Preview,
    action: String,
    arguments: Value,
}

/// `previewTool {tool, arguments}`: what a write tool would do, without
/// doing it.
async fn preview_tool(ctx: Ctx, input: PreviewInput) -> Result<Reply> {
    let tool = optional_id(input.tool).ok_or_else(|| Error::invalid("tool", Reason::Required))?;
    let args = tools::as_object(input.arguments)
        .map_err(|_| Error::invalid("arguments", Reason::NotAnObject))?;
    let (arguments, preview) = tools::preview(&ctx.state, ctx.user()?, &tool, args).await?;
    Reply::data(PreviewReply {
        action: crate::http::names::tool(&tool).unwrap_or_default(),
        preview,
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_write_tool_names_a_registered_action_and_previewtool_is_one() {
        let registry = crate::actions::catalogue();
        let mut writes = 0;
        for tool in tools::catalogue() {
            if let Some(action) = crate::http::names::tool(&tool.name) {
                assert!(registry.get(&action).is_some(), "{action} is an action");
                writes += 1;
            }
        }
        assert_eq!(writes, 8, "a create and an update per kind of record");
        assert!(registry.get("previewTool").is_some());
    }
}
