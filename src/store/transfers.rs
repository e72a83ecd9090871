//! Transfers between two of the user's own accounts, once or recurring.
//! The amount is in the source account's currency.

use super::table::{read_columns, written_columns, Table};
use crate::domain::money;
use crate::domain::recurrence::{Frequency, Schedule};
use chrono::NaiveDate;
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
        Schedule::stored(self.frequency, self.start_date, self.end_date)
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
    const ORDER: &'static str = "start_date DESC, id";

    read_columns! {
        from_account_id, to_account_id, amount: "amount_cents" => money::from_cents, currency,
        frequency, start_date, end_date, note, created_at, updated_at,
    }

    written_columns! { t;
        "from_account_id" => t.from_account_id, "to_account_id" => t.to_account_id,
        "amount_cents" => money::to_cents(t.amount), "currency" => t.currency, "note" => t.note;
        schedule: t.schedule,
    }
}
