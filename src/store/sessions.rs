//! Browser sessions, stored only as the SHA-256 of the cookie value.

use super::users::UserId;
use super::users::{self, User};
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};

pub fn insert(
    c: &Connection,
    token_hash: &str,
    user_id: &UserId,
    now: &str,
    expires_at: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at, last_seen_at)
         VALUES (?1, ?2, ?3, ?4, ?3)",
        params![token_hash, user_id, now, expires_at],
    )?;
    Ok(())
}

/// A live session: its user and when it was last pushed forward.
pub struct Live {
    pub user: User,
    pub last_seen_at: String,
}

/// The session's user, if the session exists and has not expired at `now`.
pub fn find_live(c: &Connection, token_hash: &str, now: &str) -> Result<Option<Live>> {
    let row: Option<(UserId, String)> = c
        .query_row(
            "SELECT user_id, last_seen_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
            params![token_hash, now],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((user_id, last_seen_at)) = row else {
        return Ok(None);
    };
    Ok(users::find(c, &user_id)?.map(|user| Live { user, last_seen_at }))
}

/// Slides the expiry forward.
pub fn touch(c: &Connection, token_hash: &str, now: &str, expires_at: &str) -> Result<()> {
    c.execute(
        "UPDATE sessions SET last_seen_at = ?1, expires_at = ?2 WHERE token_hash = ?3",
        params![now, expires_at, token_hash],
    )?;
    Ok(())
}

pub fn delete(c: &Connection, token_hash: &str) -> Result<()> {
    c.execute("DELETE FROM sessions WHERE token_hash = ?1", [token_hash])?;
    Ok(())
}

/// Ends every session of a user (after a password reset or change), except
/// optionally the one making the change.
pub fn delete_all_for_user(c: &Connection, user_id: &UserId, keep: Option<&str>) -> Result<()> {
    c.execute(
        "DELETE FROM sessions WHERE user_id = ?1 AND token_hash <> COALESCE(?2, '')",
        params![user_id, keep],
    )?;
    Ok(())
}

pub fn delete_expired(c: &Connection, now: &str) -> Result<usize> {
    Ok(c.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])?)
}
