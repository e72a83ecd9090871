//! Recurring expenses and subscriptions: their input and validation; a
//! changed amount follows the price history.

use super::{self as entries, check_category, Record, Written};
use crate::app::input::{self, Patch, NAME_MAX, NOTES_MAX};
use crate::app::reports::subscriptions::Subscriptions;
use crate::domain::prices::Update;
use crate::error::Result;
use crate::state::AppState;
use crate::store::documents::{self, Attached, Document};
use crate::store::expenses::{Expense, NewExpense};
use crate::store::prices::{self as store_prices, Owner};
use crate::store::users::{User, UserId};
use crate::store::Cap;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ExpenseInput {
    id: Option<String>,
    name: Patch<String>,
    amount: Patch<Value>,
    currency: Patch<String>,
    frequency: Patch<String>,
    start_date: Patch<String>,
    end_date: Patch<String>,
    account_id: Patch<String>,
    category_id: Patch<String>,
    is_subscription: Patch<bool>,
    notes: Patch<String>,
    /// The day a changed amount applies from (`docs/actions.md`, Price changes).
    amount_from: Patch<String>,
}

impl Record for ExpenseInput {
    type Stored = Expense;
    const CAP: Cap = Cap::Recurring;

    fn take_id(&mut self) -> Option<String> {
        self.id.take()
    }

    fn validate(
        self,
        c: &Connection,
        user: &UserId,
        stored: Option<&Expense>,
    ) -> Result<NewExpense> {
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
            false,
        ))?;
        let account = checks.take(entries::account_and_currency(
            c,
            user,
            self.account_id,
            self.currency,
            stored.map(|e| (e.account_id.as_str(), e.currency.as_str())),
        ))?;
        let category_id = input::optional_id(
            self.category_id
                .or(stored.and_then(|e| e.category_id.clone())),
        );
        checks.take(check_category(c, user, category_id.as_deref()))?;
        let notes = checks.take(input::optional_text(
            "notes",
            self.notes.or(stored.map(|e| e.notes.clone())),
            NOTES_MAX,
        ))?;
        let (name, amount, amount_from, schedule, account, notes) =
            checks.finish(|| Some((name?, amount?, amount_from?, schedule?, account?, notes?)))?;
        let (account_id, currency) = account;
        Ok(NewExpense {
            name,
            amount,
            currency,
            schedule,
            account_id,
            category_id,
            is_subscription: self
                .is_subscription
                .or(stored.map(|e| e.is_subscription))
                .unwrap_or(false),
            notes,
            amount_from,
        })
    }

    fn after_write(c: &Connection, user: &UserId, w: &Written<'_, Expense>) -> Result<()> {
        let Some((id, stored)) = w.stored else {
            return Ok(());
        };
        let new = w.new;
        let update = Update::of(new.amount, &new.currency, new.amount_from, &new.schedule);
        store_prices::follow(
            c,
            user,
            (Owner::Expense, id),
            (&stored.prices(), &stored.currency),
            &update,
            w.today,
        )?;
        Ok(())
    }
}

/// The user's recurring expenses, subscriptions among them.
pub async fn list(state: &AppState, user: &UserId) -> Result<Vec<Expense>> {
    let user = user.clone();
    state
        .db
        .run(move |c| crate::store::expenses::list(c, &user, false))
        .await
}

/// The user's recurring expenses and the documents attached to any of them.
pub async fn with_documents(
    state: &AppState,
    user: &UserId,
) -> Result<(Vec<Expense>, Vec<Document>)> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            Ok((
                crate::store::expenses::list(c, &user, false)?,
                documents::attached(c, &user, Attached::Expenses)?,
            ))
        })
        .await
}

/// The user's subscriptions with what they cost a month and a year.
pub async fn subscriptions(state: &AppState, user: &User) -> Result<Subscriptions> {
    let (user, rates, today) = (user.clone(), state.rates.current(), state.clock.today());
    state
        .db
        .run(move |c| crate::app::reports::subscriptions::subscriptions(c, &user, &rates, today))
        .await
}
