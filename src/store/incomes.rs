//! Incomes: once or recurring.

use super::prices;
use super::recurring::{NewRecurring, Planned};
use super::table::{earlier_amounts, read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::import::candidates::{self, Near};
use crate::domain::import::reconcile::Entry;
use crate::domain::prices::{Earlier, Prices};
use crate::domain::recurrence::Frequency;
use crate::error::Result;
use rusqlite::{params, Connection};
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

/// The user's one-time incomes of `account` on the days `near` holds, as
/// a bank import compares its rows with them, in date order.
pub fn on_days(c: &Connection, user: &UserId, account: &str, near: &Near) -> Result<Vec<Entry>> {
    let (from, to) = near.span();
    let mut s = c.prepare_cached(
        "SELECT id, start_date, amount_cents, name, import_key FROM incomes
         WHERE user_id = ?1 AND account_id = ?2 AND frequency = ?5
           AND start_date BETWEEN ?3 AND ?4
         ORDER BY start_date, created_at, id",
    )?;
    let once = Frequency::Once.code();
    let rows = s.query_map(params![user, account, from, to, once], |r| {
        Ok(candidates::income_entry(
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
        ))
    })?;
    rows.filter(|e| e.as_ref().map_or(true, |e| near.contains(e.date)))
        .collect::<rusqlite::Result<_>>()
        .map_err(Into::into)
}
