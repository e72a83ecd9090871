//! Incomes: once or recurring.

use super::prices;
use super::recurring::NewRecurring;
use super::table::{earlier_amounts, read_columns, written_columns, Table};
use crate::domain::money;
use crate::domain::prices::{Earlier, Prices};
use crate::domain::recurrence::{Frequency, Schedule};
use chrono::NaiveDate;
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
        Schedule::stored(self.frequency, self.start_date, self.end_date)
    }
}

impl Table for Income {
    type New = NewRecurring;
    const NAME: &'static str = "incomes";
    const ORDER: &'static str = "start_date DESC, name COLLATE NOCASE, id";

    read_columns! {
        name, amount: "amount_cents" => money::from_cents, currency,
        frequency, start_date, end_date, account_id, notes, created_at, updated_at,
        earlier_amounts: earlier_amounts!("income_id", "incomes") => prices::parse,
    }

    written_columns! { i;
        "name" => i.name, "amount_cents" => money::to_cents(i.amount), "currency" => i.currency,
        "account_id" => i.account_id, "notes" => i.notes;
        schedule: i.schedule,
    }
}
