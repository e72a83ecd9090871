//! The user's own browser sessions: the list, and signing one or all
//! others out. Signing a session out also ends the reminders its browser
//! subscribed to. And the housekeeping that forgets expired sessions.

use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::state::AppState;
use crate::store::sessions::{self, Listed};
use crate::store::users::UserId;

/// The user's live sessions, the most recently used first.
pub async fn list(state: &AppState, user: &UserId) -> Result<Vec<Listed>> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    state
        .db
        .run(move |c| sessions::list_for_user(c, &user, &now))
        .await
}

/// Signs out the user's session `id`; another user's session id is
/// [`Error::NotFound`] like an unknown one.
pub async fn revoke(state: &AppState, user: &UserId, id: &str) -> Result<()> {
    let (user, id) = (user.clone(), id.trim().to_string());
    let removed = state
        .db
        .transaction(move |tx| sessions::delete_by_id(tx, &user, &id))
        .await?;
    if removed {
        Ok(())
    } else {
        Err(Error::NotFound)
    }
}

/// Signs out every session of the user but the one of `keep_hash`;
/// answers how many ended.
pub async fn revoke_others(state: &AppState, user: &UserId, keep_hash: &str) -> Result<usize> {
    let (user, keep) = (user.clone(), keep_hash.to_string());
    state
        .db
        .transaction(move |tx| sessions::delete_all_for_user(tx, &user, Some(&keep)))
        .await
}

/// Deletes every expired session of every user; answers how many.
pub async fn delete_expired(state: &AppState) -> Result<usize> {
    let now = timestamp(state.clock.now());
    state
        .db
        .transaction(move |tx| sessions::delete_expired(tx, &now))
        .await
}
