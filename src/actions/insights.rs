//! Insights: `listInsights`, `markInsightRead`, `dismissInsight`
//! (`app::insights`).

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{self, IdInput};
use crate::app::insights;
use crate::error::Result;

pub fn register(r: &mut Registry) {
    r.session("listInsights", list);
    r.session("markInsightRead", mark_read);
    r.session("dismissInsight", dismiss);
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(insights::current(&ctx.state, &ctx.user_id()?).await?)
}

async fn mark_read(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    insights::mark_read(&ctx.state, &ctx.user_id()?, id).await?;
    Reply::data(())
}

async fn dismiss(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    insights::dismiss(&ctx.state, &ctx.user_id()?, id).await?;
    Reply::data(())
}
