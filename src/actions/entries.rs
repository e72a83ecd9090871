//! What the entry actions (expenses, one-time expenses, incomes, transfers)
//! share: checking that referenced accounts and categories are the user's,
//! and the currency that defaults to the account's.

use crate::domain::currency::Currency;
use crate::error::{Error, Result};
use crate::store::{accounts, require_owned_field, Owned};
use rusqlite::Connection;

/// The entry's currency: the given one, or else its account's. Fails naming
/// `account_field` when the account is not the user's.
pub fn currency_for(
    c: &Connection,
    user_id: &str,
    account_field: &'static str,
    account_id: &str,
    given: Option<String>,
) -> Result<String> {
    let account = accounts::find(c, user_id, account_id)?
        .ok_or_else(|| Error::invalid(account_field, "not found"))?;
    match given {
        Some(code) if !code.trim().is_empty() => {
            Ok(Currency::parse("currency", &code)?.code().to_string())
        }
        _ => Ok(account.currency),
    }
}

/// Fails naming `categoryId` unless the category (if any) is the user's.
pub fn check_category(c: &Connection, user_id: &str, category_id: Option<&str>) -> Result<()> {
    match category_id {
        Some(id) => require_owned_field(c, Owned::Category, user_id, "categoryId", id),
        None => Ok(()),
    }
}
