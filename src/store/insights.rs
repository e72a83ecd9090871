//! Insights: findings about a user's money, stored with a German title and
//! message and the finding's facts as language-independent `metadata`
//! (a serialised [`Finding`]). The metadata is read back as stored, so the
//! REST API and `listInsights` return it unchanged (`docs/api.md`).

use super::users::UserId;
use crate::domain::insights::Finding;
use crate::error::Result;
use anyhow::Context;
use rusqlite::{params, Connection, Row};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Insight {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub severity: String,
    pub title: String,
    pub message: String,
    pub metadata: Option<serde_json::Value>,
    pub created_at: String,
    pub expires_at: Option<String>,
}

impl Insight {
    /// The typed finding the insight was stored from; `None` when its
    /// metadata is missing, not JSON, or not the shape of its type.
    pub fn finding(&self) -> Option<Finding> {
        self.metadata
            .as_ref()
            .and_then(|m| Finding::from_stored(&self.kind, m))
    }
}

const COLUMNS: &str = "id, type, severity, title, message, metadata, created_at, expires_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Insight> {
    let metadata: Option<String> = r.get(5)?;
    Ok(Insight {
        id: r.get(0)?,
        kind: r.get(1)?,
        severity: r.get(2)?,
        title: r.get(3)?,
        message: r.get(4)?,
        metadata: metadata.and_then(|m| serde_json::from_str(&m).ok()),
        created_at: r.get(6)?,
        expires_at: r.get(7)?,
    })
}

/// Unread insights listed (and counted by the summary) at most.
pub const UNREAD_MAX: u32 = 50;

/// Unread, not dismissed and unexpired insights at `now`, newest first.
pub fn unread(c: &Connection, user_id: &UserId, now: &str, limit: u32) -> Result<Vec<Insight>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM insights
         WHERE user_id = ?1 AND is_read = 0 AND dismissed_at IS NULL
           AND (expires_at IS NULL OR expires_at > ?2)
         ORDER BY created_at DESC, id LIMIT ?3"
    ))?;
    let rows = s
        .query_map(params![user_id, now, limit], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// When the earliest of the user's unread, unexpired insights expires: until
/// then the unread list (and its counts) cannot change without a write.
pub fn next_expiry(c: &Connection, user_id: &UserId, now: &str) -> Result<Option<String>> {
    Ok(c.query_row(
        "SELECT MIN(expires_at) FROM insights
         WHERE user_id = ?1 AND is_read = 0 AND dismissed_at IS NULL AND expires_at > ?2",
        params![user_id, now],
        |r| r.get(0),
    )?)
}

/// Whether an insight with this key is still current (unexpired at `now`,
/// read, unread or dismissed alike): then finding it again adds nothing.
pub fn is_current(c: &Connection, user_id: &UserId, dedupe_key: &str, now: &str) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS(SELECT 1 FROM insights WHERE user_id = ?1 AND dedupe_key = ?2
                       AND (expires_at IS NULL OR expires_at > ?3))",
        params![user_id, dedupe_key, now],
        |r| r.get(0),
    )?)
}

/// An insight to store: its type is the finding's, its metadata the
/// finding serialised.
pub struct NewInsight<'a> {
    pub finding: &'a Finding,
    pub severity: &'a str,
    pub title: &'a str,
    pub message: &'a str,
    pub dedupe_key: &'a str,
    pub expires_at: &'a str,
}

pub fn insert(c: &Connection, user_id: &UserId, i: &NewInsight<'_>, now: &str) -> Result<()> {
    let metadata = serde_json::to_string(i.finding).context("insight metadata")?;
    c.execute(
        "INSERT INTO insights (id, user_id, type, severity, title, message, metadata, dedupe_key, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            super::new_id(), user_id, i.finding.kind(), i.severity, i.title, i.message, metadata,
            i.dedupe_key, now, i.expires_at
        ],
    )?;
    Ok(())
}

/// Insights listed at most.
pub const LIMIT: u32 = 100;

/// An insight as the user's list shows it: with its read state.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    #[serde(flatten)]
    pub insight: Insight,
    pub is_read: bool,
}

/// The user's current insights (read or not, not dismissed, unexpired),
/// newest first, with their read state.
pub fn current(c: &Connection, user_id: &UserId, now: &str, limit: u32) -> Result<Vec<Listed>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS}, is_read FROM insights
         WHERE user_id = ?1 AND dismissed_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)
         ORDER BY created_at DESC, id LIMIT ?3"
    ))?;
    let rows = s
        .query_map(params![user_id, now, limit], |r| {
            Ok(Listed {
                insight: from_row(r)?,
                is_read: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn mark_read(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    Ok(c.execute(
        "UPDATE insights SET is_read = 1 WHERE id = ?1 AND user_id = ?2",
        params![id, user_id],
    )? == 1)
}

pub fn dismiss(c: &Connection, user_id: &UserId, id: &str, now: &str) -> Result<bool> {
    Ok(c.execute(
        "UPDATE insights SET dismissed_at = ?3 WHERE id = ?1 AND user_id = ?2",
        params![id, user_id, now],
    )? == 1)
}
