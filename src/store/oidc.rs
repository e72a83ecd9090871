//! Single sign-on identities: a provider account (issuer and subject)
//! linked to a cashkeeper user.

use super::users::{User, UserId};
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};

/// The user linked to the provider account, if any.
pub fn user_of(c: &Connection, issuer: &str, subject: &str) -> Result<Option<User>> {
    let id: Option<UserId> = c
        .query_row(
            "SELECT user_id FROM oidc_identities WHERE issuer = ?1 AND subject = ?2",
            params![issuer, subject],
            |r| r.get(0),
        )
        .optional()?;
    match id {
        Some(id) => super::users::find(c, &id),
        None => Ok(None),
    }
}

pub fn link(
    c: &Connection,
    issuer: &str,
    subject: &str,
    user_id: &UserId,
    now: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO oidc_identities (issuer, subject, user_id, created_at, last_used_at)
         VALUES (?1, ?2, ?3, ?4, ?4)",
        params![issuer, subject, user_id, now],
    )?;
    Ok(())
}

pub fn touch(c: &Connection, issuer: &str, subject: &str, now: &str) -> Result<()> {
    c.execute(
        "UPDATE oidc_identities SET last_used_at = ?3 WHERE issuer = ?1 AND subject = ?2",
        params![issuer, subject, now],
    )?;
    Ok(())
}

/// Whether the user is linked to an account at `issuer` already.
pub fn linked_at(c: &Connection, user_id: &UserId, issuer: &str) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS (SELECT 1 FROM oidc_identities WHERE user_id = ?1 AND issuer = ?2)",
        params![user_id, issuer],
        |r| r.get(0),
    )?)
}
