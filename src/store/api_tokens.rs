//! Personal API tokens for `/api/v1`. Only the SHA-256 of a token is stored.

use super::users::{User, UserId};
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
    user_id: &UserId,
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
pub fn list(c: &Connection, user_id: &UserId) -> Result<Vec<ApiToken>> {
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
pub fn revoke(c: &Connection, user_id: &UserId, id: &str, now: &str) -> Result<bool> {
    Ok(c.execute(
        "UPDATE api_tokens SET revoked_at = ?3 WHERE id = ?1 AND user_id = ?2 AND revoked_at IS NULL",
        params![id, user_id, now],
    )? == 1)
}

/// Revokes every live token of the user (after a password change, when the
/// user asks for it); answers how many.
pub fn revoke_all_for_user(c: &Connection, user_id: &UserId, now: &str) -> Result<usize> {
    Ok(c.execute(
        "UPDATE api_tokens SET revoked_at = ?2 WHERE user_id = ?1 AND revoked_at IS NULL",
        params![user_id, now],
    )?)
}

/// What authenticating a request needs to know about a token.
#[derive(Clone)]
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

/// One query: the token, its user and the user's data version.
pub fn find_by_hash(c: &Connection, token_hash: &str) -> Result<Option<Presented>> {
    Ok(c.prepare_cached(
        "SELECT t.id, t.token_hash, t.expires_at, t.revoked_at IS NOT NULL,
                    u.id, u.email, u.name, u.locale, u.base_currency, u.created_at,
                    COALESCE(v.version, 0)
             FROM api_tokens t
             LEFT JOIN users u ON u.id = t.user_id
             LEFT JOIN user_data_versions v ON v.user_id = t.user_id
             WHERE t.token_hash = ?1",
    )?
    .query_row([token_hash], |r| {
        let user = match r.get::<_, Option<UserId>>(4)? {
            Some(id) => Some(User {
                id,
                email: r.get(5)?,
                name: r.get(6)?,
                locale: r.get(7)?,
                base_currency: r.get(8)?,
                created_at: r.get(9)?,
            }),
            None => None,
        };
        Ok(Presented {
            id: r.get(0)?,
            token_hash: r.get(1)?,
            expires_at: r.get(2)?,
            revoked: r.get(3)?,
            user,
            data_version: r.get(10)?,
        })
    })
    .optional()?)
}

pub fn touch(c: &Connection, id: &str, now: &str) -> Result<()> {
    c.execute(
        "UPDATE api_tokens SET last_used_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}
