//! Transfers between two of the user's own accounts, once or recurring.
//! The amount is in the source account's currency.

use super::table::Table;
use crate::domain::money;
use crate::domain::recurrence::{Frequency, Schedule};
use chrono::NaiveDate;
use rusqlite::types::ToSql;
use rusqlite::{params, Row};
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

impl Table for Transfer {
    type New = NewTransfer;
    const NAME: &'static str = "transfers";
    const COLUMNS: &'static str =
        "id, from_account_id, to_account_id, amount_cents, currency, frequency, \
                                   start_date, end_date, note, created_at, updated_at";
    const WRITTEN: &'static [&'static str] = &[
        "from_account_id",
        "to_account_id",
        "amount_cents",
        "currency",
        "frequency",
        "start_date",
        "end_date",
        "note",
    ];
    const ORDER: &'static str = "start_date DESC, id";

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
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

    fn bind<R>(t: &NewTransfer, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
        f(params![
            t.from_account_id,
            t.to_account_id,
            money::to_cents(t.amount),
            t.currency,
            t.schedule.frequency.code(),
            t.schedule.start,
            t.schedule.end,
            t.note
        ])
    }
}
