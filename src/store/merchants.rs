//! What category each (normalised) merchant belongs to, learned from the user.

use super::users::UserId;
use crate::domain::merchant;
use crate::error::Result;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;

/// Remembers `merchant` → `category_id` (the latest choice wins).
pub fn learn(
    c: &Connection,
    user_id: &UserId,
    merchant: &str,
    category_id: &str,
    now: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO merchant_categories (user_id, merchant, category_id, uses, updated_at)
         VALUES (?1, ?2, ?3, 1, ?4)
         ON CONFLICT (user_id, merchant) DO UPDATE SET
            uses = CASE WHEN category_id = excluded.category_id THEN uses + 1 ELSE 1 END,
            category_id = excluded.category_id,
            updated_at = excluded.updated_at",
    )?
    .execute(params![user_id, merchant, category_id, now])?;
    Ok(())
}

/// The learned category of exactly this merchant key.
pub fn lookup(c: &Connection, user_id: &UserId, merchant: &str) -> Result<Option<(String, i64)>> {
    Ok(c.query_row(
        "SELECT category_id, uses FROM merchant_categories WHERE user_id = ?1 AND merchant = ?2",
        params![user_id, merchant],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()?)
}

/// How many learned merchants [`category_for`] compares a new one with:
/// the most used, so the cost stays bounded.
const FUZZY_CANDIDATES: i64 = 5000;

/// The learned category for merchant `key`: exactly its own, or else that
/// of the learned merchant most like it ([`merchant::closest`]), with the
/// key it was learned under.
pub fn category_for(
    c: &Connection,
    user_id: &UserId,
    key: &str,
) -> Result<Option<(String, String)>> {
    if let Some((category, _)) = lookup(c, user_id, key)? {
        return Ok(Some((category, key.to_string())));
    }
    let mut s = c.prepare_cached(
        "SELECT merchant, category_id, uses FROM merchant_categories
         WHERE user_id = ?1 ORDER BY uses DESC, merchant LIMIT ?2",
    )?;
    let known: Vec<(String, String, i64)> = s
        .query_map(params![user_id, FUZZY_CANDIDATES], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let found = merchant::closest(key, known.iter().map(|(k, _, uses)| (k.as_str(), *uses)));
    Ok(found.and_then(|f| {
        known
            .iter()
            .find(|(k, ..)| k == f)
            .map(|(k, category, _)| (category.clone(), k.clone()))
    }))
}

/// Learned merchants starting with `prefix`, most used first.
pub fn with_prefix(
    c: &Connection,
    user_id: &UserId,
    prefix: &str,
    limit: u32,
) -> Result<Vec<(String, String, i64)>> {
    let escaped = super::like_escaped(prefix);
    let mut s = c.prepare_cached(
        "SELECT merchant, category_id, uses FROM merchant_categories
         WHERE user_id = ?1 AND merchant LIKE ?2 ESCAPE '\\'
         ORDER BY uses DESC, merchant LIMIT ?3",
    )?;
    let rows = s
        .query_map(params![user_id, format!("{escaped}%"), limit], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// How far back [`names_like`] looks: the newest entries of the user, so
/// the cost stays bounded however many there are.
const RECENT_ENTRIES: i64 = 5000;

/// Merchants as the user spelled them on their newest one-time expenses,
/// starting with `prefix` (ASCII letters in any case), most used first.
pub fn names_like(
    c: &Connection,
    user_id: &UserId,
    prefix: &str,
    limit: u32,
) -> Result<Vec<String>> {
    let escaped = super::like_escaped(prefix);
    let mut s = c.prepare_cached(
        "SELECT merchant FROM (
             SELECT merchant FROM daily_expenses
             WHERE user_id = ?1 AND merchant <> ''
             ORDER BY date DESC LIMIT ?4)
         WHERE merchant LIKE ?2 ESCAPE '\\'
         GROUP BY merchant ORDER BY count(*) DESC, merchant LIMIT ?3",
    )?;
    let rows = s
        .query_map(
            params![user_id, format!("{escaped}%"), limit, RECENT_ENTRIES],
            |r| r.get(0),
        )?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The user's whole merchant memory: merchant key → category id.
pub fn memory(c: &Connection, user_id: &UserId) -> Result<HashMap<String, String>> {
    let mut s = c.prepare_cached(
        "SELECT merchant, category_id FROM merchant_categories WHERE user_id = ?1",
    )?;
    let memory = s
        .query_map(params![user_id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(memory)
}
