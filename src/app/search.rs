//! Search over the names, notes and merchants of every record type, and
//! the records of the categories named, best first: the `search` action,
//! the search page and the assistant's tool.

use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::search::{self, Hit, Totals, LIMIT};
use crate::store::users::UserId;
use rust_decimal::Decimal;

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

/// What a search found: the best [`LIMIT`] hits, how many there are in
/// all, and the sum of all their amounts per currency.
#[derive(Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    pub total: usize,
    pub sums: Vec<(String, Decimal)>,
}

/// The user's records matching `query` (checked by [`query`]): a read
/// within the read budget ([`crate::store::Db::read`]), busy past it.
pub async fn find(state: &AppState, user: &UserId, query: &str) -> Result<Found> {
    let (user, query) = (user.clone(), query.to_string());
    state
        .db
        .read(move |c| {
            let hits = search::search(c, &user, &query, LIMIT)?;
            let Totals { count, sums } = search::totals(c, &user, &query)?;
            // A record two matchings fold apart may be counted twice; the
            // list shows it once, and never says more than it counts.
            Ok(Found {
                total: count.max(hits.len()),
                hits,
                sums,
            })
        })
        .await
}
