//! Reserves: `getReservePlan {}` and `setReservePot {expenseId, amount}`
//! (the plan itself is `app::reports::reserves`).

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::reports::{self, reserves::plan};
use crate::app::{input, reserves};
use crate::domain::money::Sign;
use crate::error::{Error, Reason, Result};
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("getReservePlan", get_plan);
    r.session("setReservePot", set_pot);
}

async fn get_plan(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(reports::read(&ctx.state, ctx.user()?, plan).await?)
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
    match reserves::set_pot(&ctx.state, ctx.user()?, expense_id, amount).await? {
        Some(e) => Reply::data(e),
        None => Reply::data(Value::Null),
    }
}
