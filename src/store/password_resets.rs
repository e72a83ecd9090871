//! Password-reset links: stored hashed, single use, one hour of life.

use super::users::UserId;
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
        "INSERT INTO password_resets (token_hash, user_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![token_hash, user_id, now, expires_at],
    )?;
    Ok(())
}

/// Marks the link used and returns its user, if it is unused and unexpired.
/// One UPDATE does both, so two concurrent uses cannot both succeed.
pub fn consume(c: &Connection, token_hash: &str, now: &str) -> Result<Option<UserId>> {
    Ok(c.query_row(
        "UPDATE password_resets SET used_at = ?2
             WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
             RETURNING user_id",
        params![token_hash, now],
        |r| r.get(0),
    )
    .optional()?)
}

/// Whether the link would still work (for rendering the reset page).
pub fn is_usable(c: &Connection, token_hash: &str, now: &str) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS(SELECT 1 FROM password_resets
                       WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2)",
        params![token_hash, now],
        |r| r.get(0),
    )?)
}

/// Removes links that can no longer be used.
pub fn delete_stale(c: &Connection, now: &str) -> Result<usize> {
    Ok(c.execute(
        "DELETE FROM password_resets WHERE expires_at <= ?1 OR used_at IS NOT NULL",
        [now],
    )?)
}

/// How many links `user_id` was sent since `since` (the hourly mail limit).
pub fn count_since(c: &Connection, user_id: &UserId, since: &str) -> Result<i64> {
    Ok(c.query_row(
        "SELECT COUNT(*) FROM password_resets WHERE user_id = ?1 AND created_at > ?2",
        params![user_id, since],
        |r| r.get(0),
    )?)
}

/// Ends every link of `user_id` still outstanding: after a reset or a
/// password change, no older link may set the password again.
pub fn delete_all_for_user(c: &Connection, user_id: &UserId) -> Result<usize> {
    Ok(c.execute(
        "DELETE FROM password_resets WHERE user_id = ?1 AND used_at IS NULL",
        [user_id],
    )?)
}
