//! The stored exchange-rate table. Shared by all users (reference data, not
//! user-owned), so no query here takes a user id.

use crate::error::Result;
use rusqlite::{params, Connection};

/// One stored row: 1 EUR = `rate` units of `currency` (a decimal as text,
/// so no binary float ever touches a rate).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRate {
    pub currency: String,
    pub rate: String,
    pub rate_date: String,
    pub fetched_at: String,
}

/// Every stored row, by currency code.
pub fn all(c: &Connection) -> Result<Vec<StoredRate>> {
    let mut stmt = c.prepare(
        "SELECT currency, rate, rate_date, fetched_at FROM exchange_rates ORDER BY currency",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok(StoredRate {
                currency: r.get(0)?,
                rate: r.get(1)?,
                rate_date: r.get(2)?,
                fetched_at: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Replaces the whole table with `rates` (code, decimal text). Run it inside
/// a transaction, so readers see the old table or the new one, never a mix.
pub fn replace_all(
    c: &Connection,
    rates: &[(&str, String)],
    rate_date: &str,
    fetched_at: &str,
) -> Result<()> {
    c.execute("DELETE FROM exchange_rates", [])?;
    let mut insert = c.prepare(
        "INSERT INTO exchange_rates (currency, rate, rate_date, fetched_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (currency, rate) in rates {
        insert.execute(params![currency, rate, rate_date, fetched_at])?;
    }
    Ok(())
}
