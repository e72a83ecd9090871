//! "Export my data": one zip archive of everything a user keeps, for
//! taking it elsewhere or reading it in a spreadsheet (`docs/operations.md`).
//!
//! - `data.json`: the user's settings and every row of every table of
//!   theirs, column by column as stored (amounts in cents), never a
//!   password hash, a token hash, a session or a push subscription;
//! - `csv/<table>.csv`: the money records for spreadsheets, amounts as
//!   decimals, text that a spreadsheet would read as a formula behind a `'`;
//! - `spreadsheet/<name>.csv`: the money records as a spreadsheet of the
//!   user's language reads them (`sheets`); never read back;
//! - `documents/<id>/<file name>`: the documents' files.
//!
//! The archive is written row by row as the rows are read: memory does not
//! grow with the number of records. Loading one back is two steps: [`check`]
//! reads and checks the archive without a database connection, within hard
//! [`Limits`], and stages its documents through the checks of an upload;
//! [`load`] then writes the rows under new ids in one transaction.

use super::documents::Files;
use super::users::User;
use anyhow::Context;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde_json::json;
use std::io::{BufWriter, Seek, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

mod load;
pub mod sheets;
pub use load::{
    begin, being_loaded, check, finish, interrupted, prepare, take_back, write_chunk, Checked,
    Imported, Limits, Loading, CHUNK_ROWS, MAX_RATIO, RATIO_FROM,
};

/// The archive's format, in `data.json`.
pub const FORMAT: &str = "cashkeeper-export";
/// 2: with `earlier_amounts` (price history) and `accounts.balance_set_at`;
/// 3: with `budgets` and `balance_history`, and categories without their
/// `monthly_limit_cents`. An archive of an older version is read as the
/// migrations would have upgraded it.
pub const VERSION: u32 = 3;

/// The user's tables in the order a later import writes them (parents
/// first), and whether each gets a CSV file. Every other table of the
/// schema is in [`STAY`], with the reason it stays behind; a test holds
/// the two lists against the migrated schema, so a table a migration adds
/// is one or the other.
pub const TABLES: &[(&str, bool)] = &[
    ("accounts", true),
    ("balance_history", true),
    ("categories", true),
    ("budgets", true),
    ("expenses", true),
    ("daily_expenses", true),
    ("incomes", true),
    ("earlier_amounts", true),
    ("transfers", true),
    ("reserve_pots", true),
    ("documents", true),
    ("insights", false),
    ("merchant_categories", true),
    ("conversations", false),
    ("conversation_messages", false),
    ("assistant_proposals", false),
    ("import_batches", false),
    ("import_rows", false),
];

/// The tables of the schema an archive deliberately does not carry.
pub const STAY: &[&str] = &[
    // The account itself: its settings travel in `data.json`'s head.
    "users",
    // Credentials of this instance: sign-ins, second factor, single
    // sign-on links, API tokens, browsers' push endpoints.
    "sessions",
    "password_resets",
    "login_challenges",
    "recovery_codes",
    "oidc_identities",
    "api_tokens",
    "push_subscriptions",
    // Bank connections: a sealed PIN and the bank's state, their accounts
    // and the morning sync's asks for a TAN.
    "bank_connections",
    "bank_accounts",
    "bank_sync_asks",
    // Pushes already sent on this instance.
    "budget_alerts",
    "contract_reminders",
    // Derived: sums and the search index kept by triggers, the data
    // versions that stamp caches.
    "daily_expense_months",
    "daily_expenses_fts",
    "user_data_versions",
    // A load of an archive under way.
    "export_loads",
    // Shared by every user: the exchange rates and the migrations applied.
    "exchange_rates",
    "refinery_schema_history",
];

/// What an export holds.
#[derive(Debug, Default, PartialEq)]
pub struct Summary {
    pub records: usize,
    pub documents: usize,
}

/// Writes the archive of `user` to `out`, each row as it is read.
pub fn write<W: Write + Seek>(
    c: &Connection,
    files: &Files,
    user: &User,
    exported_at: &str,
    out: W,
) -> anyhow::Result<Summary> {
    let mut zip = ZipWriter::new(out);
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .large_file(true);
    let mut summary = Summary::default();
    for (table, csv) in TABLES {
        if *csv {
            zip.start_file(format!("csv/{table}.csv"), options)?;
            write_csv(c, table, user, &mut zip)?;
        }
    }
    sheets::write(c, user, &mut zip, options)?;
    zip.start_file("data.json", options)?;
    {
        let mut out = BufWriter::with_capacity(64 * 1024, &mut zip);
        summary.records = write_data(c, user, exported_at, &mut out)?;
        out.flush()?;
    }

    let mut s = c.prepare(
        "SELECT id, file_name FROM documents WHERE user_id = ?1 ORDER BY created_at, id",
    )?;
    let mut q = s.query([&user.id])?;
    while let Some(r) = q.next()? {
        let (id, name): (String, String) = (r.get(0)?, r.get(1)?);
        let Ok(mut file) = std::fs::File::open(files.path(&user.id, &id)) else {
            // A row whose file is gone (a restore without the documents)
            // is in data.json; there is nothing to copy.
            continue;
        };
        let name: String = name
            .chars()
            .map(|c| {
                if c == '/' || c == '\\' || c.is_control() {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        let name = match name.trim() {
            "" | "." | ".." => "document".to_string(),
            _ => name,
        };
        // Stored already: PDFs and photos do not compress.
        zip.start_file(
            format!("documents/{id}/{name}"),
            SimpleFileOptions::default().compression_method(CompressionMethod::Stored),
        )?;
        std::io::copy(&mut file, &mut zip).context("copying a document into the archive")?;
        summary.documents += 1;
    }
    zip.finish().context("finishing the archive")?;
    Ok(summary)
}

/// `data.json`, written as the rows are read: the head, then each table's
/// rows as objects of their columns. Answers how many rows.
fn write_data<W: Write>(
    c: &Connection,
    user: &User,
    exported_at: &str,
    out: &mut W,
) -> anyhow::Result<usize> {
    let head = serde_json::to_string(&json!({
        "format": FORMAT,
        "version": VERSION,
        "exportedAt": exported_at,
        "user": {
            "email": user.email,
            "name": user.name,
            "locale": user.locale.code(),
            "baseCurrency": user.base_currency,
            "createdAt": user.created_at,
        },
    }))?;
    // The head without its closing brace; the tables follow.
    out.write_all(&head.as_bytes()[..head.len() - 1])?;
    out.write_all(b",\"tables\":{")?;
    let mut records = 0;
    for (i, (table, _)) in TABLES.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, table)?;
        out.write_all(b":[")?;
        let (columns, keep) = columns_of(c, table)?;
        let mut first = true;
        each_row(c, table, user, &keep, |values| {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            out.write_all(b"{")?;
            for (j, (name, value)) in columns.iter().zip(values).enumerate() {
                if j > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, name)?;
                out.write_all(b":")?;
                match *value {
                    ValueRef::Null => out.write_all(b"null")?,
                    ValueRef::Integer(n) => write!(out, "{n}")?,
                    ValueRef::Real(f) => serde_json::to_writer(&mut *out, &f)?,
                    ValueRef::Text(t) => {
                        serde_json::to_writer(&mut *out, &String::from_utf8_lossy(t))?
                    }
                    ValueRef::Blob(b) => serde_json::to_writer(&mut *out, &hex::encode(b))?,
                }
            }
            out.write_all(b"}")?;
            records += 1;
            Ok(())
        })?;
        out.write_all(b"]")?;
    }
    out.write_all(b"}}")?;
    Ok(records)
}

/// The columns of `table` an archive holds (all but `user_id`) and their
/// positions in `SELECT *`.
fn columns_of(c: &Connection, table: &str) -> anyhow::Result<(Vec<String>, Vec<usize>)> {
    let s = c.prepare(&format!("SELECT * FROM {table} LIMIT 0"))?;
    let (mut columns, mut keep) = (Vec::new(), Vec::new());
    for (i, name) in s.column_names().into_iter().enumerate() {
        if name != "user_id" {
            columns.push(name.to_string());
            keep.push(i);
        }
    }
    Ok((columns, keep))
}

/// Calls `f` with the kept values of each of the user's rows in `table`,
/// one row at a time.
fn each_row(
    c: &Connection,
    table: &str,
    user: &User,
    keep: &[usize],
    mut f: impl FnMut(&[ValueRef<'_>]) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut s = c.prepare(&format!(
        "SELECT * FROM {table} WHERE user_id = ?1 ORDER BY rowid"
    ))?;
    let mut q = s.query([&user.id])?;
    while let Some(r) = q.next()? {
        let values = keep
            .iter()
            .map(|&i| r.get_ref(i))
            .collect::<rusqlite::Result<Vec<_>>>()?;
        f(&values)?;
    }
    Ok(())
}

/// A spreadsheet's CSV of the user's rows in `table`: a header, `*_cents`
/// columns as decimal amounts, text made safe by [`spreadsheet_text`].
fn write_csv<W: Write>(c: &Connection, table: &str, user: &User, out: W) -> anyhow::Result<()> {
    let (columns, keep) = columns_of(c, table)?;
    let cents: Vec<bool> = columns.iter().map(|c| c.ends_with("_cents")).collect();
    let mut w = csv::Writer::from_writer(out);
    w.write_record(
        columns
            .iter()
            .map(|c| c.strip_suffix("_cents").unwrap_or(c)),
    )?;
    each_row(c, table, user, &keep, |values| {
        w.write_record(values.iter().zip(&cents).map(|(v, &is_cents)| {
            match *v {
                ValueRef::Null => String::new(),
                ValueRef::Integer(n) if is_cents => {
                    format!("{:.2}", crate::domain::money::from_cents(n))
                }
                ValueRef::Integer(n) => n.to_string(),
                ValueRef::Real(f) => serde_json::Number::from_f64(f)
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
                ValueRef::Text(t) => spreadsheet_text(&String::from_utf8_lossy(t)),
                ValueRef::Blob(b) => hex::encode(b),
            }
        }))?;
        Ok(())
    })?;
    w.flush()?;
    Ok(())
}

/// A text cell as spreadsheet programs need it: one that begins like a
/// formula (`=`, `+`, `-`, `@`, a tab or a carriage return; a payee or memo
/// from a bank file can) gets a leading `'`, so it is shown as text and
/// never calculated. Numbers are never text cells, so `-12.50` stays a
/// number; `data.json` keeps the text as it is.
pub fn spreadsheet_text(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables of the migrated schema, but SQLite's own and the shadow
    /// tables of a virtual one (`daily_expenses_fts_data`: part of it).
    fn schema_tables(c: &Connection) -> Vec<String> {
        let all: Vec<(String, String)> = c
            .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1).unwrap_or_default())))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let virtual_tables: Vec<&str> = all
            .iter()
            .filter(|(_, sql)| sql.starts_with("CREATE VIRTUAL TABLE"))
            .map(|(name, _)| name.as_str())
            .collect();
        all.iter()
            .map(|(name, _)| name)
            .filter(|name| !name.starts_with("sqlite_"))
            .filter(|name| {
                !virtual_tables.iter().any(|v| {
                    name.strip_prefix(v)
                        .is_some_and(|rest| rest.starts_with('_'))
                })
            })
            .cloned()
            .collect()
    }

    /// The tables of `c`'s schema neither in [`TABLES`] nor in [`STAY`].
    fn unplaced(c: &Connection) -> Vec<String> {
        schema_tables(c)
            .into_iter()
            .filter(|t| !TABLES.iter().any(|(name, _)| name == t) && !STAY.contains(&t.as_str()))
            .collect()
    }

    fn migrated() -> Connection {
        let mut c = Connection::open_in_memory().unwrap();
        crate::store::migrate(&mut c).unwrap();
        c
    }

    /// A table a migration adds either travels in the archive or is named,
    /// with its reason, among those that stay; and every table either list
    /// names exists, those that travel with a `user_id` to select by.
    #[test]
    fn every_table_of_the_schema_travels_or_stays_by_name() {
        let c = migrated();
        let unplaced = unplaced(&c);
        assert!(
            unplaced.is_empty(),
            "tables neither in store::export::TABLES nor in STAY: {unplaced:?}"
        );
        let tables = schema_tables(&c);
        for name in TABLES
            .iter()
            .map(|(name, _)| *name)
            .chain(STAY.iter().copied())
        {
            assert!(tables.iter().any(|t| t == name), "{name} is no table");
        }
        for (name, _) in TABLES {
            assert!(!STAY.contains(name), "{name} both travels and stays");
            let all = c.prepare(&format!("SELECT * FROM {name} LIMIT 0")).unwrap();
            assert!(
                all.column_names().contains(&"user_id"),
                "{name} has no user_id"
            );
        }
    }

    /// A table added without a place is found; the shadow tables of the
    /// search index are part of it.
    #[test]
    fn a_table_added_without_a_place_is_found() {
        let c = migrated();
        c.execute_batch("CREATE TABLE savings_goals (id TEXT, user_id TEXT)")
            .unwrap();
        assert_eq!(unplaced(&c), ["savings_goals"]);
        assert!(!schema_tables(&c)
            .iter()
            .any(|t| t.starts_with("daily_expenses_fts_")));
        assert!(schema_tables(&c).iter().any(|t| t == "daily_expenses_fts"));
    }

    #[test]
    fn text_that_a_spreadsheet_would_calculate_gets_a_quote() {
        for formula in ["=1+2", "+49 30", "-Kiosk", "@SUM(A1)", "\tTab", "\rLine"] {
            assert_eq!(spreadsheet_text(formula), format!("'{formula}"));
        }
        for text in ["Bäcker", "12.50", "", " =not first", "'quoted"] {
            assert_eq!(spreadsheet_text(text), text);
        }
    }
}
