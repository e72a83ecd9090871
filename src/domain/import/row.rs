//! A row of a bank's file as read, whatever its format: what the CSV
//! reader and the statement readers both give.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// Why a row could not be read. Stored with the row; its text is in the
/// user's language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "camelCase")]
pub enum Problem {
    /// The date column holds something that is not a date in the format.
    Date { value: String },
    /// The amount column holds something that is not an amount.
    Amount { value: String },
    /// A booking the bank has not dated yet (comdirect's `offen`).
    Pending { value: String },
}

/// One data row of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The 1-based line in the file where the row starts.
    pub line: usize,
    pub date: Option<NaiveDate>,
    /// Signed: negative is money out of the account.
    pub amount: Option<Decimal>,
    /// From a currency column, upper case; None when the layout has none.
    pub currency: Option<String>,
    pub payee: String,
    pub memo: String,
    /// Set when the row could not be read; date or amount may then be None.
    pub problem: Option<Problem>,
}
