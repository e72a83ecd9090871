//! Insights: findings about a user's money, stored in German with
//! language-independent metadata.

use crate::error::Result;
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

/// Unread, not dismissed and unexpired insights at `now`, newest first.
pub fn unread(c: &Connection, user_id: &str, now: &str, limit: u32) -> Result<Vec<Insight>> {
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
pub fn next_expiry(c: &Connection, user_id: &str, now: &str) -> Result<Option<String>> {
    Ok(c.query_row(
        "SELECT MIN(expires_at) FROM insights
         WHERE user_id = ?1 AND is_read = 0 AND dismissed_at IS NULL AND expires_at > ?2",
        params![user_id, now],
        |r| r.get(0),
    )?)
}
