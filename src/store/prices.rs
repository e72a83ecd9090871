//! The earlier amounts of recurring expenses and incomes
//! ([`crate::domain::prices`]), kept in `earlier_amounts`.

use super::users::UserId;
use crate::domain::money;
use crate::domain::prices::{Earlier, Prices, Update};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};

/// Whose earlier amounts: the column of `earlier_amounts` naming the item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Expense,
    Income,
}

impl Owner {
    fn column(self) -> &'static str {
        match self {
            Owner::Expense => "expense_id",
            Owner::Income => "income_id",
        }
    }
}

/// Reads the text of the `earlier` column the expense and income tables
/// select: `until amount_cents` pairs, comma-separated, in any order.
pub fn parse(text: Option<String>) -> Vec<Earlier> {
    let mut out: Vec<Earlier> = text
        .as_deref()
        .unwrap_or("")
        .split(',')
        .filter_map(|pair| {
            let (until, cents) = pair.split_once(' ')?;
            Some(Earlier {
                until: until.parse().ok()?,
                amount: money::from_cents(cents.parse().ok()?).into(),
            })
        })
        .collect();
    out.sort_by_key(|e| e.until);
    out
}

/// Replaces the earlier amounts of the user's item `id`.
pub fn replace(
    c: &Connection,
    user_id: &UserId,
    owner: Owner,
    id: &str,
    earlier: &[Earlier],
) -> Result<()> {
    let column = owner.column();
    c.prepare_cached(&format!(
        "DELETE FROM earlier_amounts WHERE {column} = ?1 AND user_id = ?2"
    ))?
    .execute(params![id, user_id])?;
    let mut insert = c.prepare_cached(&format!(
        "INSERT INTO earlier_amounts (user_id, {column}, until, amount_cents) VALUES (?1, ?2, ?3, ?4)"
    ))?;
    for e in earlier {
        insert.execute(params![user_id, id, e.until, money::to_cents(e.amount.0)])?;
    }
    Ok(())
}

/// Keeps the earlier amounts of the user's item `id` true to `update`, given
/// its amounts and currency before it ([`Prices::after_update`]).
pub fn follow(
    c: &Connection,
    user_id: &UserId,
    (owner, id): (Owner, &str),
    (before, currency): (&Prices, &str),
    update: &Update<'_>,
    today: NaiveDate,
) -> Result<()> {
    match before.after_update(currency, update, today) {
        Some(earlier) => replace(c, user_id, owner, id, &earlier),
        None => Ok(()),
    }
}
