//! Insights: `listInsights`, `markInsightRead`, `dismissInsight`.

use super::input::{self, IdInput};
use super::{Ctx, NoInput, Registry, Reply};
use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::store::insights::{self, Insight};
use serde::Serialize;

pub fn register(r: &mut Registry) {
    r.session("listInsights", list);
    r.session("markInsightRead", mark_read);
    r.session("dismissInsight", dismiss);
}

/// Insights listed at most.
pub const LIMIT: u32 = 100;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    #[serde(flatten)]
    pub insight: Insight,
    pub is_read: bool,
}

/// The user's current insights (not dismissed, unexpired), newest first.
pub async fn current(ctx: &Ctx) -> Result<Vec<Listed>> {
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    let rows = ctx
        .state
        .db
        .run(move |c| insights::current(c, &user, &now, LIMIT))
        .await?;
    Ok(rows
        .into_iter()
        .map(|(insight, is_read)| Listed { insight, is_read })
        .collect())
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(current(&ctx).await?)
}

async fn mark_read(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let user = ctx.user_id()?;
    if !ctx
        .state
        .db
        .run(move |c| insights::mark_read(c, &user, &id))
        .await?
    {
        return Err(Error::NotFound);
    }
    Reply::data(())
}

async fn dismiss(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    if !ctx
        .state
        .db
        .run(move |c| insights::dismiss(c, &user, &id, &now))
        .await?
    {
        return Err(Error::NotFound);
    }
    Reply::data(())
}
