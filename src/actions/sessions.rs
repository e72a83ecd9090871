//! The user's own browser sessions: `listSessions`, `revokeSession`,
//! `revokeOtherSessions` (`app::sessions`).

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::sessions;
use crate::error::{Error, Result};
use crate::store::sessions::Listed;
use serde::{Deserialize, Serialize};

pub fn register(r: &mut Registry) {
    r.session("listSessions", list);
    r.session("revokeSession", revoke);
    r.session("revokeOtherSessions", revoke_others);
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionView {
    #[serde(flatten)]
    session: Listed,
    /// The session of this request.
    current: bool,
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let session = ctx.session.as_ref().ok_or(Error::Unauthorized)?;
    let listed = sessions::list(&ctx.state, &session.user.id).await?;
    Reply::data(
        listed
            .into_iter()
            .map(|s| SessionView {
                current: s.id == session.id,
                session: s,
            })
            .collect::<Vec<_>>(),
    )
}

#[derive(Deserialize)]
struct RevokeInput {
    id: String,
}

/// Signs out one session; the current one too (like `logout`, the cookie
/// is then cleared).
async fn revoke(ctx: Ctx, input: RevokeInput) -> Result<Reply> {
    let session = ctx.session.as_ref().ok_or(Error::Unauthorized)?;
    sessions::revoke(&ctx.state, &session.user.id, &input.id).await?;
    let reply = Reply::data(())?;
    Ok(if input.id.trim() == session.id {
        reply.with_cookie(crate::auth::session::clear_cookie(&ctx.state.config))
    } else {
        reply
    })
}

async fn revoke_others(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let session = ctx.session.as_ref().ok_or(Error::Unauthorized)?;
    let ended = sessions::revoke_others(&ctx.state, &session.user.id, &session.token_hash).await?;
    Reply::data(serde_json::json!({ "revoked": ended }))
}
