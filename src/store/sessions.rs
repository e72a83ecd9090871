//! Browser sessions, stored only as the SHA-256 of the cookie value, with a
//! public id for the user's list of sessions (the hash is never shown).
//!
//! Ending sessions on purpose (sign-out, revoking, a new password) also
//! removes the push subscriptions those browsers made, so a signed-out
//! phone gets no more reminders. Sessions that merely expire keep theirs.

use super::users::{self, User, UserId};
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// The longest user agent kept.
const USER_AGENT_MAX: usize = 400;

pub struct NewSession<'a> {
    pub token_hash: &'a str,
    pub user_id: &'a UserId,
    pub now: &'a str,
    pub expires_at: &'a str,
    pub user_agent: &'a str,
    /// Started by a sign-in through the OpenID provider.
    pub via_provider: bool,
}

/// Stores a session; answers its public id.
pub fn insert(c: &Connection, s: &NewSession<'_>) -> Result<String> {
    let id = super::new_id();
    let agent: String = s.user_agent.chars().take(USER_AGENT_MAX).collect();
    c.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at, last_seen_at, id, user_agent, via_provider)
         VALUES (?1, ?2, ?3, ?4, ?3, ?5, ?6, ?7)",
        params![s.token_hash, s.user_id, s.now, s.expires_at, id, agent, s.via_provider],
    )?;
    Ok(id)
}

/// When the session was started, if the OpenID provider started it.
pub fn provider_sign_in_at(c: &Connection, token_hash: &str) -> Result<Option<String>> {
    Ok(c.query_row(
        "SELECT created_at FROM sessions WHERE token_hash = ?1 AND via_provider = 1",
        [token_hash],
        |r| r.get(0),
    )
    .optional()?)
}

/// A live session: its id, its user and when it was last pushed forward.
pub struct Live {
    pub id: String,
    pub user: User,
    pub last_seen_at: String,
}

/// The session's user, if the session exists and has not expired at `now`.
pub fn find_live(c: &Connection, token_hash: &str, now: &str) -> Result<Option<Live>> {
    let row: Option<(String, UserId, String)> = c
        .query_row(
            "SELECT id, user_id, last_seen_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
            params![token_hash, now],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let Some((id, user_id, last_seen_at)) = row else {
        return Ok(None);
    };
    Ok(users::find(c, &user_id)?.map(|user| Live {
        id,
        user,
        last_seen_at,
    }))
}

/// Slides the expiry forward.
pub fn touch(c: &Connection, token_hash: &str, now: &str, expires_at: &str) -> Result<()> {
    c.execute(
        "UPDATE sessions SET last_seen_at = ?1, expires_at = ?2 WHERE token_hash = ?3",
        params![now, expires_at, token_hash],
    )?;
    Ok(())
}

/// One row of the user's list of sessions.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub id: String,
    pub created_at: String,
    pub last_seen_at: String,
    pub user_agent: String,
}

/// The user's live sessions, the most recently used first.
pub fn list_for_user(c: &Connection, user_id: &UserId, now: &str) -> Result<Vec<Listed>> {
    let mut stmt = c.prepare(
        "SELECT id, created_at, last_seen_at, user_agent FROM sessions
         WHERE user_id = ?1 AND expires_at > ?2
         ORDER BY last_seen_at DESC, created_at DESC, id",
    )?;
    let rows = stmt.query_map(params![user_id, now], |r| {
        Ok(Listed {
            id: r.get(0)?,
            created_at: r.get(1)?,
            last_seen_at: r.get(2)?,
            user_agent: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Signs out the browser of `token_hash` (logout).
/// Replaces the browser's `old` session by its `new` one after a new
/// sign-in there: the same user's push subscriptions move over; another
/// user's session ends like a sign-out.
pub fn hand_over(c: &Connection, old: &str, new: &str) -> Result<()> {
    if old == new {
        return Ok(());
    }
    c.execute(
        "UPDATE push_subscriptions SET session_id = (SELECT id FROM sessions WHERE token_hash = ?2)
         WHERE session_id = (SELECT o.id FROM sessions o JOIN sessions n ON n.user_id = o.user_id
                             WHERE o.token_hash = ?1 AND n.token_hash = ?2)",
        params![old, new],
    )?;
    delete(c, old)
}

pub fn delete(c: &Connection, token_hash: &str) -> Result<()> {
    c.execute(
        "DELETE FROM push_subscriptions WHERE session_id IN
         (SELECT id FROM sessions WHERE token_hash = ?1)",
        [token_hash],
    )?;
    c.execute("DELETE FROM sessions WHERE token_hash = ?1", [token_hash])?;
    Ok(())
}

/// Signs out one of the user's sessions by its public id; false when the
/// user has no such session (another user's id looks the same).
pub fn delete_by_id(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    c.execute(
        "DELETE FROM push_subscriptions WHERE user_id = ?1 AND session_id = ?2",
        params![user_id, id],
    )?;
    Ok(c.execute(
        "DELETE FROM sessions WHERE user_id = ?1 AND id = ?2",
        params![user_id, id],
    )? > 0)
}

/// Ends every session of a user (after a password reset or change, when
/// two-factor sign-in is turned on), except optionally the one making the
/// change; answers how many ended.
pub fn delete_all_for_user(c: &Connection, user_id: &UserId, keep: Option<&str>) -> Result<usize> {
    c.execute(
        "DELETE FROM push_subscriptions WHERE user_id = ?1 AND session_id IN
         (SELECT id FROM sessions WHERE user_id = ?1 AND token_hash <> COALESCE(?2, ''))",
        params![user_id, keep],
    )?;
    Ok(c.execute(
        "DELETE FROM sessions WHERE user_id = ?1 AND token_hash <> COALESCE(?2, '')",
        params![user_id, keep],
    )?)
}

pub fn delete_expired(c: &Connection, now: &str) -> Result<usize> {
    Ok(c.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?)
}
