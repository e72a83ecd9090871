//! Accounts: their input and validation, and deleting one (with its
//! entries moved to another account first when asked).

use super::{Record, Written};
use crate::app::input::{self, Patch, NAME_MAX};
use crate::domain::currency::Currency;
use crate::domain::money::Sign;
use crate::error::Uses;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::accounts::TYPES;
use crate::store::accounts::{self, Account, NewAccount};
use crate::store::users::UserId;
use crate::store::{balance_history, table};
use crate::store::{require_owned_field, Cap, Owned};
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct AccountInput {
    #[serde(default)]
    name: Patch<String>,
    #[serde(default, rename = "type")]
    kind: Patch<String>,
    #[serde(default)]
    currency: Patch<String>,
    #[serde(default)]
    balance: Patch<Value>,
}

impl Record for AccountInput {
    type Stored = Account;
    const NOUN: [&'static str; 2] = ["Account", "Accounts"];
    const CAP: Cap = Cap::Accounts;

    fn validate(self, _: &Connection, _: &UserId, stored: Option<&Account>) -> Result<NewAccount> {
        let mut checks = input::Checks::default();
        let name = checks.take(input::text(
            "name",
            self.name.or(stored.map(|a| a.name.clone())),
            NAME_MAX,
        ))?;
        let kind = checks.take(match self.kind.or(stored.map(|a| a.kind.clone())) {
            None => Err(Error::invalid("type", Reason::Required)),
            Some(k) if !TYPES.contains(&k.trim()) => {
                Err(Error::invalid("type", Reason::AccountType))
            }
            Some(k) => Ok(k),
        })?;
        let currency = checks.take(match self.currency.or(stored.map(|a| a.currency.clone())) {
            Some(c) => Currency::parse("currency", &c).map(|c| c.code().to_string()),
            None => Err(Error::invalid("currency", Reason::Required)),
        })?;
        let balance = checks.take(match self.balance {
            Patch::Absent => Ok(stored.map(|a| a.balance.0).unwrap_or_default()),
            Patch::Null => Ok(Default::default()),
            Patch::Value(v) => input::amount("balance", Some(v), Sign::Any),
        })?;
        let (name, kind, currency, balance) =
            checks.finish(|| Some((name?, kind?, currency?, balance?)))?;
        Ok(NewAccount {
            name,
            kind: kind.trim().to_string(),
            currency,
            balance,
        })
    }

    /// A new account's balance, and a changed one, go into its balance
    /// history as of today.
    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, Account>) -> Result<()> {
        if w.stored
            .is_some_and(|(_, before)| before.balance == w.new.balance)
        {
            return Ok(());
        }
        balance_history::record(c, user, &w.record.id, w.today, w.new.balance, w.now)
    }
}

/// The ids of `accounts` that entries use: deleting one of them is refused
/// unless its entries move to another account.
pub fn in_use(
    c: &Connection,
    user: &UserId,
    accounts: &[Account],
) -> Result<std::collections::HashSet<String>> {
    let mut used = std::collections::HashSet::new();
    for a in accounts {
        if accounts::usage(c, user, &a.id)?.iter().any(|(_, n)| *n > 0) {
            used.insert(a.id.clone());
        }
    }
    Ok(used)
}

/// Deletes an account. One that entries still use is refused, unless
/// `moveTo` names another account to move them to (in the same transaction).
pub async fn delete(
    state: &AppState,
    user: &UserId,
    id: String,
    move_to: Option<String>,
) -> Result<()> {
    let user = user.clone();
    state
        .db
        .transaction(move |tx| {
            if table::find::<Account>(tx, &user, &id)?.is_none() {
                return Err(Error::NotFound);
            }
            if let Some(target) = &move_to {
                if *target == id {
                    return Err(Error::invalid("moveTo", Reason::AnotherAccount));
                }
                require_owned_field(tx, Owned::Account, &user, "moveTo", target)?;
                accounts::move_entries(tx, &user, &id, target)?;
            }
            let used: Vec<(usize, Uses)> = accounts::usage(tx, &user, &id)?
                .into_iter()
                .filter(|(_, n)| *n > 0)
                .map(|(what, n)| (n as usize, what))
                .collect();
            if !used.is_empty() {
                return Err(Error::refused(Reason::AccountInUse(used)));
            }
            table::delete::<Account>(tx, &user, &id)?;
            Ok(())
        })
        .await
}
