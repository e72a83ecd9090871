//! Incomes: once or recurring.

use super::prices;
use super::recurring::{NewRecurring, Planned};
use super::table::{earlier_amounts, read_columns, written_columns, Table};
use crate::domain::prices::{Earlier, Prices};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Income {
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub plan: Planned,
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
        self.plan.prices(&self.earlier_amounts)
    }
}

impl Table for Income {
    type New = NewRecurring;
    const NAME: &'static str = "incomes";
    const ORDER: &'static str = "start_date DESC, name COLLATE NOCASE, id";

    read_columns! {
        name, account_id, notes, created_at, updated_at,
        earlier_amounts: earlier_amounts!("income_id", "incomes") => prices::parse;
        plan
    }

    written_columns! { i;
        "name" => i.name, "account_id" => i.account_id, "notes" => i.notes;
        plan: i.plan,
    }
}
