//! Reserves: `getReservePlan {}` and `setReservePot {expenseId, amount}`
//! (the plan itself is `reports::reserves`).

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input;
use crate::clock::timestamp;
use crate::domain::money::Sign;
use crate::domain::reserves::needs_reserve;
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::reports::reserves::plan;
use crate::store::expenses::Expense;
use crate::store::reserve_pots;
use crate::store::table;
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("getReservePlan", get_plan);
    r.session("setReservePot", set_pot);
}

async fn get_plan(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let user = ctx.user()?.clone();
    let (state, today) = (ctx.state.clone(), ctx.state.clock.today());
    Reply::data(
        ctx.state
            .db
            .run(move |c| plan(c, &user, &state.rates.current(), today))
            .await?,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PotInput {
    #[serde(default)]
    expense_id: Option<String>,
    #[serde(default)]
    amount: Option<Value>,
}

/// Records what is in the pot of a non-monthly recurring expense (in the
/// base currency); answers the plan entry.
async fn set_pot(ctx: Ctx, input: PotInput) -> Result<Reply> {
    let expense_id = input::optional_id(input.expense_id)
        .ok_or_else(|| Error::invalid("expenseId", Reason::Required))?;
    let amount = input::amount("amount", input.amount, Sign::NonNegative)?;
    let user = ctx.user()?.clone();
    let (state, today, now) = (
        ctx.state.clone(),
        ctx.state.clock.today(),
        timestamp(ctx.state.clock.now()),
    );
    let entry = ctx
        .state
        .db
        .transaction(move |tx| {
            let expense = table::find::<Expense>(tx, &user.id, &expense_id)?
                .ok_or_else(|| Error::unknown("expenseId"))?;
            if !needs_reserve(expense.frequency) {
                return Err(Error::invalid("expenseId", Reason::NoReservePot));
            }
            reserve_pots::set(tx, &user.id, &expense_id, amount, &now)?;
            Ok(plan(tx, &user, &state.rates.current(), today)?
                .entries
                .into_iter()
                .find(|e| e.expense_id == expense_id))
        })
        .await?;
    match entry {
        Some(e) => Reply::data(e),
        None => Reply::data(Value::Null),
    }
}
