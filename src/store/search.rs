//! Search over the names, notes and merchants of every record type of one user.

use super::users::UserId;
use crate::domain::money;
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// `account`, `category`, `expense`, `dailyExpense`, `income` or `transfer`.
    pub kind: &'static str,
    pub id: String,
    pub name: String,
    pub date: Option<NaiveDate>,
    #[serde(serialize_with = "money::json::option::serialize")]
    pub amount: Option<Decimal>,
    pub currency: Option<String>,
    /// 0 exact name, 1 name starts with the query, 2 a word of the name
    /// does, 3 the query appears anywhere (name, notes or merchant).
    pub rank: u8,
}

/// Per table: kind, the SELECT of (id, name, date, amount_cents, currency)
/// and the searched text columns besides the name.
const SOURCES: &[(&str, &str, &str, &[&str])] = &[
    (
        "account",
        "accounts",
        "id, name, NULL, balance_cents, currency",
        &[],
    ),
    ("category", "categories", "id, name, NULL, NULL, NULL", &[]),
    (
        "expense",
        "expenses",
        "id, name, start_date, amount_cents, currency",
        &["notes"],
    ),
    (
        "dailyExpense",
        "daily_expenses",
        "id, name, date, amount_cents, currency",
        &["merchant", "notes"],
    ),
    (
        "income",
        "incomes",
        "id, name, start_date, amount_cents, currency",
        &["notes"],
    ),
    (
        "transfer",
        "transfers",
        "id, note, start_date, amount_cents, currency",
        &[],
    ),
];

/// Results per search.
pub const LIMIT: usize = 50;

/// Best matches first: by rank, then newest. `query` is matched without
/// regard to (ASCII) case; `%` and `_` match themselves. Control characters
/// (a NUL byte, say) are nothing anyone types into a name, and the
/// full-text query syntax has no place for them: they are left out, and a
/// query of nothing else finds nothing.
pub fn search(c: &Connection, user_id: &UserId, query: &str, limit: usize) -> Result<Vec<Hit>> {
    let q: String = query.chars().filter(|ch| !ch.is_control()).collect();
    let q = q.trim().to_lowercase();
    if q.is_empty() {
        return Ok(Vec::new());
    }
    let escaped = q
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let mut hits = Vec::new();
    let params_for = |limit: usize| {
        (
            q.clone(),
            format!("%{escaped}%"),
            format!("{escaped}%"),
            format!("% {escaped}%"),
            limit as i64,
        )
    };
    let (exact, anywhere_pattern, prefix, word_prefix, lim) = params_for(limit);
    // Trigram search needs three characters; shorter queries scan with LIKE.
    let use_fts = q.chars().count() >= 3;
    for (kind, table, select, extra) in SOURCES {
        let fts = use_fts && *table == "daily_expenses";
        // The full-text table has a `name` column too: qualify in the join.
        let name_col = match *table {
            "transfers" => "note",
            "daily_expenses" if fts => "daily_expenses.name",
            _ => "name",
        };
        let rank = format!(
            "CASE WHEN lower({name_col}) = ?2 THEN 0
                  WHEN {name_col} LIKE ?4 ESCAPE '\\' THEN 1
                  WHEN {name_col} LIKE ?5 ESCAPE '\\' THEN 2
                  ELSE 3 END"
        );
        let sql = if fts {
            let select = "daily_expenses.id, daily_expenses.name, daily_expenses.date, \
                          daily_expenses.amount_cents, daily_expenses.currency";
            format!(
                "SELECT {select}, {rank} AS rank
                 FROM daily_expenses_fts JOIN daily_expenses ON daily_expenses.rowid = daily_expenses_fts.rowid
                 WHERE daily_expenses_fts MATCH ?3 AND daily_expenses.user_id = ?1
                 ORDER BY rank, 3 DESC LIMIT ?6"
            )
        } else {
            let mut anywhere = vec![format!("{name_col} LIKE ?3 ESCAPE '\\'")];
            anywhere.extend(extra.iter().map(|c| format!("{c} LIKE ?3 ESCAPE '\\'")));
            format!(
                "SELECT {select}, {rank} AS rank FROM {table}
                 WHERE user_id = ?1 AND ({})
                 ORDER BY rank, 3 DESC LIMIT ?6",
                anywhere.join(" OR ")
            )
        };
        let third = if fts {
            // One phrase of trigrams: a substring match in any column.
            format!("\"{}\"", q.replace('"', "\"\""))
        } else {
            anywhere_pattern.clone()
        };
        let mut s = c.prepare_cached(&sql)?;
        let rows = s.query_map(
            params![user_id, exact, third, prefix, word_prefix, lim],
            |r| {
                Ok(Hit {
                    kind,
                    id: r.get(0)?,
                    name: r.get(1)?,
                    date: r.get(2)?,
                    amount: r.get::<_, Option<i64>>(3)?.map(money::from_cents),
                    currency: r.get(4)?,
                    rank: r.get(5)?,
                })
            },
        )?;
        for row in rows {
            hits.push(row?);
        }
    }
    hits.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| a.name.cmp(&b.name))
    });
    hits.truncate(limit);
    Ok(hits)
}
