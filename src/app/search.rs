//! Search over the names, notes and merchants of every record type, and
//! the records of the categories named, best first, a page at a time: the
//! `search` action, the search page and the assistant's tool, which all
//! read it from [`found`].

use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::search::{self, Hit, Sum, Totals, LIMIT};
use crate::store::users::UserId;
use chrono::NaiveDate;
use rusqlite::Connection;

/// The longest query.
pub const QUERY_MAX: usize = 100;

/// Hits on a page.
pub const PAGE_SIZE: usize = LIMIT;

/// The furthest page asked for: beyond it a page number is refused, not
/// read (a search never finds that many records to show).
pub const PAGE_MAX: usize = 10_000;

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

/// A page number as asked for: from 1 (the default) to [`PAGE_MAX`].
pub fn page(raw: Option<i64>) -> Result<usize> {
    match raw {
        None => Ok(1),
        Some(n) if (1..=PAGE_MAX as i64).contains(&n) => Ok(n as usize),
        Some(_) => Err(Error::invalid("page", Reason::Between(1, PAGE_MAX as i64))),
    }
}

/// What a search found: the hits of one page (best first), which page it
/// is of how many, how many hits there are in all and how many of them
/// are recurring, and the one-time entries' sums per kind and currency.
#[derive(Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    pub page: usize,
    pub pages: usize,
    pub total: usize,
    pub recurring: usize,
    pub sums: Vec<Sum>,
}

/// The user's records matching `query` (checked by [`query`]), page `page`
/// (from 1), a recurring one at its amount on `today`.
pub fn found(
    c: &Connection,
    user: &UserId,
    query: &str,
    page: usize,
    today: NaiveDate,
) -> Result<Found> {
    let skip = (page.max(1) - 1) * PAGE_SIZE;
    let hits = search::search(c, user, query, (skip, PAGE_SIZE), today)?;
    let Totals {
        count,
        recurring,
        sums,
    } = search::totals(c, user, query)?;
    // A record two matchings fold apart may be counted twice; the list
    // shows it once, and never says more than it counts.
    let total = count.max(skip + hits.len());
    Ok(Found {
        hits,
        page: page.max(1),
        pages: total.div_ceil(PAGE_SIZE).max(1),
        total,
        recurring,
        sums,
    })
}

/// [`found`] as a read within the read budget ([`crate::store::Db::read`]),
/// busy past it.
pub async fn find(state: &AppState, user: &UserId, query: &str, page: usize) -> Result<Found> {
    let (user, query, today) = (user.clone(), query.to_string(), state.clock.today());
    state
        .db
        .read(move |c| found(c, &user, &query, page, today))
        .await
}
