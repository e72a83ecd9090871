//! Incomes: their input and validation; a changed amount follows the
//! price history.

use super::{self as entries, Record, Written};
use crate::app::input::{self, Patch, NAME_MAX, NOTES_MAX};
use crate::domain::prices::Update;
use crate::error::Result;
use crate::store::incomes::{Income, NewIncome};
use crate::store::prices::{self, Owner};
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct IncomeInput {
    id: Option<String>,
    name: Patch<String>,
    amount: Patch<Value>,
    currency: Patch<String>,
    frequency: Patch<String>,
    start_date: Patch<String>,
    end_date: Patch<String>,
    account_id: Patch<String>,
    notes: Patch<String>,
    /// The day a changed amount applies from (`docs/actions.md`, Price changes).
    amount_from: Patch<String>,
}

impl Record for IncomeInput {
    type Stored = Income;
    const CAP: Cap = Cap::Recurring;

    fn take_id(&mut self) -> Option<String> {
        self.id.take()
    }

    fn validate(self, c: &Connection, user: &UserId, stored: Option<&Income>) -> Result<NewIncome> {
        // Every field is checked, so that a form hears of all its errors at once.
        let mut checks = input::Checks::default();
        let name = checks.take(input::text(
            "name",
            self.name.or(stored.map(|e| e.name.clone())),
            NAME_MAX,
        ))?;
        let amount = checks.take(input::positive_amount(
            self.amount,
            stored.map(|e| e.amount),
        ))?;
        let amount_from = checks.take(input::optional_date(
            "amountFrom",
            self.amount_from.or(None),
        ))?;
        let schedule = checks.take(input::schedule(
            self.frequency,
            self.start_date,
            self.end_date,
            stored.map(|e| e.schedule()).as_ref(),
            true,
        ))?;
        let account = checks.take(entries::account_and_currency(
            c,
            user,
            self.account_id,
            self.currency,
            stored.map(|e| (e.account_id.as_str(), e.currency.as_str())),
        ))?;
        let notes = checks.take(input::optional_text(
            "notes",
            self.notes.or(stored.map(|e| e.notes.clone())),
            NOTES_MAX,
        ))?;
        let (name, amount, amount_from, schedule, account, notes) =
            checks.finish(|| Some((name?, amount?, amount_from?, schedule?, account?, notes?)))?;
        let (account_id, currency) = account;
        Ok(NewIncome {
            name,
            amount,
            currency,
            schedule,
            account_id,
            notes,
            amount_from,
        })
    }

    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, Income>) -> Result<()> {
        let Some((id, stored)) = w.stored else {
            return Ok(());
        };
        let new = w.new;
        let update = Update::of(new.amount, &new.currency, new.amount_from, &new.schedule);
        prices::follow(
            c,
            user,
            (Owner::Income, id),
            (&stored.prices(), &stored.currency),
            &update,
            w.today,
        )?;
        Ok(())
    }
}
