//! Accounts: checking, savings, ETF. The balance is kept by the user.

use super::table::{read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::money;
use crate::domain::money::Money;
use crate::error::Result;
use crate::error::Uses;
use rusqlite::{params, Connection, OptionalExtension};
use rust_decimal::Decimal;
use serde::Serialize;

/// The kinds of account (`type`).
pub const TYPES: [&str; 3] = ["checking", "savings", "etf"];

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub currency: String,
    pub balance: Money,
    pub created_at: String,
    pub updated_at: String,
    /// When the user last set the balance (a timestamp); unknown for
    /// accounts kept before this was recorded.
    pub balance_set_at: Option<String>,
}

pub struct NewAccount {
    pub name: String,
    pub kind: String,
    pub currency: String,
    pub balance: Decimal,
}

impl Table for Account {
    type New = NewAccount;
    const NAME: &'static str = "accounts";
    const ORDER: &'static str = "name COLLATE NOCASE, id";

    read_columns! {
        name, kind: "type", currency, balance: "balance_cents" => Money::from_cents,
        created_at, updated_at, balance_set_at,
    }

    written_columns! { a;
        "name" => a.name, "type" => a.kind, "currency" => a.currency,
        "balance_cents" => money::to_cents(a.balance),
    }
}

/// How many entries of each kind still use the account.
pub fn usage(c: &Connection, user_id: &UserId, id: &str) -> Result<[(Uses, i64); 4]> {
    let count =
        |sql: &str| -> Result<i64> { Ok(c.query_row(sql, params![id, user_id], |r| r.get(0))?) };
    Ok([
        (Uses::RecurringExpenses, count("SELECT COUNT(*) FROM expenses WHERE account_id = ?1 AND user_id = ?2")?),
        (Uses::DailyExpenses, count("SELECT COUNT(*) FROM daily_expenses WHERE account_id = ?1 AND user_id = ?2")?),
        (Uses::Incomes, count("SELECT COUNT(*) FROM incomes WHERE account_id = ?1 AND user_id = ?2")?),
        (
            Uses::Transfers,
            count("SELECT COUNT(*) FROM transfers WHERE (from_account_id = ?1 OR to_account_id = ?1) AND user_id = ?2")?,
        ),
    ])
}

/// Moves every entry of account `from` to account `to` (both the user's).
/// Transfers that would then run from an account to itself are deleted.
pub fn move_entries(c: &Connection, user_id: &UserId, from: &str, to: &str) -> Result<()> {
    // Import batches follow the records they wrote, so an undo still finds them.
    for table in ["expenses", "daily_expenses", "incomes", "import_batches"] {
        c.execute(
            &format!("UPDATE {table} SET account_id = ?1 WHERE account_id = ?2 AND user_id = ?3"),
            params![to, from, user_id],
        )?;
    }
    c.execute(
        "DELETE FROM transfers WHERE user_id = ?1 AND
           ((from_account_id = ?2 AND to_account_id = ?3) OR (from_account_id = ?3 AND to_account_id = ?2))",
        params![user_id, from, to],
    )?;
    c.execute(
        "UPDATE transfers SET from_account_id = ?1 WHERE from_account_id = ?2 AND user_id = ?3",
        params![to, from, user_id],
    )?;
    c.execute(
        "UPDATE transfers SET to_account_id = ?1 WHERE to_account_id = ?2 AND user_id = ?3",
        params![to, from, user_id],
    )?;
    Ok(())
}

/// The currency of the user's account, if it is theirs.
pub fn currency(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<String>> {
    Ok(
        c.prepare_cached("SELECT currency FROM accounts WHERE id = ?1 AND user_id = ?2")?
            .query_row(params![id, user_id], |r| r.get(0))
            .optional()?,
    )
}

/// Sets the balance of the user's account (as of `now`, when it differs).
pub fn set_balance(
    c: &Connection,
    user_id: &UserId,
    id: &str,
    balance: Decimal,
    now: &str,
) -> Result<()> {
    c.prepare_cached(
        "UPDATE accounts SET balance_cents = ?3, updated_at = ?4 WHERE id = ?1 AND user_id = ?2",
    )?
    .execute(params![id, user_id, money::to_cents(balance), now])?;
    Ok(())
}
