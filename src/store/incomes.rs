//! Incomes: once or recurring.

use crate::domain::money;
use crate::domain::recurrence::{Frequency, Schedule};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension, Row};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Income {
    pub id: String,
    pub name: String,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub account_id: String,
    pub notes: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Income {
    pub fn schedule(&self) -> Schedule {
        match self.frequency {
            Frequency::Once => Schedule::once(self.start_date),
            f => Schedule {
                frequency: f,
                start: self.start_date,
                end: self.end_date,
            },
        }
    }
}

pub struct NewIncome {
    pub name: String,
    pub amount: Decimal,
    pub currency: String,
    pub schedule: Schedule,
    pub account_id: String,
    pub notes: String,
}

const COLUMNS: &str =
    "id, name, amount_cents, currency, frequency, start_date, end_date, account_id, \
                       notes, created_at, updated_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Income> {
    Ok(Income {
        id: r.get(0)?,
        name: r.get(1)?,
        amount: money::from_cents(r.get(2)?),
        currency: r.get(3)?,
        frequency: r.get(4)?,
        start_date: r.get(5)?,
        end_date: r.get(6)?,
        account_id: r.get(7)?,
        notes: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

pub fn list(c: &Connection, user_id: &str) -> Result<Vec<Income>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM incomes WHERE user_id = ?1 ORDER BY start_date DESC, name COLLATE NOCASE, id"
    ))?;
    let rows = s
        .query_map([user_id], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn find(c: &Connection, user_id: &str, id: &str) -> Result<Option<Income>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM incomes WHERE id = ?1 AND user_id = ?2"),
        [id, user_id],
        from_row,
    )
    .optional()?)
}

pub fn insert(c: &Connection, user_id: &str, i: &NewIncome, now: &str) -> Result<Income> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO incomes (id, user_id, name, amount_cents, currency, frequency, start_date, end_date,
                              account_id, notes, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
        params![
            id, user_id, i.name, money::to_cents(i.amount), i.currency, i.schedule.frequency.code(),
            i.schedule.start, i.schedule.end, i.account_id, i.notes, now
        ],
    )?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

pub fn update(
    c: &Connection,
    user_id: &str,
    id: &str,
    i: &NewIncome,
    now: &str,
) -> Result<Option<Income>> {
    c.execute(
        "UPDATE incomes SET name = ?1, amount_cents = ?2, currency = ?3, frequency = ?4, start_date = ?5,
                end_date = ?6, account_id = ?7, notes = ?8, updated_at = ?9
         WHERE id = ?10 AND user_id = ?11",
        params![
            i.name, money::to_cents(i.amount), i.currency, i.schedule.frequency.code(), i.schedule.start,
            i.schedule.end, i.account_id, i.notes, now, id, user_id
        ],
    )?;
    find(c, user_id, id)
}

pub fn delete(c: &Connection, user_id: &str, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM incomes WHERE id = ?1 AND user_id = ?2",
        [id, user_id],
    )? == 1)
}
