//! Recurring expenses; subscriptions are those flagged `is_subscription`.

use super::prices;
use super::table::Table;
use super::users::UserId;
use crate::domain::money;
use crate::domain::prices::{Earlier, Prices};
use crate::domain::recurrence::{Frequency, Schedule};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::types::ToSql;
use rusqlite::{params, Connection, Row};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expense {
    pub id: String,
    pub name: String,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    pub frequency: Frequency,
    pub start_date: NaiveDate,
    pub end_date: Option<NaiveDate>,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
    pub created_at: String,
    pub updated_at: String,
    /// The amount before the last change of it, and when it changed.
    #[serde(serialize_with = "money::json::option::serialize")]
    pub previous_amount: Option<Decimal>,
    pub amount_changed_at: Option<String>,
    /// The amounts before the latest one, oldest first (`docs/actions.md`,
    /// Price changes).
    pub earlier_amounts: Vec<Earlier>,
}

impl Expense {
    /// The amount over time.
    pub fn prices(&self) -> Prices {
        Prices {
            latest: self.amount,
            earlier: self.earlier_amounts.clone(),
        }
    }

    pub fn schedule(&self) -> Schedule {
        Schedule {
            frequency: self.frequency,
            start: self.start_date,
            end: self.end_date,
        }
    }
}

pub struct NewExpense {
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

impl Table for Expense {
    type New = NewExpense;
    const NAME: &'static str = "expenses";
    const COLUMNS: &'static str = "id, name, amount_cents, currency, frequency, start_date, end_date, \
                                   account_id, category_id, is_subscription, notes, created_at, updated_at, \
                                   previous_amount_cents, amount_changed_at, \
                                   (SELECT group_concat(p.until || ' ' || p.amount_cents) \
                                      FROM earlier_amounts p \
                                     WHERE p.expense_id = expenses.id AND p.user_id = expenses.user_id)";
    const WRITTEN: &'static [&'static str] = &[
        "name",
        "amount_cents",
        "currency",
        "frequency",
        "start_date",
        "end_date",
        "account_id",
        "category_id",
        "is_subscription",
        "notes",
    ];
    const ORDER: &'static str = "name COLLATE NOCASE, id";

    fn from_row(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Expense {
            id: r.get(0)?,
            name: r.get(1)?,
            amount: money::from_cents(r.get(2)?),
            currency: r.get(3)?,
            frequency: r.get(4)?,
            start_date: r.get(5)?,
            end_date: r.get(6)?,
            account_id: r.get(7)?,
            category_id: r.get(8)?,
            is_subscription: r.get(9)?,
            notes: r.get(10)?,
            created_at: r.get(11)?,
            updated_at: r.get(12)?,
            previous_amount: r.get::<_, Option<i64>>(13)?.map(money::from_cents),
            amount_changed_at: r.get(14)?,
            earlier_amounts: prices::parse(r.get(15)?),
        })
    }

    fn bind<R>(e: &NewExpense, f: impl FnOnce(&[&dyn ToSql]) -> R) -> R {
        f(params![
            e.name,
            money::to_cents(e.amount),
            e.currency,
            e.schedule.frequency.code(),
            e.schedule.start,
            e.schedule.end,
            e.account_id,
            e.category_id,
            e.is_subscription,
            e.notes
        ])
    }
}

/// The user's recurring expenses; only subscriptions with `subscriptions_only`.
pub fn list(c: &Connection, user_id: &UserId, subscriptions_only: bool) -> Result<Vec<Expense>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {} FROM expenses WHERE user_id = ?1 AND (?2 = 0 OR is_subscription = 1)
         ORDER BY {}",
        Expense::COLUMNS,
        Expense::ORDER
    ))?;
    let rows = s
        .query_map(params![user_id, subscriptions_only], Expense::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}
