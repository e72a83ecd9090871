//! `setBudget`, `deleteBudget` and `listBudgets {month?}`
//! (`docs/budgets.md`), over [`crate::app::budgets`] and
//! [`crate::app::reports::budgets`].

use super::{Ctx, Registry, Reply};
use crate::app::budgets::{self, DeleteInput, SetInput};
use crate::app::reports;
use crate::domain::recurrence::month_or_current;
use crate::error::Result;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("setBudget", set);
    r.session("deleteBudget", delete);
    r.session("listBudgets", list);
}

async fn set(ctx: Ctx, input: SetInput) -> Result<Reply> {
    Reply::data(budgets::set(&ctx.state, &ctx.user_id()?, input).await?)
}

async fn delete(ctx: Ctx, input: DeleteInput) -> Result<Reply> {
    Reply::data(budgets::delete(&ctx.state, &ctx.user_id()?, input).await?)
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ListInput {
    month: Option<String>,
}

async fn list(ctx: Ctx, input: ListInput) -> Result<Reply> {
    let first = month_or_current("month", input.month.as_deref(), ctx.state.clock.today())?;
    Reply::data(&*reports::budgets::kept(&ctx.state, ctx.user()?, first).await?)
}
