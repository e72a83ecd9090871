//! The one-time expenses and incomes that may repeat monthly
//! ([`crate::domain::repeats`]): a user's since a day whose name, amount,
//! currency and account occur more than once.

use crate::domain::repeats::{Kind, OneTime};
use crate::error::Result;
use crate::store::users::UserId;
use chrono::NaiveDate;
use rusqlite::{params, Connection};

/// At most this many entries are read: far more than a year of any
/// household's repeated payments.
const MOST: i64 = 5_000;

/// The user's one-time entries of `kind` on or after `since` that share
/// their name (case and outer spaces aside), amount, currency and account
/// with another of them, oldest first.
pub fn candidates(
    c: &Connection,
    user_id: &UserId,
    kind: Kind,
    since: NaiveDate,
) -> Result<Vec<OneTime>> {
    let (table, date, category, once) = match kind {
        Kind::Expense => ("daily_expenses", "date", "category_id", ""),
        Kind::Income => ("incomes", "start_date", "NULL", "AND frequency = 'once'"),
    };
    let sql = format!(
        "SELECT id, name, amount_cents, currency, account_id, {category}, {date}
         FROM {table}
         WHERE user_id = ?1 AND {date} >= ?2 {once}
           AND (account_id, currency, amount_cents, lower(trim(name))) IN (
               SELECT account_id, currency, amount_cents, lower(trim(name))
               FROM {table}
               WHERE user_id = ?1 AND {date} >= ?2 {once}
               GROUP BY 1, 2, 3, 4 HAVING COUNT(*) >= 2)
         ORDER BY {date}, id
         LIMIT ?3"
    );
    let mut s = c.prepare_cached(&sql)?;
    let rows = s.query_map(params![user_id, since.to_string(), MOST], |r| {
        let date: String = r.get(6)?;
        Ok((
            OneTime {
                id: r.get(0)?,
                name: r.get(1)?,
                cents: r.get(2)?,
                currency: r.get(3)?,
                account_id: r.get(4)?,
                category_id: r.get(5)?,
                date: NaiveDate::MIN,
            },
            date,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (mut entry, date) = row?;
        // A stored day that does not read is no repeat's.
        if let Ok(day) = date.parse() {
            entry.date = day;
            out.push(entry);
        }
    }
    Ok(out)
}
