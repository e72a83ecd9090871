//! Two-factor sign-in: the user's TOTP secret (sealed, see
//! `auth::sealed`), the last step whose code was accepted, the recovery
//! codes (hashed) and the challenges between password and code (hashed).

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};

/// What is stored of a user's two-factor sign-in.
pub struct Totp {
    /// The sealed secret; `None` while two-factor sign-in is off.
    pub secret: Option<String>,
    /// A sealed secret being set up, not yet confirmed.
    pub pending: Option<String>,
    pub enabled_at: Option<String>,
    pub last_step: Option<i64>,
}

pub fn get(c: &Connection, user_id: &UserId) -> Result<Totp> {
    Ok(c.query_row(
        "SELECT totp_secret, totp_pending, totp_enabled_at, totp_last_step FROM users WHERE id = ?1",
        [user_id],
        |r| {
            Ok(Totp {
                secret: r.get(0)?,
                pending: r.get(1)?,
                enabled_at: r.get(2)?,
                last_step: r.get(3)?,
            })
        },
    )?)
}

pub fn is_on(c: &Connection, user_id: &UserId) -> Result<bool> {
    Ok(get(c, user_id)?.secret.is_some())
}

pub fn set_pending(c: &Connection, user_id: &UserId, sealed: &str) -> Result<()> {
    c.execute(
        "UPDATE users SET totp_pending = ?2 WHERE id = ?1",
        params![user_id, sealed],
    )?;
    Ok(())
}

/// Turns the pending secret on, with `step` as the step already used and
/// new recovery codes (their hashes) in place of any old ones. False when
/// nothing was pending (a concurrent call won).
pub fn enable(
    c: &Connection,
    user_id: &UserId,
    pending: &str,
    step: i64,
    code_hashes: &[String],
    now: &str,
) -> Result<bool> {
    let changed = c.execute(
        "UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_enabled_at = ?3,
                totp_last_step = ?4
         WHERE id = ?1 AND totp_pending = ?2 AND totp_secret IS NULL",
        params![user_id, pending, now, step],
    )?;
    if changed == 0 {
        return Ok(false);
    }
    replace_recovery_codes(c, user_id, code_hashes)?;
    Ok(true)
}

pub fn replace_recovery_codes(
    c: &Connection,
    user_id: &UserId,
    code_hashes: &[String],
) -> Result<()> {
    c.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user_id])?;
    let mut insert =
        c.prepare("INSERT OR IGNORE INTO recovery_codes (user_id, code_hash) VALUES (?1, ?2)")?;
    for hash in code_hashes {
        insert.execute(params![user_id, hash])?;
    }
    Ok(())
}

/// Two-factor sign-in off: secret, pending secret and recovery codes gone.
pub fn disable(c: &Connection, user_id: &UserId) -> Result<bool> {
    let changed = c.execute(
        "UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_enabled_at = NULL,
                totp_last_step = NULL
         WHERE id = ?1 AND (totp_secret IS NOT NULL OR totp_pending IS NOT NULL)",
        [user_id],
    )?;
    c.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user_id])?;
    end_challenges(c, user_id)?;
    Ok(changed > 0)
}

/// Ends the user's open challenges: after a new password or a change of
/// two-factor sign-in, a half-finished sign-in must start over.
pub fn end_challenges(c: &Connection, user_id: &UserId) -> Result<()> {
    c.execute("DELETE FROM login_challenges WHERE user_id = ?1", [user_id])?;
    Ok(())
}

/// Records that the code of `step` was used; false when that step or a
/// later one was used already (the code was replayed, or raced).
pub fn use_step(c: &Connection, user_id: &UserId, step: i64) -> Result<bool> {
    Ok(c.execute(
        "UPDATE users SET totp_last_step = ?2
         WHERE id = ?1 AND totp_secret IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < ?2)",
        params![user_id, step],
    )? > 0)
}

/// Uses up a recovery code; false when it is not one of the user's or was
/// used before.
pub fn use_recovery_code(
    c: &Connection,
    user_id: &UserId,
    code_hash: &str,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "UPDATE recovery_codes SET used_at = ?3 WHERE user_id = ?1 AND code_hash = ?2 AND used_at IS NULL",
        params![user_id, code_hash, now],
    )? > 0)
}

pub fn recovery_codes_left(c: &Connection, user_id: &UserId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT COUNT(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL",
        [user_id],
        |r| r.get(0),
    )?)
}

pub fn insert_challenge(
    c: &Connection,
    token_hash: &str,
    user_id: &UserId,
    now: &str,
    expires_at: &str,
    via_provider: bool,
) -> Result<()> {
    c.execute(
        "DELETE FROM login_challenges WHERE expires_at <= ?1 OR used_at IS NOT NULL",
        [now],
    )?;
    c.execute(
        "INSERT INTO login_challenges (token_hash, user_id, created_at, expires_at, via_provider)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token_hash, user_id, now, expires_at, via_provider],
    )?;
    Ok(())
}

/// The user a challenge is for, while it is unused and unexpired.
/// The user of a live challenge, and whether the OpenID provider (not a
/// password) came before it.
pub fn challenge_user(
    c: &Connection,
    token_hash: &str,
    now: &str,
) -> Result<Option<(UserId, bool)>> {
    Ok(c.query_row(
        "SELECT user_id, via_provider FROM login_challenges
             WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
        params![token_hash, now],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()?)
}

/// Uses the challenge up; false when it was used or expired meanwhile.
pub fn consume_challenge(c: &Connection, token_hash: &str, now: &str) -> Result<bool> {
    Ok(c.execute(
        "UPDATE login_challenges SET used_at = ?2
         WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
        params![token_hash, now],
    )? > 0)
}
