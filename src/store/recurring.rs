//! What a recurring expense and an income are when written: one validated
//! record, [`NewRecurring`], for both tables.

use crate::domain::recurrence::Schedule;
use chrono::NaiveDate;
use rust_decimal::Decimal;

/// A validated recurring expense or income, ready to write. An income has
/// no category and is never a subscription: its table writes neither field.
pub struct NewRecurring {
    pub name: String,
    pub amount: Decimal,
    pub currency: String,
    pub schedule: Schedule,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
    /// The day a changed amount applies from, when one was chosen.
    pub amount_from: Option<NaiveDate>,
}
