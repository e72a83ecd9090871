//! The assistant: a chat that answers from the user's own numbers through
//! tools, and proposes entries the user confirms. See `docs/assistant.md`.
//!
//! - [`tools`]: the tools the model may call. Read tools run the same
//!   reports the pages and the REST API show; write tools never write:
//!   they become previews, validated exactly like the real action.
//! - [`conversations`]: the stored conversations.
//! - [`chat`]: one request of `POST /api/chat`: the model and the tools in
//!   up to six rounds.
//! - [`proposals`]: a stored proposal is confirmed (booked once) or
//!   discarded.

pub mod chat;
pub mod conversations;
pub mod proposals;
pub mod tools;
