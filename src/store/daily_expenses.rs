//! One-time ("daily") expenses.

use super::table::{read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::import::candidates::{self, Near};
use crate::domain::import::reconcile::Entry;
use crate::domain::money::{self, Money};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use rust_decimal::Decimal;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DailyExpense {
    pub id: String,
    #[serde(flatten)]
    pub entry: DailyEntry,
    pub created_at: String,
    pub updated_at: String,
}

/// What a one-time expense holds besides its id and times: validated and
/// ready to write, and as stored (flattened into [`DailyExpense`]'s JSON).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DailyEntry {
    pub name: String,
    pub amount: Money,
    pub currency: String,
    pub date: NaiveDate,
    pub account_id: String,
    pub category_id: Option<String>,
    pub merchant: String,
    pub notes: String,
}

/// Which one-time expenses to list: an inclusive date range and a category.
#[derive(Default)]
pub struct Filter {
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    /// Every category (`None`), one (`Some(id)`) or the uncategorised
    /// (`Some("")`, as `daily_expense_months` keeps them): the sense of
    /// `category` in [`month_totals`] and [`day_counts`] too.
    pub category: Option<String>,
    pub limit: Option<u32>,
    /// Only the entries after this one in the list's order (key-set paging,
    /// [`cursor`]).
    pub after: Option<Cursor>,
}

/// Where a page of the list begins: just after the entry with these keys
/// of the list's order (date, creation, id).
#[derive(Clone, Debug)]
pub struct Cursor {
    date: NaiveDate,
    created_at: String,
    id: String,
}

/// The [`Cursor`] after the user's entry `id`; [`crate::Error::UnknownId`]
/// naming `field` when it is not theirs.
pub fn cursor(c: &Connection, user_id: &UserId, field: &'static str, id: &str) -> Result<Cursor> {
    let mut s = c.prepare_cached(
        "SELECT date, created_at FROM daily_expenses WHERE id = ?1 AND user_id = ?2",
    )?;
    let mut rows = s.query(params![id, user_id])?;
    match rows.next()? {
        Some(r) => Ok(Cursor {
            date: r.get(0)?,
            created_at: r.get(1)?,
            id: id.to_string(),
        }),
        None => Err(crate::Error::unknown(field)),
    }
}

impl Table for DailyExpense {
    type New = DailyEntry;
    const NAME: &'static str = "daily_expenses";
    const ORDER: &'static str = "date DESC, created_at DESC, id";

    read_columns! {
        created_at, updated_at;
        entry: DailyEntry {
            name, amount: "amount_cents" => Money::from_cents, currency, date,
            account_id, category_id, merchant, notes,
        }
    }

    written_columns! { e;
        "name" => e.name, "amount_cents" => money::to_cents(e.amount), "currency" => e.currency,
        "date" => e.date, "account_id" => e.account_id, "category_id" => e.category_id,
        "merchant" => e.merchant, "notes" => e.notes,
    }
}

/// Newest first.
pub fn list(c: &Connection, user_id: &UserId, f: &Filter) -> Result<Vec<DailyExpense>> {
    page(c, user_id, f, 0)
}

/// The query of [`page`]: through the index on user and date, so a month
/// reads only that month's rows, and a page after a cursor (`?7` to `?9`,
/// whose date is also the upper bound `?3`) begins where the cursor's
/// entry is (a test checks its plan).
fn page_sql() -> String {
    format!(
        "SELECT {} FROM daily_expenses
         WHERE user_id = ?1 AND date >= COALESCE(?2, '0000-00-00') AND date <= COALESCE(?3, '9999-99-99')
           AND (?4 IS NULL OR COALESCE(category_id, '') = ?4)
           AND (?7 IS NULL OR date < ?7
                OR (date = ?7 AND (created_at < ?8 OR (created_at = ?8 AND id > ?9))))
         ORDER BY {} LIMIT ?5 OFFSET ?6",
        DailyExpense::COLUMNS,
        DailyExpense::ORDER
    )
}

/// The query of [`month_totals`]: through the primary key of the month sums.
const MONTH_TOTALS_SQL: &str =
    "SELECT currency, SUM(amount_cents), SUM(entries) FROM daily_expense_months
     WHERE user_id = ?1 AND month = ?2 AND (?3 IS NULL OR category_id = ?3)
     GROUP BY currency ORDER BY currency";

/// Newest first, from the `offset`-th on, after `f.after` when given (the
/// order is total: date, creation, id, so pages neither repeat nor skip an
/// entry). An offset passes over rows one by one; a cursor starts at its
/// entry in the index, however deep.
pub fn page(
    c: &Connection,
    user_id: &UserId,
    f: &Filter,
    offset: u32,
) -> Result<Vec<DailyExpense>> {
    let mut s = c.prepare_cached(&page_sql())?;
    let after = f.after.as_ref();
    let to = match (f.to, after.map(|a| a.date)) {
        (Some(to), Some(at)) => Some(to.min(at)),
        (to, at) => to.or(at),
    };
    let rows = s
        .query_map(
            params![
                user_id,
                f.from,
                to,
                f.category,
                f.limit.map(i64::from).unwrap_or(-1),
                offset,
                after.map(|a| a.date),
                after.map(|a| a.created_at.as_str()),
                after.map(|a| a.id.as_str()),
            ],
            DailyExpense::from_row,
        )?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// What one month's one-time expenses add up to, whatever page of them is
/// shown: how many there are and their sum per currency, for all of the
/// month's entries or those of one category ([`Filter::category`]),
/// read from the trigger-kept `daily_expense_months` (a few rows, never the
/// expenses themselves).
pub fn month_totals(
    c: &Connection,
    user_id: &UserId,
    month: NaiveDate,
    category: Option<&str>,
) -> Result<(u32, Vec<(String, Decimal)>)> {
    let mut s = c.prepare_cached(MONTH_TOTALS_SQL)?;
    let mut count = 0u32;
    let mut sums = Vec::new();
    let mut rows = s.query(params![
        user_id,
        month.format("%Y-%m").to_string(),
        category
    ])?;
    while let Some(r) = rows.next()? {
        let entries: i64 = r.get(2)?;
        count += u32::try_from(entries).unwrap_or(0);
        sums.push((r.get(0)?, money::from_cents(r.get(1)?)));
    }
    Ok((count, sums))
}

/// How many one-time expenses each day from `first` through `last` has,
/// newest day first (the order of their pages), those of one category only
/// when `category` names it ([`Filter::category`]); days without
/// any are left out. Through the index on user and date.
pub fn day_counts(
    c: &Connection,
    user_id: &UserId,
    (first, last): (NaiveDate, NaiveDate),
    category: Option<&str>,
) -> Result<Vec<(NaiveDate, u32)>> {
    let mut s = c.prepare_cached(
        "SELECT date, COUNT(*) FROM daily_expenses
         WHERE user_id = ?1 AND date >= ?2 AND date <= ?3
           AND (?4 IS NULL OR COALESCE(category_id, '') = ?4)
         GROUP BY date ORDER BY date DESC",
    )?;
    let rows = s
        .query_map(params![user_id, first, last, category], |r| {
            Ok((r.get(0)?, r.get::<_, u32>(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Sums of one-time expenses per month (its first day), category and
/// currency for the months `from` to `to` (first days), read from the
/// trigger-maintained table `daily_expense_months`.
pub type MonthSum = (NaiveDate, Option<String>, String, Decimal);

pub fn month_sums(
    c: &Connection,
    user_id: &UserId,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<MonthSum>> {
    let mut s = c.prepare_cached(
        "SELECT month || '-01', NULLIF(category_id, ''), currency, amount_cents
         FROM daily_expense_months
         WHERE user_id = ?1 AND month >= ?2 AND month <= ?3",
    )?;
    let month = |d: NaiveDate| d.format("%Y-%m").to_string();
    let rows = s
        .query_map(params![user_id, month(from), month(to)], month_sum)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The one-time expenses of one of the user's accounts dated in
/// `[from, to]`, summed per month (its first day), category and currency.
pub fn account_month_sums(
    c: &Connection,
    user_id: &UserId,
    account_id: &str,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<MonthSum>> {
    let mut s = c.prepare_cached(
        "SELECT substr(date, 1, 7) || '-01', category_id, currency, SUM(amount_cents)
         FROM daily_expenses
         WHERE user_id = ?1 AND account_id = ?2 AND date >= ?3 AND date <= ?4
         GROUP BY 1, 2, 3",
    )?;
    let rows = s
        .query_map(params![user_id, account_id, from, to], month_sum)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// A [`MonthSum`] from its four columns: month, category, currency, cents.
fn month_sum(r: &rusqlite::Row<'_>) -> rusqlite::Result<MonthSum> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        money::from_cents(r.get(3)?),
    ))
}

/// Whether any one-time expense of the user is in another currency than `base`.
pub fn any_other_currency(c: &Connection, user_id: &UserId, base: &str) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS(SELECT 1 FROM daily_expenses
                       WHERE user_id = ?1 AND (currency < ?2 OR currency > ?2))",
        params![user_id, base],
        |r| r.get(0),
    )?)
}

/// What the insert triggers leave undone for one-time expenses an import
/// wrote (`import_id` set; migrations/V9__bulk_import_upkeep.sql), done once
/// for the user's such rows with rowids `lo` to `hi`, all inserted by the
/// calling write transaction: their search index entries and month sums.
/// Both read the rowid range alone (`NOT INDEXED`): by the index on
/// `user_id` SQLite would otherwise choose, each chunk of a confirm read
/// all of the user's one-time expenses, the earlier chunks' included
/// (`docs/performance.md`).
pub fn index_imported(tx: &Connection, user_id: &UserId, lo: i64, hi: i64) -> Result<()> {
    for sql in INDEX_IMPORTED {
        tx.prepare_cached(sql)?.execute(params![user_id, lo, hi])?;
    }
    Ok(())
}

/// [`index_imported`]'s two statements: the search index, the month sums.
const INDEX_IMPORTED: [&str; 2] = [
    "INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
     SELECT rowid, name, merchant, notes FROM daily_expenses NOT INDEXED
     WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1 AND import_id IS NOT NULL",
    "INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
     SELECT user_id, substr(date, 1, 7), currency, COALESCE(category_id, ''),
            SUM(amount_cents), COUNT(*)
     FROM daily_expenses NOT INDEXED
     WHERE rowid BETWEEN ?2 AND ?3 AND user_id = ?1 AND import_id IS NOT NULL
     GROUP BY 1, 2, 3, 4
     ON CONFLICT (user_id, month, currency, category_id) DO UPDATE SET
         amount_cents = amount_cents + excluded.amount_cents,
         entries = entries + excluded.entries",
];

/// The user's one-time expenses of `account` on the days `near` holds, as
/// a bank import compares its rows with them (money out is negative), in
/// date order.
pub fn on_days(c: &Connection, user: &UserId, account: &str, near: &Near) -> Result<Vec<Entry>> {
    let (from, to) = near.span();
    let mut s = c.prepare_cached(
        "SELECT id, date, amount_cents, name, merchant, import_key FROM daily_expenses
         WHERE user_id = ?1 AND account_id = ?2 AND date BETWEEN ?3 AND ?4
         ORDER BY date, created_at, id",
    )?;
    let rows = s.query_map(params![user, account, from, to], |r| {
        let merchant: String = r.get(4)?;
        Ok(candidates::expense_entry(
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            &merchant,
            r.get(5)?,
        ))
    })?;
    let mut entries = Vec::new();
    for e in rows {
        entries.extend(Some(e?).filter(|e| near.contains(e.date)));
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use crate::store::Db;
    use proptest::prelude::*;

    /// The upkeep of an import's chunk reads the chunk's rowid range, not
    /// all of the user's one-time expenses through an index on `user_id`.
    #[test]
    fn the_upkeep_of_imported_expenses_reads_only_their_rowids() {
        on_a_fresh_db(|c| {
            for sql in super::INDEX_IMPORTED {
                let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                let plan: Vec<String> = s
                    .query_map(rusqlite::params!["user", 1, 2], |r| r.get::<_, String>(3))?
                    .collect::<rusqlite::Result<_>>()?;
                let plan = plan.join("\n");
                assert!(plan.contains("INTEGER PRIMARY KEY"), "{plan}");
                assert!(!plan.contains("USING INDEX"), "{plan}");
            }
            Ok(())
        });
    }

    /// Runs `f` on a connection of a new, migrated database.
    fn on_a_fresh_db(
        f: impl FnOnce(&mut rusqlite::Connection) -> crate::error::Result<()> + Send + 'static,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(db.run(f)).unwrap();
    }

    /// The month sums equal a GROUP BY over the expenses after any mix of
    /// inserts, updates (date, amount, currency, category) and deletes.
    fn check(ops: Vec<(u8, u8, u8, u8, u16)>) {
        on_a_fresh_db(move |c| {
            c.execute_batch(
                "INSERT INTO users (id, email, email_lower, password_hash, created_at, updated_at)
                   VALUES ('u', 'u@x.org', 'u@x.org', 'x', '', '');
                 INSERT INTO accounts (id, user_id, name, type, currency, created_at, updated_at)
                   VALUES ('a', 'u', 'A', 'checking', 'EUR', '', '');
                 INSERT INTO categories (id, user_id, name, created_at, updated_at) VALUES ('k1', 'u', 'K1', '', '');
                 INSERT INTO categories (id, user_id, name, created_at, updated_at) VALUES ('k2', 'u', 'K2', '', '');",
            )?;
            let mut ids: Vec<String> = Vec::new();
            for (n, (op, day, cur, cat, cents)) in ops.into_iter().enumerate() {
                let date = format!("2025-{:02}-{:02}", 1 + day % 3, 1 + day % 28);
                let currency = ["EUR", "USD"][cur as usize % 2];
                let category: Option<&str> = [None, Some("k1"), Some("k2")][cat as usize % 3];
                let amount = i64::from(cents) + 1;
                match op % 4 {
                    0 | 1 => {
                        let id = format!("d{n}");
                        c.execute(
                            "INSERT INTO daily_expenses (id, user_id, name, amount_cents, currency, date, account_id,
                                                         category_id, created_at, updated_at)
                             VALUES (?1, 'u', 'x', ?2, ?3, ?4, 'a', ?5, '', '')",
                            rusqlite::params![id, amount, currency, date, category],
                        )?;
                        ids.push(id);
                    }
                    2 if !ids.is_empty() => {
                        let id = &ids[cents as usize % ids.len()];
                        c.execute(
                            "UPDATE daily_expenses SET date = ?2, amount_cents = ?3, currency = ?4, category_id = ?5 WHERE id = ?1",
                            rusqlite::params![id, date, amount, currency, category],
                        )?;
                    }
                    3 if !ids.is_empty() => {
                        let id = ids.remove(cents as usize % ids.len());
                        c.execute("DELETE FROM daily_expenses WHERE id = ?1", [id])?;
                    }
                    _ => {}
                }
            }
            // Deleting a category leaves its entries uncategorised, and the sums follow.
            c.execute("DELETE FROM categories WHERE id = 'k2'", [])?;
            type Row = (String, String, String, i64, i64);
            let kept = |sql: &str| -> rusqlite::Result<Vec<Row>> {
                let mut s = c.prepare(sql)?;
                let rows = s
                    .query_map([], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                    })?
                    .collect();
                rows
            };
            let expected = kept(
                "SELECT substr(date, 1, 7), currency, COALESCE(category_id, ''), SUM(amount_cents), COUNT(*)
                 FROM daily_expenses GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
            )?;
            let actual = kept(
                "SELECT month, currency, category_id, amount_cents, entries FROM daily_expense_months ORDER BY 1, 2, 3",
            )?;
            assert_eq!(actual, expected);
            Ok(())
        });
    }

    /// The amount of an entry is a JSON number with exactly two decimals,
    /// whatever its scale inside: the bytes every reply has carried.
    #[test]
    fn an_entrys_amount_is_a_number_with_two_decimals() {
        use super::{DailyEntry, Money};
        for (amount, text) in [("12.3", "12.30"), ("1234.5", "1234.50"), ("-0.5", "-0.50")] {
            let entry = DailyEntry {
                name: "Bakery".into(),
                amount: Money(amount.parse().unwrap()),
                currency: "EUR".into(),
                date: chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap(),
                account_id: "a".into(),
                category_id: None,
                merchant: String::new(),
                notes: String::new(),
            };
            assert_eq!(
                serde_json::to_string(&entry).unwrap(),
                format!(
                    r#"{{"name":"Bakery","amount":{text},"currency":"EUR","date":"2026-11-23","accountId":"a","categoryId":null,"merchant":"","notes":""}}"#
                )
            );
        }
    }

    /// What SQLite plans for `sql` with `params`: the detail of each step.
    fn plan(c: &rusqlite::Connection, sql: &str, params: impl rusqlite::Params) -> Vec<String> {
        let mut s = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = s.query_map(params, |r| r.get::<_, String>(3)).unwrap();
        rows.collect::<rusqlite::Result<_>>().unwrap()
    }

    #[test]
    fn a_page_of_a_month_and_its_totals_are_read_through_indexes() {
        on_a_fresh_db(|c| {
            let month = ("u", "2026-03-01", "2026-03-31");
            for category in [None, Some("k")] {
                let steps = plan(
                    c,
                    &super::page_sql(),
                    rusqlite::params![
                        month.0,
                        month.1,
                        month.2,
                        category,
                        50,
                        100,
                        None::<String>,
                        None::<String>,
                        None::<String>
                    ],
                );
                assert!(
                    steps[0].starts_with("SEARCH daily_expenses USING INDEX daily_expenses_user_date (user_id=? AND date>? AND date<?)"),
                    "{steps:?}"
                );
                assert!(!steps.iter().any(|s| s.starts_with("SCAN")), "{steps:?}");
                // After a cursor: the same search, its date the upper bound.
                let steps = plan(
                    c,
                    &super::page_sql(),
                    rusqlite::params![
                        month.0,
                        month.1,
                        "2026-03-14",
                        category,
                        50,
                        0,
                        "2026-03-14",
                        "2026-03-14T10:00:00Z",
                        "id"
                    ],
                );
                assert!(
                    steps[0].starts_with("SEARCH daily_expenses USING INDEX daily_expenses_user_date (user_id=? AND date>? AND date<?)"),
                    "{steps:?}"
                );
                let steps = plan(
                    c,
                    super::MONTH_TOTALS_SQL,
                    rusqlite::params!["u", "2026-03", category],
                );
                assert!(
                    steps[0].starts_with(
                        "SEARCH daily_expense_months USING PRIMARY KEY (user_id=? AND month=?)"
                    ),
                    "{steps:?}"
                );
                assert!(!steps.iter().any(|s| s.starts_with("SCAN")), "{steps:?}");
            }
            Ok(())
        });
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn month_sums_follow_every_change(ops in proptest::collection::vec((0u8..4, 0u8..90, 0u8..2, 0u8..3, 0u16..5000), 1..60)) {
            check(ops);
        }
    }
}
