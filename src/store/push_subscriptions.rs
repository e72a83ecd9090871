//! Browser push subscriptions: where to send a user's reminders.

use super::users::UserId;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};

#[derive(Clone, Debug)]
pub struct Subscription {
    pub id: String,
    pub user_id: UserId,
    pub endpoint: String,
    /// The browser's P-256 public key, base64url.
    pub p256dh: String,
    /// The browser's 16-byte auth secret, base64url.
    pub auth: String,
}

/// How a subscribe call ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Saved {
    Created,
    Updated,
    /// The user already has the maximum number of other subscriptions.
    TooMany,
}

/// Subscriptions one user may keep.
pub const MAX_PER_USER: i64 = 10;

/// Stores a subscription. An endpoint already stored is updated, keys and
/// owner: an endpoint names one browser profile, and the user who
/// subscribed in it last is the one to be reminded there (the previous
/// owner signed out of that browser or shares it). An endpoint new to the
/// user counts against [`MAX_PER_USER`]; updating one's own never does.
/// One immediate transaction, so two concurrent calls cannot both take the
/// last place.
pub fn save(
    c: &mut Connection,
    user_id: &UserId,
    session_id: &str,
    endpoint: &str,
    p256dh: &str,
    auth: &str,
    now: &str,
) -> Result<Saved> {
    let tx = super::write_transaction(c)?;
    let owner: Option<UserId> = tx
        .query_row(
            "SELECT user_id FROM push_subscriptions WHERE endpoint = ?1",
            [endpoint],
            |r| r.get(0),
        )
        .optional()?;
    let update = |tx: &rusqlite::Transaction| -> Result<Saved> {
        tx.execute(
            "UPDATE push_subscriptions SET user_id = ?2, p256dh = ?3, auth = ?4, updated_at = ?5, session_id = ?6
             WHERE endpoint = ?1",
            params![endpoint, user_id, p256dh, auth, now, session_id],
        )?;
        Ok(Saved::Updated)
    };
    let saved = match owner {
        Some(o) if &o == user_id => update(&tx)?,
        _ if count_for_user(&tx, user_id)? >= MAX_PER_USER => Saved::TooMany,
        Some(_) => update(&tx)?,
        None => {
            tx.execute(
                "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at, updated_at, session_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7)",
                params![super::new_id(), user_id, endpoint, p256dh, auth, now, session_id],
            )?;
            Saved::Created
        }
    };
    tx.commit()?;
    Ok(saved)
}

/// How many subscriptions (devices) the user has.
pub fn count_for_user(c: &Connection, user_id: &UserId) -> Result<i64> {
    Ok(c.query_row(
        "SELECT COUNT(*) FROM push_subscriptions WHERE user_id = ?1",
        [user_id],
        |r| r.get(0),
    )?)
}

/// Removes the user's subscription of `endpoint`; `false` when this user
/// has none there (another user's endpoint stays: only its browser may
/// hand it over, by subscribing).
pub fn delete_endpoint(c: &Connection, user_id: &UserId, endpoint: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM push_subscriptions WHERE user_id = ?1 AND endpoint = ?2",
        params![user_id, endpoint],
    )? == 1)
}

/// The user's subscriptions, oldest first: where a reminder goes.
pub fn list_for_user(c: &Connection, user_id: &UserId) -> Result<Vec<Subscription>> {
    let mut s = c.prepare_cached(
        "SELECT id, user_id, endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = ?1 ORDER BY created_at, id",
    )?;
    let rows = s
        .query_map([user_id], |r| {
            Ok(Subscription {
                id: r.get(0)?,
                user_id: r.get(1)?,
                endpoint: r.get(2)?,
                p256dh: r.get(3)?,
                auth: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Removes one subscription, e.g. after its push service answered 404 or
/// 410 (the browser unsubscribed or the subscription expired).
pub fn delete_by_id(c: &Connection, id: &str) -> Result<()> {
    c.execute("DELETE FROM push_subscriptions WHERE id = ?1", [id])?;
    Ok(())
}
