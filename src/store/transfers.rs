//! Transfers between two of the user's own accounts, once or recurring.
//! The amount is in the source account's currency.

use crate::domain::money;
use crate::domain::recurrence::{Frequency, Schedule};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection, OptionalExtension, Row};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Transfer {
    pub id: String,
    pub from_account_id: String,
    pub to_account_id: String,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub note: String,
    pub created_at: String,
    pub updated_at: String,
}

impl Transfer {
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

pub struct NewTransfer {
    pub from_account_id: String,
    pub to_account_id: String,
    pub amount: Decimal,
    pub currency: String,
    pub schedule: Schedule,
    pub note: String,
}

const COLUMNS: &str =
    "id, from_account_id, to_account_id, amount_cents, currency, frequency, start_date, \
                       end_date, note, created_at, updated_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Transfer> {
    Ok(Transfer {
        id: r.get(0)?,
        from_account_id: r.get(1)?,
        to_account_id: r.get(2)?,
        amount: money::from_cents(r.get(3)?),
        currency: r.get(4)?,
        frequency: r.get(5)?,
        start_date: r.get(6)?,
        end_date: r.get(7)?,
        note: r.get(8)?,
        created_at: r.get(9)?,
        updated_at: r.get(10)?,
    })
}

pub fn list(c: &Connection, user_id: &str) -> Result<Vec<Transfer>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM transfers WHERE user_id = ?1 ORDER BY start_date DESC, id"
    ))?;
    let rows = s
        .query_map([user_id], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

pub fn find(c: &Connection, user_id: &str, id: &str) -> Result<Option<Transfer>> {
    Ok(c.query_row(
        &format!("SELECT {COLUMNS} FROM transfers WHERE id = ?1 AND user_id = ?2"),
        [id, user_id],
        from_row,
    )
    .optional()?)
}

pub fn insert(c: &Connection, user_id: &str, t: &NewTransfer, now: &str) -> Result<Transfer> {
    let id = super::new_id();
    c.execute(
        "INSERT INTO transfers (id, user_id, from_account_id, to_account_id, amount_cents, currency, frequency,
                                start_date, end_date, note, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)",
        params![
            id, user_id, t.from_account_id, t.to_account_id, money::to_cents(t.amount), t.currency,
            t.schedule.frequency.code(), t.schedule.start, t.schedule.end, t.note, now
        ],
    )?;
    Ok(find(c, user_id, &id)?.expect("just inserted"))
}

pub fn update(
    c: &Connection,
    user_id: &str,
    id: &str,
    t: &NewTransfer,
    now: &str,
) -> Result<Option<Transfer>> {
    c.execute(
        "UPDATE transfers SET from_account_id = ?1, to_account_id = ?2, amount_cents = ?3, currency = ?4,
                frequency = ?5, start_date = ?6, end_date = ?7, note = ?8, updated_at = ?9
         WHERE id = ?10 AND user_id = ?11",
        params![
            t.from_account_id, t.to_account_id, money::to_cents(t.amount), t.currency,
            t.schedule.frequency.code(), t.schedule.start, t.schedule.end, t.note, now, id, user_id
        ],
    )?;
    find(c, user_id, id)
}

pub fn delete(c: &Connection, user_id: &str, id: &str) -> Result<bool> {
    Ok(c.execute(
        "DELETE FROM transfers WHERE id = ?1 AND user_id = ?2",
        [id, user_id],
    )? == 1)
}
