//! Search over the names, notes and merchants of every record type of one
//! user, and over the categories' names for the records in them.

use super::prices;
use super::table::earlier_amounts;
use super::users::UserId;
use crate::domain::money;
use crate::domain::money::Money;
use crate::domain::prices::Prices;
use crate::domain::recurrence::Frequency;
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{Connection, ToSql};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// `account`, `category`, `expense`, `dailyExpense`, `income` or `transfer`.
    pub kind: &'static str,
    pub id: String,
    pub name: String,
    pub date: Option<NaiveDate>,
    pub amount: Option<Money>,
    pub currency: Option<String>,
    /// 0 exact name, 1 name starts with the query, 2 a word of the name
    /// does, 3 the query appears anywhere (name, notes or merchant), 4 the
    /// record was found by its category's name.
    pub rank: u8,
    /// A one-time expense's merchant, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merchant: Option<String>,
    /// The category's name, for a record found by it (rank 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// How often an expense, income or transfer is due (`once` for a
    /// one-time income or transfer); a recurring one's `date` is the day
    /// it started, no booking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency: Option<Frequency>,
    /// A recurring item's amount today: `amount` is its latest price, which
    /// may apply only from a later day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_today: Option<Money>,
    /// The day a recurring item's latest price (`amount`) applies from,
    /// when that is after today.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amount_from: Option<NaiveDate>,
}

impl Hit {
    /// Whether it is a recurring expense, income or transfer: shown with
    /// its rhythm and [`Hit::amount_today`], never summed.
    pub fn is_recurring(&self) -> bool {
        self.frequency.is_some_and(|f| f != Frequency::Once)
    }
}

/// Per table: kind, the SELECT of (id, name, date, amount_cents, currency,
/// merchant, category name, frequency, earlier amounts as
/// `store::prices::parse` reads them) and the searched text columns besides
/// the name.
const SOURCES: &[(&str, &str, &str, &[&str])] = &[
    (
        "account",
        "accounts",
        "id, name, NULL, balance_cents, currency, NULL, NULL, NULL, NULL",
        &[],
    ),
    (
        "category",
        "categories",
        "id, name, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
        &[],
    ),
    (
        "expense",
        "expenses",
        concat!(
            "id, name, start_date, amount_cents, currency, NULL, NULL, frequency, ",
            earlier_amounts!("expense_id", "expenses")
        ),
        &["notes"],
    ),
    (
        "dailyExpense",
        "daily_expenses",
        "id, name, date, amount_cents, currency, merchant, NULL, NULL, NULL",
        &["merchant", "notes"],
    ),
    (
        "income",
        "incomes",
        concat!(
            "id, name, start_date, amount_cents, currency, NULL, NULL, frequency, ",
            earlier_amounts!("income_id", "incomes")
        ),
        &["notes"],
    ),
    (
        "transfer",
        "transfers",
        "id, note, start_date, amount_cents, currency, NULL, NULL, frequency, NULL",
        &[],
    ),
];

/// The records found by their category's name ("Lebensmittel" finds the
/// groceries): kind, table, the SELECT as in [`SOURCES`] over the record
/// `x` and its category `k`, and the text columns [`SOURCES`] searches
/// (a record found by those already is not found twice).
const BY_CATEGORY: &[(&str, &str, &str, &[&str])] = &[
    (
        "expense",
        "expenses",
        concat!(
            "x.id, x.name, x.start_date, x.amount_cents, x.currency, NULL, k.name, x.frequency, ",
            earlier_amounts!("expense_id", "x")
        ),
        &["x.name", "x.notes"],
    ),
    (
        "dailyExpense",
        "daily_expenses",
        "x.id, x.name, x.date, x.amount_cents, x.currency, x.merchant, k.name, NULL, NULL",
        &["x.name", "x.merchant", "x.notes"],
    ),
];

/// The rank of a record found by its category's name.
const RANK_BY_CATEGORY: u8 = 4;

/// Hits per page of a search.
pub const LIMIT: usize = 50;

/// Best matches first: by rank, then newest. `query` is matched without
/// regard to (ASCII) case; `%` and `_` match themselves. Control characters
/// (a NUL byte, say) are nothing anyone types into a name, and the
/// full-text query syntax has no place for them: they are left out, and a
/// query of nothing else finds nothing.
/// A query as searched: control characters left out, trimmed, lower case;
/// `None` when nothing is left.
fn prepared(query: &str) -> Option<String> {
    let q: String = query.chars().filter(|ch| !ch.is_control()).collect();
    let q = q.trim().to_lowercase();
    (!q.is_empty()).then_some(q)
}

/// The query as one phrase of trigrams for the full-text table: a
/// substring match in any of its columns.
fn phrase(q: &str) -> String {
    format!("\"{}\"", q.replace('"', "\"\""))
}

/// The parameters of a source's statement, as many as it has: `?1` the
/// user, `?2`, `?4`, `?5` and `?6` the ranking's (name, prefix, word
/// prefix, limit), `?3` the source's match, `?7` the full-text phrase.
fn bound<'a>(s: &rusqlite::Statement, all: &'a [&'a dyn ToSql; 7]) -> &'a [&'a dyn ToSql] {
    &all[..s.parameter_count().min(7)]
}

/// Below this many one-time expenses, a user's search reads the user's own
/// rows and folds their texts' case as the full-text index does
/// ([`FOLD`]); from it on, it starts from the index's matches and keeps the
/// user's. The index holds every user's rows, so starting from it costs
/// what all users' matches cost, also for a user with none
/// (`docs/performance.md`, "Search next to a large user").
const FEW_ROWS: i64 = 20_000;

/// The SQL function that lower-cases a text as the trigram index folds it
/// (every script, not only ASCII as SQLite's `lower` and `LIKE` do).
const FOLD: &str = "cashkeeper_fold";

/// Defines [`FOLD`] on the connection, once.
fn define_fold(c: &Connection) -> Result<()> {
    if c.prepare_cached("SELECT cashkeeper_fold('')").is_ok() {
        return Ok(());
    }
    c.create_scalar_function(
        FOLD,
        1,
        rusqlite::functions::FunctionFlags::SQLITE_UTF8
            | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| Ok(ctx.get::<Option<String>>(0)?.map(|s| s.to_lowercase())),
    )?;
    Ok(())
}

/// The columns of the full-text index (migration V2).
const FTS_COLUMNS: [&str; 3] = ["name", "merchant", "notes"];

/// Whether the user has fewer than [`FEW_ROWS`] one-time expenses; counts
/// at most that many index entries. With few, defines [`FOLD`].
fn has_few_rows(c: &Connection, user_id: &UserId) -> Result<bool> {
    let n: i64 = c
        .prepare_cached(
            "SELECT count(*) FROM (SELECT 1 FROM daily_expenses WHERE user_id = ?1 LIMIT ?2)",
        )?
        .query_row(rusqlite::params![user_id, FEW_ROWS], |r| r.get(0))?;
    let few = n < FEW_ROWS;
    if few {
        define_fold(c)?;
    }
    Ok(few)
}

/// The FROM and WHERE of one source, matching `?1` (the user) and `?3`
/// (the query as a LIKE pattern, or as a trigram phrase with `fts`); with
/// `few`, the full-text match starts from the user's rows.
fn matching(table: &str, extra: &[&str], name_col: &str, fts: bool, few: bool) -> String {
    if fts && few {
        format!(
            "FROM daily_expenses WHERE daily_expenses.user_id = ?1 AND ({})",
            FTS_COLUMNS
                .iter()
                .map(|c| format!("instr({FOLD}(daily_expenses.{c}), ?3) > 0"))
                .collect::<Vec<_>>()
                .join(" OR ")
        )
    } else if fts {
        "FROM daily_expenses_fts JOIN daily_expenses ON daily_expenses.rowid = daily_expenses_fts.rowid
         WHERE daily_expenses_fts MATCH ?3 AND daily_expenses.user_id = ?1"
            .to_string()
    } else {
        let mut anywhere = vec![format!("{name_col} LIKE ?3 ESCAPE '\\'")];
        anywhere.extend(extra.iter().map(|c| format!("{c} LIKE ?3 ESCAPE '\\'")));
        format!(
            "FROM {table} WHERE user_id = ?1 AND ({})",
            anywhere.join(" OR ")
        )
    }
}

/// One source as searched for a query.
struct Source {
    kind: &'static str,
    /// The SELECT of (id, name, date, amount_cents, currency, merchant,
    /// category name).
    select: &'static str,
    /// Its FROM and WHERE, matching `?1` (the user) and `?3`.
    matching: String,
    /// The ranking by the name, or a fixed rank.
    name_col: Option<&'static str>,
    /// The value of `?3`: the query as a LIKE pattern, or as a trigram
    /// phrase.
    third: String,
    /// The currency and the amount column summed, as `matching` names
    /// them (`NULL` for categories, and for accounts: a balance is no
    /// amount booked).
    currency: &'static str,
    amount: &'static str,
    /// Whether a row is a one-time entry, as SQL (`NULL` for what has no
    /// amount booked: accounts and categories).
    once: &'static str,
}

/// The sources as searched for `q`: each table by its text, then the
/// records of the categories whose name matches; `few` as
/// [`has_few_rows`] answers.
fn sources(q: &str, few: bool) -> Vec<Source> {
    let escaped = super::like_escaped(q);
    // Trigram search needs three characters; shorter queries scan with LIKE.
    let use_fts = q.chars().count() >= 3;
    let mut all: Vec<Source> = SOURCES
        .iter()
        .map(|(kind, table, select, extra)| {
            let fts = use_fts && *table == "daily_expenses";
            // The full-text table has a `name` column too: qualify in the join.
            let name_col = match *table {
                "transfers" => "note",
                "daily_expenses" if fts => "daily_expenses.name",
                _ => "name",
            };
            let select = if fts {
                "daily_expenses.id, daily_expenses.name, daily_expenses.date, \
                 daily_expenses.amount_cents, daily_expenses.currency, daily_expenses.merchant, NULL, \
                 NULL, NULL"
            } else {
                select
            };
            let third = if fts && few {
                q.to_string()
            } else if fts {
                phrase(q)
            } else {
                format!("%{escaped}%")
            };
            Source {
                kind,
                select,
                matching: matching(table, extra, name_col, fts, few),
                name_col: Some(name_col),
                third,
                currency: match *table {
                    "categories" => "NULL",
                    "daily_expenses" if fts => "daily_expenses.currency",
                    _ => "currency",
                },
                amount: match *table {
                    "categories" | "accounts" => "NULL",
                    "daily_expenses" if fts => "daily_expenses.amount_cents",
                    _ => "amount_cents",
                },
                once: match *table {
                    "categories" | "accounts" => "NULL",
                    "daily_expenses" => "1",
                    "expenses" => "0",
                    _ => "frequency = 'once'",
                },
            }
        })
        .collect();
    all.extend(BY_CATEGORY.iter().map(|(kind, table, select, text)| {
        let mut not_by_text: Vec<String> = text
            .iter()
            .map(|c| format!("{c} LIKE ?3 ESCAPE '\\'"))
            .collect();
        // The full-text match folds more than LIKE (an "Ä" for an "ä"):
        // what it found by its text is not found again by its category.
        // A user of few rows has them folded one by one; otherwise the
        // index's matches are gathered once.
        if use_fts && *table == "daily_expenses" {
            not_by_text.push(if few {
                FTS_COLUMNS
                    .iter()
                    .map(|c| format!("instr({FOLD}(x.{c}), ?7) > 0"))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            } else {
                "x.rowid IN (SELECT rowid FROM daily_expenses_fts WHERE daily_expenses_fts MATCH ?7)"
                    .to_string()
            });
        }
        Source {
            kind,
            select,
            matching: format!(
                "FROM categories k JOIN {table} x ON x.category_id = k.id
                 WHERE k.user_id = ?1 AND x.user_id = ?1 AND k.name LIKE ?3 ESCAPE '\\'
                   AND NOT ({})",
                not_by_text.join(" OR ")
            ),
            name_col: None,
            third: format!("%{escaped}%"),
            currency: "x.currency",
            amount: "x.amount_cents",
            once: if *table == "daily_expenses" { "1" } else { "0" },
        }
    }));
    all
}

/// What all the records matching a query come to: how many there are
/// (a search shows them a page at a time), how many of them are recurring
/// (expenses, incomes and transfers on a schedule: never summed, since a
/// monthly and a yearly item add up to nothing anyone pays), and the sum of
/// the one-time entries per kind and currency (one-time expenses, one-time
/// incomes, one-time transfers; an account's balance is no amount booked).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    pub count: usize,
    pub recurring: usize,
    pub sums: Vec<Sum>,
}

/// The one-time entries of one kind in one currency that a search found.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sum {
    /// `dailyExpense`, `income` or `transfer`, as [`Hit::kind`].
    pub kind: &'static str,
    pub currency: String,
    pub amount: Money,
    /// How many entries it sums.
    pub count: usize,
}

/// The kinds whose one-time entries are summed, in the order shown.
pub const SUMMED_KINDS: [&str; 3] = ["dailyExpense", "income", "transfer"];

pub fn totals(c: &Connection, user_id: &UserId, query: &str) -> Result<Totals> {
    let Some(q) = prepared(query) else {
        return Ok(Totals::default());
    };
    let few = has_few_rows(c, user_id)?;
    // `?7`: what the by-category sources leave out, matched as `few` says.
    let fts_phrase = if few { q.clone() } else { phrase(&q) };
    let mut totals = Totals::default();
    let mut sums: std::collections::BTreeMap<(usize, String), (i64, usize)> = Default::default();
    for source in sources(&q, few) {
        let (matching, currency, amount, once) = (
            &source.matching,
            source.currency,
            source.amount,
            source.once,
        );
        let mut s = c.prepare_cached(&format!(
            "SELECT {currency}, {once} AS once, count(*), sum({amount})
             {matching} GROUP BY {currency}, once"
        ))?;
        // The ranking's parameters are unused here.
        let all: [&dyn ToSql; 7] = [user_id, &"", &source.third, &"", &"", &0, &fts_phrase];
        let params = bound(&s, &all);
        let rows = s.query_map(params, |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, Option<bool>>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, Option<i64>>(3)?,
            ))
        })?;
        let order = SUMMED_KINDS.iter().position(|k| *k == source.kind);
        for row in rows {
            let (currency, once, n, cents) = row?;
            totals.count += n as usize;
            match (once, order, currency, cents) {
                (Some(false), ..) => totals.recurring += n as usize,
                (Some(true), Some(order), Some(currency), Some(cents)) => {
                    let sum = sums.entry((order, currency)).or_default();
                    sum.0 += cents;
                    sum.1 += n as usize;
                }
                _ => {}
            }
        }
    }
    totals.sums = sums
        .into_iter()
        .map(|((order, currency), (cents, count))| Sum {
            kind: SUMMED_KINDS[order],
            currency,
            amount: Money::from(money::from_cents(cents)),
            count,
        })
        .collect();
    Ok(totals)
}

/// The hits from the `skip`-th on, at most `limit` of them, best first;
/// a recurring hit's [`Hit::amount_today`] is its amount on `today`.
pub fn search(
    c: &Connection,
    user_id: &UserId,
    query: &str,
    (skip, limit): (usize, usize),
    today: NaiveDate,
) -> Result<Vec<Hit>> {
    let Some(q) = prepared(query) else {
        return Ok(Vec::new());
    };
    let few = has_few_rows(c, user_id)?;
    // `?7`: what the by-category sources leave out, matched as `few` says.
    let fts_phrase = if few { q.clone() } else { phrase(&q) };
    let escaped = super::like_escaped(&q);
    let (exact, prefix, word_prefix, lim) = (
        q.clone(),
        format!("{escaped}%"),
        format!("% {escaped}%"),
        (skip + limit) as i64,
    );
    let mut hits = Vec::new();
    for source in sources(&q, few) {
        let rank = match source.name_col {
            Some(name_col) => format!(
                "CASE WHEN lower({name_col}) = ?2 THEN 0
                      WHEN {name_col} LIKE ?4 ESCAPE '\\' THEN 1
                      WHEN {name_col} LIKE ?5 ESCAPE '\\' THEN 2
                      ELSE 3 END"
            ),
            None => RANK_BY_CATEGORY.to_string(),
        };
        let (kind, select, matching) = (source.kind, source.select, &source.matching);
        let sql = format!(
            "SELECT {select}, {rank} AS rank {matching} ORDER BY rank, 3 DESC, 2, 1 LIMIT ?6"
        );
        let mut s = c.prepare_cached(&sql)?;
        let all: [&dyn ToSql; 7] = [
            user_id,
            &exact,
            &source.third,
            &prefix,
            &word_prefix,
            &lim,
            &fts_phrase,
        ];
        let params = bound(&s, &all);
        let rows = s.query_map(params, |r| {
            let amount = r.get::<_, Option<i64>>(3)?.map(money::from_cents);
            let frequency: Option<Frequency> = r.get(7)?;
            let (amount_today, amount_from) = match (frequency, amount) {
                (Some(f), Some(latest)) if f != Frequency::Once => {
                    let prices = Prices {
                        latest,
                        earlier: prices::parse(r.get(8)?),
                    };
                    (
                        Some(prices.on(today)),
                        prices.latest_from().filter(|from| *from > today),
                    )
                }
                _ => (None, None),
            };
            Ok(Hit {
                kind,
                id: r.get(0)?,
                name: r.get(1)?,
                date: r.get(2)?,
                amount: amount.map(Money),
                currency: r.get(4)?,
                merchant: r.get::<_, Option<String>>(5)?.filter(|m| !m.is_empty()),
                category: r.get(6)?,
                frequency,
                amount_today: amount_today.map(Money),
                amount_from,
                rank: r.get(9)?,
            })
        })?;
        for row in rows {
            hits.push(row?);
        }
    }
    hits.sort_by(|a, b| {
        a.rank
            .cmp(&b.rank)
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.id.cmp(&b.id))
    });
    // A record both sources find (a case the two matchings fold apart)
    // is listed once, where it ranks best.
    let mut seen = std::collections::HashSet::new();
    hits.retain(|h| seen.insert((h.kind, h.id.clone())));
    Ok(hits.into_iter().skip(skip).take(limit).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan's steps, outermost first.
    fn plan(c: &Connection, sql: &str) -> Vec<String> {
        let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = s.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(|r| r.unwrap()).collect()
    }

    #[test]
    fn the_fold_is_the_case_of_every_script() {
        let c = Connection::open_in_memory().unwrap();
        define_fold(&c).unwrap();
        define_fold(&c).unwrap();
        let folded: String = c
            .query_row("SELECT cashkeeper_fold('ÄRZTE Ölmühle REWE')", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(folded, "ärzte ölmühle rewe");
    }

    #[test]
    fn a_user_of_few_rows_is_searched_from_their_rows_not_from_every_match() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE daily_expenses (id TEXT PRIMARY KEY, user_id TEXT, name TEXT,
                 merchant TEXT, notes TEXT, date TEXT, amount_cents INTEGER, currency TEXT);
             CREATE INDEX daily_expenses_user_date ON daily_expenses(user_id, date);
             CREATE VIRTUAL TABLE daily_expenses_fts USING fts5(name, merchant, notes,
                 content = 'daily_expenses', content_rowid = 'rowid', tokenize = 'trigram');",
        )
        .unwrap();
        let sql = |few: bool| {
            format!(
                "SELECT daily_expenses.id {} LIMIT 50",
                matching("daily_expenses", &[], "daily_expenses.name", true, few)
                    .replace("?1", "'u'")
                    .replace("?3", "'\"rewe\"'")
            )
        };
        define_fold(&c).unwrap();
        let few = plan(&c, &sql(true));
        assert!(
            few[0].contains("daily_expenses USING INDEX daily_expenses_user_date (user_id=?)"),
            "{few:?}"
        );
        assert!(!few.iter().any(|s| s.contains("VIRTUAL TABLE")), "{few:?}");
        let many = plan(&c, &sql(false));
        assert!(
            many[0].contains("daily_expenses_fts VIRTUAL TABLE"),
            "{many:?}"
        );
    }
}
