//! What the scheduled records share: [`Planned`], an amount on a schedule
//! (recurring expenses, incomes and transfers, stored and written), and
//! [`NewRecurring`], one validated record for the expense and income tables.

use crate::domain::money;
use crate::domain::prices::{Earlier, Prices};
use crate::domain::recurrence::{Frequency, Schedule};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

/// An amount on a schedule, as its five columns hold it (`amount_cents`,
/// `currency`, `frequency`, `start_date`, `end_date`, read and written by
/// `read_columns!` and `written_columns!` after `; plan`) and as a
/// record's JSON shows it, flattened into the record.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Planned {
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
}

impl Planned {
    /// A validated amount on a validated schedule, ready to write.
    pub fn new(amount: Decimal, currency: String, schedule: Schedule) -> Planned {
        Planned {
            amount,
            currency,
            frequency: schedule.frequency,
            start_date: schedule.start,
            end_date: schedule.end,
        }
    }

    /// When it is due: a one-off ends on its day, whatever the end column holds.
    pub fn schedule(&self) -> Schedule {
        Schedule::stored(self.frequency, self.start_date, self.end_date)
    }

    /// The amount over time, given the amounts before the latest one.
    pub fn prices(&self, earlier: &[Earlier]) -> Prices {
        Prices {
            latest: self.amount,
            earlier: earlier.to_vec(),
        }
    }
}

/// A validated recurring expense or income, ready to write. An income has
/// no category and is never a subscription: its table writes neither field.
pub struct NewRecurring {
    pub name: String,
    pub plan: Planned,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
    /// The day a changed amount applies from, when one was chosen.
    pub amount_from: Option<NaiveDate>,
}
