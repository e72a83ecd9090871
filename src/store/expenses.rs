//! Recurring expenses; subscriptions are those flagged `is_subscription`.

use super::prices;
use super::recurring::{NewRecurring, Planned};
use super::table::{earlier_amounts, read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::money;
use crate::domain::prices::{Earlier, Prices};
use crate::error::Result;
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expense {
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub plan: Planned,
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
        self.plan.prices(&self.earlier_amounts)
    }
}

impl Table for Expense {
    type New = NewRecurring;
    const NAME: &'static str = "expenses";
    const ORDER: &'static str = "name COLLATE NOCASE, id";

    read_columns! {
        name, account_id, category_id, is_subscription, notes, created_at, updated_at,
        previous_amount: "previous_amount_cents" => money::from_cents_or_none, amount_changed_at,
        earlier_amounts: earlier_amounts!("expense_id", "expenses") => prices::parse;
        plan
    }

    written_columns! { e;
        "name" => e.name, "account_id" => e.account_id, "category_id" => e.category_id,
        "is_subscription" => e.is_subscription, "notes" => e.notes;
        plan: e.plan,
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
