//! `findBanks {query}`: banks of the bundled table by bank code, BIC or name
//! (`docs/bank-sync.md`, "The bank table").

use super::{Ctx, Registry, Reply};
use crate::app::search;
use crate::domain::banks;
use crate::error::Result;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("findBanks", find_banks);
}

#[derive(Deserialize)]
struct FindBanksInput {
    query: String,
}

/// Up to 20 `{bankCode, bic, name, city, url}`; `query` is required and at
/// most 100 characters, like `search`'s.
async fn find_banks(_ctx: Ctx, input: FindBanksInput) -> Result<Reply> {
    let query = search::query(&input.query)?;
    Reply::data(banks::find(&query))
}
