//! The user's own browser sessions: `listSessions`, `revokeSession`,
//! `revokeOtherSessions`. Signing a session out also ends the reminders
//! its browser subscribed to.

use super::{Ctx, NoInput, Registry, Reply};
use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::store::sessions;
use serde::{Deserialize, Serialize};

pub fn register(r: &mut Registry) {
    r.session("listSessions", list);
    r.session("revokeSession", revoke);
    r.session("revokeOtherSessions", revoke_others);
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    #[serde(flatten)]
    pub session: sessions::Listed,
    /// The session of this request.
    pub current: bool,
}

/// The signed-in user's live sessions, the most recently used first.
pub async fn list_sessions(ctx: &Ctx) -> Result<Vec<SessionView>> {
    let session = ctx.session.clone().ok_or(Error::Unauthorized)?;
    let now = timestamp(ctx.state.clock.now());
    let user_id = session.user.id.clone();
    let listed = ctx
        .state
        .db
        .run(move |c| sessions::list_for_user(c, &user_id, &now))
        .await?;
    Ok(listed
        .into_iter()
        .map(|s| SessionView {
            current: s.id == session.id,
            session: s,
        })
        .collect())
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(list_sessions(&ctx).await?)
}

#[derive(Deserialize)]
struct RevokeInput {
    id: String,
}

/// Signs out one session; the current one too (like `logout`, the cookie
/// is then cleared). Another user's session id answers like an unknown one.
async fn revoke(ctx: Ctx, input: RevokeInput) -> Result<Reply> {
    let session = ctx.session.clone().ok_or(Error::Unauthorized)?;
    let user_id = session.user.id.clone();
    let id = input.id.trim().to_string();
    let current = id == session.id;
    let removed = ctx
        .state
        .db
        .transaction(move |tx| sessions::delete_by_id(tx, &user_id, &id))
        .await?;
    if !removed {
        return Err(Error::NotFound);
    }
    let reply = Reply::data(())?;
    Ok(if current {
        reply.with_cookie(crate::auth::session::clear_cookie(&ctx.state.config))
    } else {
        reply
    })
}

/// Signs out every session of the user but this one; answers how many.
async fn revoke_others(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let session = ctx.session.clone().ok_or(Error::Unauthorized)?;
    let user_id = session.user.id.clone();
    let keep = session.token_hash.clone();
    let ended = ctx
        .state
        .db
        .transaction(move |tx| sessions::delete_all_for_user(tx, &user_id, Some(&keep)))
        .await?;
    Reply::data(serde_json::json!({ "revoked": ended }))
}
