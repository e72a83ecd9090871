//! "Export my data": one zip archive of everything a user keeps, for
//! taking it elsewhere or reading it in a spreadsheet (`docs/operations.md`).
//!
//! - `data.json`: the user's settings and every row of every table of
//!   theirs, column by column as stored (amounts in cents), never a
//!   password hash, a token hash, a session or a push subscription;
//! - `csv/<table>.csv`: the money records for spreadsheets, amounts as
//!   decimals;
//! - `documents/<id>/<file name>`: the documents' files.

use super::documents::Files;
use super::users::User;
use anyhow::{Context, Result};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use serde_json::{json, Map, Value};
use std::io::{Seek, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// The archive's format, in `data.json`.
pub const FORMAT: &str = "cashkeeper-export";
pub const VERSION: u32 = 1;

/// The user's tables in the order a later import writes them (parents
/// first), and whether each gets a CSV file. Sessions, password resets,
/// API tokens and push subscriptions are credentials of this instance and
/// stay out; sums and search indexes are derived.
pub const TABLES: &[(&str, bool)] = &[
    ("accounts", true),
    ("categories", true),
    ("expenses", true),
    ("daily_expenses", true),
    ("incomes", true),
    ("transfers", true),
    ("reserve_pots", true),
    ("documents", true),
    ("insights", false),
    ("merchant_categories", true),
    ("conversations", false),
    ("conversation_messages", false),
    ("import_batches", false),
    ("import_rows", false),
];

/// What an export holds.
#[derive(Debug, Default, PartialEq)]
pub struct Summary {
    pub records: usize,
    pub documents: usize,
}

/// Writes the archive of `user` to `out`.
pub fn write<W: Write + Seek>(
    c: &Connection,
    files: &Files,
    user: &User,
    exported_at: &str,
    out: W,
) -> Result<Summary> {
    let mut zip = ZipWriter::new(out);
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut tables = Map::new();
    let mut summary = Summary::default();
    for (table, csv) in TABLES {
        let (columns, rows) = rows_of(c, table, user)?;
        summary.records += rows.len();
        if *csv {
            zip.start_file(format!("csv/{table}.csv"), options)?;
            write_csv(&mut zip, &columns, &rows)?;
        }
        let objects: Vec<Value> = rows
            .into_iter()
            .map(|row| Value::Object(columns.iter().cloned().zip(row).collect()))
            .collect();
        tables.insert(table.to_string(), Value::Array(objects));
    }
    let data = json!({
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
        "tables": tables,
    });
    zip.start_file("data.json", options)?;
    serde_json::to_writer_pretty(&mut zip, &data)?;

    let mut s = c.prepare(
        "SELECT id, file_name FROM documents WHERE user_id = ?1 ORDER BY created_at, id",
    )?;
    let docs: Vec<(String, String)> = s
        .query_map([&user.id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    for (id, name) in docs {
        let path = files.path(&user.id, &id);
        let Ok(bytes) = std::fs::read(&path) else {
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
        zip.write_all(&bytes)?;
        summary.documents += 1;
    }
    zip.finish().context("finishing the archive")?;
    Ok(summary)
}

/// Every row of the user's in `table`: its columns (without `user_id`)
/// and their values.
fn rows_of(c: &Connection, table: &str, user: &User) -> Result<(Vec<String>, Vec<Vec<Value>>)> {
    let mut s = c.prepare(&format!(
        "SELECT * FROM {table} WHERE user_id = ?1 ORDER BY rowid"
    ))?;
    let all: Vec<String> = s.column_names().into_iter().map(str::to_string).collect();
    let keep: Vec<usize> = (0..all.len()).filter(|&i| all[i] != "user_id").collect();
    let columns = keep.iter().map(|&i| all[i].clone()).collect();
    let mut rows = Vec::new();
    let mut q = s.query([&user.id])?;
    while let Some(r) = q.next()? {
        let mut row = Vec::with_capacity(keep.len());
        for &i in &keep {
            row.push(match r.get_ref(i)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => json!(n),
                ValueRef::Real(f) => json!(f),
                ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::String(hex::encode(b)),
            });
        }
        rows.push(row);
    }
    Ok((columns, rows))
}

/// A spreadsheet's CSV: a header, `*_cents` columns as decimal amounts.
fn write_csv<W: Write>(out: &mut W, columns: &[String], rows: &[Vec<Value>]) -> Result<()> {
    let cents: Vec<bool> = columns.iter().map(|c| c.ends_with("_cents")).collect();
    let mut w = csv::Writer::from_writer(out);
    w.write_record(
        columns
            .iter()
            .map(|c| c.strip_suffix("_cents").unwrap_or(c)),
    )?;
    for row in rows {
        w.write_record(row.iter().zip(&cents).map(|(v, &is_cents)| {
            match v {
                Value::Null => String::new(),
                Value::Number(n) if is_cents => n
                    .as_i64()
                    .map(|c| format!("{:.2}", crate::domain::money::from_cents(c)))
                    .unwrap_or_default(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        }))?;
    }
    w.flush()?;
    Ok(())
}
