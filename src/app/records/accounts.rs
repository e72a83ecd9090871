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
use crate::store::{require_owned_field, Cap};
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
                require_owned_field::<Account>(tx, &user, "moveTo", target)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::records::{self, DailyInput, Update};
    use crate::app::testing::{fields, Fixture};
    use rust_decimal::Decimal;
    use serde_json::json;

    fn account(json: Value) -> AccountInput {
        serde_json::from_value(json).unwrap()
    }

    async fn giro(f: &Fixture, user: &UserId) -> Account {
        let new = account(
            json!({"name": "Giro", "type": "checking", "currency": "eur", "balance": "1200.50"}),
        );
        records::create(&f.state, user, new).await.unwrap()
    }

    async fn history(f: &Fixture, user: &UserId, id: &str) -> Vec<(String, Decimal)> {
        let (user, id) = (user.clone(), id.to_string());
        let points = f
            .state
            .db
            .run(move |c| balance_history::of_account(c, &user, &id))
            .await
            .unwrap();
        points
            .into_iter()
            .map(|p| (p.date.to_string(), p.balance))
            .collect()
    }

    #[tokio::test]
    async fn an_account_names_each_field_it_lacks_and_keeps_its_currency_code() {
        let f = Fixture::on("2026-03-15");
        let user = f.user("anna@example.org").await;
        let e = records::create(
            &f.state,
            &user,
            account(json!({"name": "Giro", "type": "bank"})),
        )
        .await
        .unwrap_err();
        assert_eq!(
            fields(&e),
            [
                ("type".to_string(), Reason::AccountType),
                ("currency".to_string(), Reason::Required)
            ]
        );
        let made = giro(&f, &user).await;
        assert_eq!(
            (made.currency.as_str(), made.balance.0),
            ("EUR", Decimal::new(120050, 2))
        );
    }

    #[tokio::test]
    async fn an_update_changes_only_the_fields_it_gives_and_a_new_balance_goes_into_the_history() {
        let f = Fixture::on("2026-03-15");
        let user = f.user("anna@example.org").await;
        let made = giro(&f, &user).await;
        assert_eq!(
            history(&f, &user, &made.id).await,
            [("2026-03-15".to_string(), Decimal::new(120050, 2))]
        );

        f.set_day("2026-03-20");
        let renamed = records::update(
            &f.state,
            &user,
            Update {
                id: Some(made.id.clone()),
                fields: account(json!({"name": "Girokonto"})),
            },
        )
        .await
        .unwrap();
        assert_eq!(
            (
                renamed.name.as_str(),
                renamed.kind.as_str(),
                renamed.currency.as_str(),
                renamed.balance.0
            ),
            ("Girokonto", "checking", "EUR", Decimal::new(120050, 2))
        );
        assert_eq!(
            history(&f, &user, &made.id).await.len(),
            1,
            "the balance did not change"
        );

        records::update(
            &f.state,
            &user,
            Update {
                id: Some(made.id.clone()),
                fields: account(json!({"balance": "900"})),
            },
        )
        .await
        .unwrap();
        assert_eq!(
            history(&f, &user, &made.id).await.last(),
            Some(&("2026-03-20".to_string(), Decimal::new(900, 0)))
        );
    }

    #[tokio::test]
    async fn another_users_account_is_not_found_to_change_or_delete() {
        let f = Fixture::on("2026-03-15");
        let (anna, bob) = (
            f.user("anna@example.org").await,
            f.user("bob@example.org").await,
        );
        let annas = giro(&f, &anna).await;
        let e = records::update(
            &f.state,
            &bob,
            Update {
                id: Some(annas.id.clone()),
                fields: account(json!({"name": "Mine"})),
            },
        )
        .await
        .unwrap_err();
        assert!(matches!(e, Error::NotFound), "{e:?}");
        let e = delete(&f.state, &bob, annas.id.clone(), None)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::NotFound), "{e:?}");
        // Nor may bob move his entries onto it.
        let bobs = giro(&f, &bob).await;
        let e = delete(&f.state, &bob, bobs.id.clone(), Some(annas.id.clone()))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::UnknownId(field) if field == "moveTo"),
            "{e:?}"
        );
        assert_eq!(
            records::list::<AccountInput>(&f.state, &anna)
                .await
                .unwrap()[0]
                .name,
            "Giro"
        );
    }

    #[tokio::test]
    async fn an_account_in_use_is_deleted_only_with_its_entries_moved_to_another() {
        let f = Fixture::on("2026-03-15");
        let user = f.user("anna@example.org").await;
        let (old, new) = (giro(&f, &user).await, giro(&f, &user).await);
        let bread: DailyInput = serde_json::from_value(
            json!({"name": "Bäcker", "amount": "3.20", "date": "2026-03-14", "accountId": old.id}),
        )
        .unwrap();
        records::create(&f.state, &user, bread).await.unwrap();

        let e = delete(&f.state, &user, old.id.clone(), None)
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::Refused(Reason::AccountInUse(_))),
            "{e:?}"
        );
        let e = delete(&f.state, &user, old.id.clone(), Some(old.id.clone()))
            .await
            .unwrap_err();
        assert_eq!(fields(&e), [("moveTo".to_string(), Reason::AnotherAccount)]);

        delete(&f.state, &user, old.id.clone(), Some(new.id.clone()))
            .await
            .unwrap();
        let left = records::list::<AccountInput>(&f.state, &user)
            .await
            .unwrap();
        assert_eq!(
            left.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
            [new.id.as_str()]
        );
        let entries = records::list::<DailyInput>(&f.state, &user).await.unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].entry.account_id, new.id, "the entry moved along");
    }
}
