//! Personal API tokens for `/api/v1`. Only the SHA-256 of a token is stored.

use super::users::{self, User};
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

/// A token as its owner sees it: never the token itself.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiToken {
    pub id: String,
    pub name: String,
    pub created_at: String,
    pub expires_at: Option<String>,
    pub last_used_at: Option<String>,
}

pub fn insert(
    c: &Connection,
    user_id: &str,
    name: &str,
    token_hash: &str,
    now: &str,
    expires_at: Option<&str>,
) -> Result<ApiToken> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO api_tokens (id, user_id, name, token_hash, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, user_id, name, token_hash, now, expires_at],
    )?;
    Ok(ApiToken {
        id,
        name: name.to_string(),
        created_at: now.to_string(),
        expires_at: expires_at.map(str::to_string),
        last_used_at: None,
    })
}

/// The user's tokens that are not revoked, newest first (expired ones too,
/// so their owner sees why an integration stopped).
pub fn list(c: &Connection, user_id: &str) -> Result<Vec<ApiToken>> {
    let mut s = c.prepare_cached(
        "SELECT id, name, created_at, expires_at, last_used_at FROM api_tokens
         WHERE user_id = ?1 AND revoked_at IS NULL ORDER BY created_at DESC, id",
    )?;
    let rows = s
        .query_map([user_id], |r| {
            Ok(ApiToken {
                id: r.get(0)?,
                name: r.get(1)?,
                created_at: r.get(2)?,
                expires_at: r.get(3)?,
                last_used_at: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Revokes a token of the user; `false` when there is no such live token.
pub fn revoke(c: &Connection, user_id: &str, id: &str, now: &str) -> Result<bool> {
    Ok(c.execute(
        "UPDATE api_tokens SET revoked_at = ?3 WHERE id = ?1 AND user_id = ?2 AND revoked_at IS NULL",
        params![id, user_id, now],
    )? == 1)
}

/// What authenticating a request needs to know about a token.
pub struct Presented {
    pub id: String,
    pub token_hash: String,
    pub expires_at: Option<String>,
    pub revoked: bool,
    /// `None` when the token's user no longer exists.
    pub user: Option<User>,
    /// The user's data version (`user_data_versions`), for caches.
    pub data_version: i64,
}

pub fn find_by_hash(c: &Connection, token_hash: &str) -> Result<Option<Presented>> {
    let row: Option<(String, String, String, Option<String>, bool)> = c
        .prepare_cached(
            "SELECT id, token_hash, user_id, expires_at, revoked_at IS NOT NULL FROM api_tokens WHERE token_hash = ?1",
        )?
        .query_row([token_hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .optional()?;
    let Some((id, token_hash, user_id, expires_at, revoked)) = row else {
        return Ok(None);
    };
    let user = users::find(c, &user_id)?;
    let data_version = c
        .prepare_cached("SELECT version FROM user_data_versions WHERE user_id = ?1")?
        .query_row([&user_id], |r| r.get(0))
        .optional()?
        .unwrap_or(0);
    Ok(Some(Presented {
        id,
        token_hash,
        expires_at,
        revoked,
        user,
        data_version,
    }))
}

pub fn touch(c: &Connection, id: &str, now: &str) -> Result<()> {
    c.execute(
        "UPDATE api_tokens SET last_used_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}
