//! Insights: `listInsights`, `markInsightRead`, `dismissInsight`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{self, IdInput};
use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::store::insights::{self, LIMIT};

pub fn register(r: &mut Registry) {
    r.session("listInsights", list);
    r.session("markInsightRead", mark_read);
    r.session("dismissInsight", dismiss);
}

/// The user's current insights (not dismissed, unexpired), newest first.
async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    Reply::data(
        ctx.state
            .db
            .run(move |c| insights::current(c, &user, &now, LIMIT))
            .await?,
    )
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
