//! Recurring expenses; subscriptions are those flagged `is_subscription`.

use crate::domain::money;
use crate::domain::recurrence::{Frequency, Schedule};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension, Row};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expense {
    pub id: String,
    pub name: String,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
    pub created_at: String,
    pub updated_at: String,
    /// The amount before the last change of it, and when it changed.
    #[serde(serialize_with = "money::json::option::serialize")]
    pub previous_amount: Option<Decimal>,
    pub amount_changed_at: Option<String>,
}

impl Expense {
    pub fn schedule(&self) -> Schedule {
        Schedule {
            frequency: self.frequency,
            start: self.start_date,
            end: self.end_date,
        }
    }
}

pub struct NewExpense {
    pub name: String,
    pub amount: Decimal,
    pub currency: String,
    pub schedule: Schedule,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
}

const COLUMNS: &str =
    "id, name, amount_cents, currency, frequency, start_date, end_date, account_id, \
                       category_id, is_subscription, notes, created_at, updated_at, previous_amount_cents, \
                       amount_changed_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Expense> {
    Ok(Expense {
        id: r.get(0)?,
        name: r.get(1)?,
        amount: money::from_cents(r.get(2)?),
        currency: r.get(3)?,
        frequency: r.get(4)?,
        start_date: r.get(5)?,
        end_date: r.get(6)?,
        account_id: r.get(7)?,
        category_id: r.get(8)?,
        is_subscription: r.get(9)?,
        notes: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
        previous_amount: r.get::<_, Option<i64>>(13)?.map(money::from_cents),
        amount_changed_at: r.get(14)?,
    })
}

/// The user's recurring expenses; only subscriptions with `subscriptions_only`.
pub fn list(c: &Connection, user_id: &str, subscriptions_only: bool) -> Result<Vec<Expense>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM expenses WHERE user_id = ?1 AND (?2 = 0 OR is_subscription = 1)
         ORDER BY name COLLATE NOCASE, id"
    ))?;
    let rows = s
        .query_map(params![user_id, subscriptions_only], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn find(c: &Connection, user_id: &str, id: &str) -> Result<Option<Expense>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM expenses WHERE id = ?1 AND user_id = ?2"),
        [id, user_id],
        from_row,
    )
    .optional()?)
}

pub fn insert(c: &Connection, user_id: &str, e: &NewExpense, now: &str) -> Result<Expense> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO expenses (id, user_id, name, amount_cents, currency, frequency, start_date, end_date,
                               account_id, category_id, is_subscription, notes, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)",
        params![
            id, user_id, e.name, money::to_cents(e.amount), e.currency, e.schedule.frequency.code(),
            e.schedule.start, e.schedule.end, e.account_id, e.category_id, e.is_subscription, e.notes, now
        ],
    )?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

pub fn update(
    c: &Connection,
    user_id: &str,
    id: &str,
    e: &NewExpense,
    now: &str,
) -> Result<Option<Expense>> {
    c.execute(
        "UPDATE expenses SET name = ?1, amount_cents = ?2, currency = ?3, frequency = ?4, start_date = ?5,
                end_date = ?6, account_id = ?7, category_id = ?8, is_subscription = ?9, notes = ?10,
                updated_at = ?11
         WHERE id = ?12 AND user_id = ?13",
        params![
            e.name, money::to_cents(e.amount), e.currency, e.schedule.frequency.code(), e.schedule.start,
            e.schedule.end, e.account_id, e.category_id, e.is_subscription, e.notes, now, id, user_id
        ],
    )?;
    find(c, user_id, id)
}

pub fn delete(c: &Connection, user_id: &str, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM expenses WHERE id = ?1 AND user_id = ?2",
        [id, user_id],
    )? == 1)
}
