//! Setting and ending budgets (`setBudget`, `deleteBudget`; the rules in
//! [`crate::domain::budgets`], the month's figures in
//! [`crate::app::reports::budgets`]).

use crate::app::input;
use crate::domain::budgets;
use crate::domain::money::Money;
use crate::domain::money::Sign;
use crate::domain::recurrence::{month_or_current, month_start};
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::users::UserId;
use crate::store::{self, Owned};
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SetInput {
    pub category_id: Option<String>,
    pub amount: Option<Value>,
    pub rollover: Option<bool>,
    pub from: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct DeleteInput {
    pub category_id: Option<String>,
    pub from: Option<String>,
}

/// What a change wrote: the category's budget from `from` on (`amount`
/// null when it ended).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Set {
    pub category_id: String,
    pub from: String,
    pub amount: Option<Money>,
    pub rollover: bool,
}

/// The category a budget is for, required.
fn category(id: Option<String>) -> Result<String> {
    input::optional_id(id).ok_or_else(|| Error::invalid("categoryId", Reason::Required))
}

/// Sets the budget of `category_id` to `amount` from the month of `from`
/// on, in the caller's write transaction; months before keep theirs.
pub fn set_in(
    tx: &Connection,
    user: &UserId,
    category_id: &str,
    amount: Option<Decimal>,
    rollover: bool,
    from: NaiveDate,
    now: &str,
) -> Result<Set> {
    store::require_owned_field(tx, Owned::Category, user, "categoryId", category_id)?;
    let changes = store::budgets::of(tx, user, category_id)?;
    let from = month_start(from);
    let changed = budgets::apply(&changes, from, amount, rollover);
    store::budgets::replace(tx, user, category_id, from, &changed, now)?;
    Ok(Set {
        category_id: category_id.to_string(),
        from: from.format("%Y-%m").to_string(),
        amount: amount.map(Money),
        rollover: amount.is_some() && rollover,
    })
}

/// `setBudget {categoryId, amount, rollover?, from?}`.
pub async fn set(state: &AppState, user: &UserId, input: SetInput) -> Result<Set> {
    let mut checks = input::Checks::default();
    let category_id = checks.take(category(input.category_id))?;
    let amount = checks.take(input::amount("amount", input.amount, Sign::Positive))?;
    let today = state.clock.today();
    let from = checks.take(month_or_current("from", input.from.as_deref(), today))?;
    let (category_id, amount, from) = checks.finish(|| Some((category_id?, amount?, from?)))?;
    let rollover = input.rollover.unwrap_or(false);
    let (user, now) = (user.clone(), crate::clock::timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| set_in(tx, &user, &category_id, Some(amount), rollover, from, &now))
        .await
}

/// `deleteBudget {categoryId, from?}`: no budget from that month on.
pub async fn delete(state: &AppState, user: &UserId, input: DeleteInput) -> Result<Set> {
    let mut checks = input::Checks::default();
    let category_id = checks.take(category(input.category_id))?;
    let from = checks.take(month_or_current(
        "from",
        input.from.as_deref(),
        state.clock.today(),
    ))?;
    let (category_id, from) = checks.finish(|| Some((category_id?, from?)))?;
    let (user, now) = (user.clone(), crate::clock::timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| set_in(tx, &user, &category_id, None, false, from, &now))
        .await
}

/// Whether any of the user's categories has a budget in any month.
pub async fn any(state: &AppState, user: &UserId) -> Result<bool> {
    let user = user.clone();
    state.db.run(move |c| store::budgets::any(c, &user)).await
}
