//! What the user has put aside for each non-monthly recurring expense.

use super::users::UserId;
use crate::domain::money;
use crate::error::Result;
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use std::collections::HashMap;

/// The user's pots by expense id.
pub fn by_expense(c: &Connection, user_id: &UserId) -> Result<HashMap<String, Decimal>> {
    let mut s =
        c.prepare_cached("SELECT expense_id, amount_cents FROM reserve_pots WHERE user_id = ?1")?;
    let rows = s
        .query_map([user_id], |r| Ok((r.get(0)?, money::from_cents(r.get(1)?))))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Sets the pot of `expense_id` (which the caller checked is the user's).
pub fn set(
    c: &Connection,
    user_id: &UserId,
    expense_id: &str,
    amount: Decimal,
    now: &str,
) -> Result<()> {
    c.execute(
        "INSERT INTO reserve_pots (id, user_id, expense_id, amount_cents, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (expense_id) DO UPDATE SET amount_cents = excluded.amount_cents, updated_at = excluded.updated_at",
        params![super::new_id(), user_id, expense_id, money::to_cents(amount), now],
    )?;
    Ok(())
}
