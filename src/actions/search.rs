//! `search {query, page?}`: names, notes and merchants of every record
//! type, best first, 50 hits a page.

use super::{Ctx, Registry, Reply};
use crate::app::search;
use crate::error::Result;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("search", run);
}

#[derive(Deserialize)]
struct SearchInput {
    query: String,
    page: Option<i64>,
}

async fn run(ctx: Ctx, input: SearchInput) -> Result<Reply> {
    let query = search::query(&input.query)?;
    let page = search::page(input.page)?;
    Reply::data(
        search::find(&ctx.state, &ctx.user_id()?, &query, page)
            .await?
            .hits,
    )
}
