//! What reconciliation compares a batch with, read from several of the
//! user's tables: the account's one-time expenses and incomes near the
//! rows' dates, the payments its recurring expenses and incomes and its
//! transfers have due then, and the merchant memory.

use crate::domain::import::candidates::{self, Near};
use crate::domain::import::reconcile::{Due, Entry, Kind};
use crate::domain::money;
use crate::domain::recurrence::Frequency;
use crate::error::Result;
use crate::store::accounts::Account;
use crate::store::incomes::Income;
use crate::store::transfers::Transfer;
use crate::store::users::UserId;
use crate::store::{daily_expenses, expenses, incomes, merchants, table};
use chrono::NaiveDate;
use rusqlite::Connection;
use std::collections::HashMap;

/// What reconciliation compares a batch with.
pub struct Existing {
    pub entries: Vec<Entry>,
    pub dues: Vec<Due>,
    /// The merchant memory: payee key → category id.
    pub memory: HashMap<String, String>,
}

impl Existing {
    /// What the user's `account_id` holds near the rows' dates
    /// (`row_dates`, sorted), and the user's merchant memory.
    pub fn read(
        c: &Connection,
        user_id: &UserId,
        account_id: &str,
        row_dates: &[NaiveDate],
    ) -> Result<Existing> {
        let Some(near) = Near::new(row_dates) else {
            return Ok(Existing {
                entries: Vec::new(),
                dues: Vec::new(),
                memory: HashMap::new(),
            });
        };
        let mut entries = daily_expenses::on_days(c, user_id, account_id, &near)?;
        entries.extend(incomes::on_days(c, user_id, account_id, &near)?);

        let mut dues = Vec::new();
        for e in expenses::list(c, user_id, false)? {
            if e.account_id != account_id {
                continue;
            }
            // Each payment at the amount of its day.
            let prices = e.prices();
            let cents = |d: NaiveDate| -money::to_cents(prices.on(d));
            dues.extend(near.dues(Kind::Expense, &e.id, &e.plan.schedule(), cents, &e.name));
        }
        for i in table::all::<Income>(c, user_id)? {
            if i.account_id != account_id || i.plan.frequency == Frequency::Once {
                continue;
            }
            let prices = i.prices();
            let cents = |d: NaiveDate| money::to_cents(prices.on(d));
            dues.extend(near.dues(Kind::Income, &i.id, &i.plan.schedule(), cents, &i.name));
        }
        let names: HashMap<String, String> = table::all::<Account>(c, user_id)?
            .into_iter()
            .map(|a| (a.id, a.name))
            .collect();
        for t in table::all::<Transfer>(c, user_id)? {
            let cents = money::to_cents(t.plan.amount);
            let side =
                candidates::transfer_side(account_id, &t.from_account_id, &t.to_account_id, cents);
            let Some((signed, other)) = side else {
                continue;
            };
            let name = names.get(other).cloned().unwrap_or_default();
            dues.extend(near.dues(Kind::Transfer, &t.id, &t.plan.schedule(), |_| signed, &name));
        }

        Ok(Existing {
            entries,
            dues,
            memory: merchants::memory(c, user_id)?,
        })
    }
}
