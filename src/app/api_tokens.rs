//! Personal API tokens: created with the password asked again (a session
//! alone does not mint a credential that outlives it), listed, revoked.
//! A revoke is effective on the next request.

use super::sign_in::{confirm_password, Client};
use crate::auth::api_tokens::{create_for, Created};
use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::state::AppState;
use crate::store::api_tokens::{self, ApiToken};
use crate::store::users::UserId;
use chrono::{DateTime, Utc};

/// A new token named `name`, valid for `days` (or until revoked), after
/// `password` is checked; its secret is in the answer, and only there.
pub async fn create(
    state: &AppState,
    client: &Client<'_>,
    user: &UserId,
    name: String,
    days: Option<u32>,
    password: String,
) -> Result<Created> {
    confirm_password(state, client, "password", password).await?;
    let (user, now) = (user.clone(), state.clock.now());
    let created = state
        .db
        .transaction(move |tx| create_for(tx, &user, &name, days, now))
        .await?;
    tracing::info!(token_id = %created.record.id, "API token created");
    Ok(created)
}

/// The user's tokens that are not revoked, newest first.
pub async fn list(state: &AppState, user: &UserId) -> Result<Vec<ApiToken>> {
    let user = user.clone();
    state.db.run(move |c| api_tokens::list(c, &user)).await
}

/// Revokes the user's token `id`; another user's is [`Error::NotFound`].
pub async fn revoke(state: &AppState, user: &UserId, id: String) -> Result<()> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    if !state
        .db
        .run(move |c| api_tokens::revoke(c, &user, &id, &now))
        .await?
    {
        return Err(Error::NotFound);
    }
    // Effective on the next request, whatever the file system's timestamps say.
    state.token_cache.clear();
    Ok(())
}

/// The token with this hash, its user and data version: from memory while
/// no process has committed anything since it was read (so a revocation, a
/// deleted user or any write is seen on the next request), else from the
/// database.
pub async fn presented(state: &AppState, hash: &str) -> Result<Option<api_tokens::Presented>> {
    let stamp = state.db.change_stamp();
    if let Some(known) = stamp.and_then(|s| state.token_cache.get(hash, s)) {
        return Ok(Some(known));
    }
    let key = hash.to_string();
    let found = state
        .db
        .lookup(move |c| api_tokens::find_by_hash(c, &key))
        .await?;
    if let (Some(stamp), Some(p)) = (stamp, &found) {
        state.token_cache.put(hash, stamp, p.clone());
    }
    Ok(found)
}

/// Records that token `id` was used at `now`, off the request's path:
/// "last used" is bookkeeping, not an answer, and its failure is only logged.
pub fn mark_used(state: &AppState, id: String, now: DateTime<Utc>) {
    let (db, at) = (state.db.clone(), timestamp(now));
    tokio::spawn(async move {
        if let Err(e) = db.run(move |c| api_tokens::touch(c, &id, &at)).await {
            e.log();
        }
    });
}
