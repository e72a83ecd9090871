//! Incomes: once or recurring.

use super::prices;
use super::table::Table;
use crate::domain::money;
use crate::domain::prices::{Earlier, Prices};
use crate::domain::recurrence::{Frequency, Schedule};
use chrono::NaiveDate;
use rusqlite::types::ToSql;
use rusqlite::{params, Row};
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
    /// The amounts before the latest one, oldest first (`docs/actions.md`,
    /// Price changes).
    pub earlier_amounts: Vec<Earlier>,
}

impl Income {
    /// The amount over time.
    pub fn prices(&self) -> Prices {
        Prices {
            latest: self.amount,
            earlier: self.earlier_amounts.clone(),
        }
    }

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
    /// The day a changed amount applies from, when one was chosen.
    pub amount_from: Option<NaiveDate>,
}

impl Table for Income {
    type New = NewIncome;
    const NAME: &'static str = "incomes";
    const COLUMNS: &'static str =
        "id, name, amount_cents, currency, frequency, start_date, end_date, \
                                   account_id, notes, created_at, updated_at, \
                                   (SELECT group_concat(p.until || ' ' || p.amount_cents) \
                                      FROM earlier_amounts p \
                                     WHERE p.income_id = incomes.id AND p.user_id = incomes.user_id)";
    const WRITTEN: &'static [&'static str] = &[
        "name",
        "amount_cents",
        "currency",
        "frequency",
        "start_date",
        "end_date",
        "account_id",
        "notes",
    ];
    const ORDER: &'static str = "start_date DESC, name COLLATE NOCASE, id";

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
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
            earlier_amounts: prices::parse(r.get(11)?),
        })
    }

    fn bind<R>(i: &NewIncome, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
        f(params![
            i.name,
            money::to_cents(i.amount),
            i.currency,
            i.schedule.frequency.code(),
            i.schedule.start,
            i.schedule.end,
            i.account_id,
            i.notes
        ])
    }
}
