//! Search over the names, notes and merchants of every record type, best
//! first: the `search` action, the search page and the assistant's tool.

use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::search::{self, Hit, LIMIT};
use crate::store::users::UserId;

/// The longest query.
pub const QUERY_MAX: usize = 100;

/// A query as it is searched for: trimmed, not empty, at most
/// [`QUERY_MAX`] characters.
pub fn query(raw: &str) -> Result<String> {
    let query = raw.trim();
    if query.is_empty() {
        return Err(Error::invalid("query", Reason::Required));
    }
    if query.chars().count() > QUERY_MAX {
        return Err(Error::invalid("query", Reason::MaxChars(QUERY_MAX)));
    }
    Ok(query.to_string())
}

/// What a search found: the best [`LIMIT`] hits, and how many there are in all.
pub struct Found {
    pub hits: Vec<Hit>,
    pub total: usize,
}

/// The user's records matching `query` (checked by [`query`]).
pub async fn find(state: &AppState, user: &UserId, query: &str) -> Result<Found> {
    let (user, query) = (user.clone(), query.to_string());
    state
        .db
        .run(move |c| {
            let hits = search::search(c, &user, &query, LIMIT)?;
            // At the limit, count them all.
            let total = if hits.len() >= LIMIT {
                search::count(c, &user, &query)?
            } else {
                hits.len()
            };
            Ok(Found { hits, total })
        })
        .await
}
