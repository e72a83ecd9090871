//! Budgets ([`crate::domain::budgets`]), kept in `budgets`: one row per
//! category and month from which a change holds.

use super::users::UserId;
use crate::domain::budgets::Change;
use crate::domain::money;
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use std::collections::HashMap;

/// `YYYY-MM` of a month's first day.
fn key(month: NaiveDate) -> String {
    month.format("%Y-%m").to_string()
}

fn parse(key: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(&format!("{key}-01"), "%Y-%m-%d").ok()
}

/// Every category's changes, oldest first.
pub fn all(c: &Connection, user_id: &UserId) -> Result<HashMap<String, Vec<Change>>> {
    let mut s = c.prepare_cached(
        "SELECT category_id, month, amount_cents, rollover FROM budgets
         WHERE user_id = ?1 ORDER BY category_id, month",
    )?;
    let mut out: HashMap<String, Vec<Change>> = HashMap::new();
    let rows = s.query_map([user_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<i64>>(2)?,
            r.get::<_, bool>(3)?,
        ))
    })?;
    for row in rows {
        let (category, month, cents, rollover) = row?;
        if let Some(month) = parse(&month) {
            out.entry(category).or_default().push(Change {
                month,
                amount: money::from_cents_or_none(cents),
                rollover,
            });
        }
    }
    Ok(out)
}

/// One category's changes, oldest first.
pub fn of(c: &Connection, user_id: &UserId, category_id: &str) -> Result<Vec<Change>> {
    Ok(all(c, user_id)?.remove(category_id).unwrap_or_default())
}

/// Writes a category's changes as [`crate::domain::budgets::apply`] made
/// them: the rows from the first changed month on are replaced.
pub fn replace(
    c: &Connection,
    user_id: &UserId,
    category_id: &str,
    from: NaiveDate,
    changes: &[Change],
    now: &str,
) -> Result<()> {
    c.execute(
        "DELETE FROM budgets WHERE user_id = ?1 AND category_id = ?2 AND month >= ?3",
        params![user_id, category_id, key(from)],
    )?;
    let mut insert = c.prepare_cached(
        "INSERT INTO budgets (user_id, category_id, month, amount_cents, rollover, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for change in changes.iter().filter(|ch| ch.month >= from) {
        insert.execute(params![
            user_id,
            category_id,
            key(change.month),
            change.amount.map(money::to_cents),
            change.rollover,
            now
        ])?;
    }
    Ok(())
}

/// Whether any of the user's categories has a budget in any month.
pub fn any(c: &Connection, user_id: &UserId) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS(SELECT 1 FROM budgets WHERE user_id = ?1 AND amount_cents IS NOT NULL)",
        params![user_id],
        |r| r.get(0),
    )?)
}

/// Whether the "over budget" push of a category and month was sent.
pub fn alert_sent(
    c: &Connection,
    user_id: &UserId,
    category_id: &str,
    month: NaiveDate,
) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS(SELECT 1 FROM budget_alerts WHERE user_id = ?1 AND category_id = ?2
                       AND month = ?3)",
        params![user_id, category_id, key(month)],
        |r| r.get(0),
    )?)
}

/// Marks the "over budget" push of a category and month as sent; `false`
/// when it was sent before.
pub fn mark_alert(
    c: &Connection,
    user_id: &UserId,
    category_id: &str,
    month: NaiveDate,
    now: &str,
) -> Result<bool> {
    Ok(c.execute(
        "INSERT OR IGNORE INTO budget_alerts (user_id, category_id, month, sent_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![user_id, category_id, key(month), now],
    )? == 1)
}

/// The users with a budget in force in the month of `first` (the only ones
/// an "over budget" push can be for).
pub fn users_with_budgets(c: &Connection, first: NaiveDate) -> Result<Vec<UserId>> {
    let mut s = c.prepare(
        "SELECT DISTINCT user_id FROM budgets WHERE month <= ?1 AND amount_cents IS NOT NULL",
    )?;
    let rows = s.query_map([key(first)], |r| r.get::<_, UserId>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
