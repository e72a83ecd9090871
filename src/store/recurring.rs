//! What the scheduled records share: [`Planned`], an amount on a schedule
//! (recurring expenses, incomes and transfers, stored and written), and
//! [`NewRecurring`], one validated record for the expense and income tables.

use crate::domain::money::Money;
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
    pub amount: Money,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
}

impl Planned {
    /// A validated amount on a validated schedule, ready to write.
    pub fn new(amount: Decimal, currency: String, schedule: Schedule) -> Planned {
        Planned {
            amount: Money(amount),
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
            latest: *self.amount,
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
    /// The contract terms of an expense; an income's table writes none.
    pub terms: ContractTerms,
}

/// A recurring expense's contract terms as stored (`docs/planning.md`,
/// Cancellation deadlines): the end of a term as given, the months each
/// renewal runs, the notice in months or days, and a recorded cancellation
/// with the end date the item had before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractTerms {
    pub term_end: Option<NaiveDate>,
    pub renewal_months: u32,
    pub notice_months: Option<u32>,
    pub notice_days: Option<u32>,
    pub cancelled_to: Option<NaiveDate>,
    pub end_date_before_cancel: Option<NaiveDate>,
}

impl Default for ContractTerms {
    fn default() -> Self {
        ContractTerms {
            term_end: None,
            renewal_months: crate::domain::contracts::RENEWAL_DEFAULT,
            notice_months: None,
            notice_days: None,
            cancelled_to: None,
            end_date_before_cancel: None,
        }
    }
}

impl ContractTerms {
    /// The terms the deadline follows from, when there are any: a notice,
    /// and a term's end or a renewal of 0 months.
    pub fn terms(&self) -> Option<crate::domain::contracts::Terms> {
        use crate::domain::contracts::{Notice, Terms};
        let notice = match (self.notice_months, self.notice_days) {
            (Some(m), _) => Notice::Months(m),
            (None, Some(d)) => Notice::Days(d),
            (None, None) => return None,
        };
        if self.term_end.is_none() && self.renewal_months != 0 {
            return None;
        }
        Some(Terms {
            term_end: self.term_end,
            renewal_months: self.renewal_months,
            notice,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::recurrence::Frequency;

    /// The amount of a plan is a JSON number with exactly two decimals,
    /// whatever its scale inside: the bytes every reply has carried.
    #[test]
    fn a_plans_amount_is_a_number_with_two_decimals() {
        let day = NaiveDate::from_ymd_opt(2026, 1, 31).unwrap();
        for (amount, text) in [("12.3", "12.30"), ("1234.5", "1234.50"), ("-7.05", "-7.05")] {
            let plan = Planned {
                amount: Money(amount.parse().unwrap()),
                currency: "EUR".into(),
                frequency: Frequency::Monthly,
                start_date: day,
                end_date: None,
            };
            assert_eq!(
                serde_json::to_string(&plan).unwrap(),
                format!(
                    r#"{{"amount":{text},"currency":"EUR","frequency":"monthly","startDate":"2026-01-31","endDate":null}}"#
                )
            );
        }
    }
}
