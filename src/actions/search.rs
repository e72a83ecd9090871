//! `search {query}`: names, notes and merchants of every record type, best first.

use super::{Ctx, Registry, Reply};
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::store::search::{self, LIMIT};
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("search", run);
}

#[derive(Deserialize)]
struct SearchInput {
    query: String,
}

async fn run(ctx: Ctx, input: SearchInput) -> Result<Reply> {
    let query = input.query.trim().to_string();
    if query.is_empty() {
        return Err(Error::invalid("query", Reason::Required));
    }
    if query.chars().count() > 100 {
        return Err(Error::invalid("query", Reason::MaxChars(100)));
    }
    let user = ctx.user_id()?;
    Reply::data(
        ctx.state
            .db
            .run(move |c| search::search(c, &user, &query, LIMIT))
            .await?,
    )
}
