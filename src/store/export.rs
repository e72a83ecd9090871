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
use std::io::{Read, Seek, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// The archive's format, in `data.json`.
pub const FORMAT: &str = "cashkeeper-export";
/// 2: with `earlier_amounts` (price history) and `accounts.balance_set_at`;
/// an archive of version 1 is read as the migrations would have upgraded it.
pub const VERSION: u32 = 2;

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

/// What an import of an archive wrote.
#[derive(Debug, Default, PartialEq)]
pub struct Imported {
    pub records: usize,
    pub documents: usize,
}

/// Why an archive is refused. Nothing is written then.
fn refuse(message: impl Into<String>) -> anyhow::Error {
    anyhow::anyhow!(message.into())
}

/// Loads an archive written by [`write`] into the data of `user`, who must
/// have nothing of their own yet but the default categories (which the
/// archive's replace). Every row keeps its id, so the archive of the new
/// instance holds the same data; an archive whose records are in this
/// instance already is refused. All rows land in one transaction, the
/// documents' files before it commits (and are removed if it does not).
/// The archive's settings (name, language, base currency) come along.
pub fn import<R: Read + Seek>(
    c: &mut Connection,
    files: &Files,
    user: &super::users::UserId,
    archive: R,
    now: &str,
) -> Result<Imported> {
    let mut zip = zip::ZipArchive::new(archive).map_err(|e| {
        refuse(format!(
            "not a cashkeeper export: not a readable zip archive ({e})"
        ))
    })?;
    let data: Value = {
        let entry = zip
            .by_name("data.json")
            .map_err(|_| refuse("not a cashkeeper export: it has no data.json"))?;
        serde_json::from_reader(entry).map_err(|e| {
            refuse(format!(
                "not a cashkeeper export: data.json is damaged ({e})"
            ))
        })?
    };
    if data["format"] != FORMAT {
        return Err(refuse(
            "not a cashkeeper export: data.json has another format",
        ));
    }
    match data["version"].as_u64() {
        Some(v) if v <= u64::from(VERSION) => {}
        _ => {
            return Err(refuse(format!(
                "the archive is of a newer export version ({}); use a newer cashkeeper",
                data["version"]
            )))
        }
    }
    let tables = data["tables"]
        .as_object()
        .ok_or_else(|| refuse("not a cashkeeper export: data.json has no tables"))?;

    // The documents' files, read and checked before anything is written.
    let mut docs: Vec<(String, Vec<u8>)> = Vec::new();
    for row in tables
        .get("documents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = row["id"].as_str().unwrap_or_default();
        if uuid::Uuid::parse_str(id).is_err() {
            return Err(refuse("data.json: a document has no valid id"));
        }
        let prefix = format!("documents/{id}/");
        let name = zip
            .file_names()
            .filter_map(|n| n.ok())
            .find(|n| n.starts_with(&prefix))
            .map(|n| n.into_owned());
        let Some(name) = name else { continue };
        let mut bytes = Vec::new();
        zip.by_name(&name)?
            .read_to_end(&mut bytes)
            .map_err(|e| refuse(format!("{name} cannot be read from the archive ({e})")))?;
        let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&bytes));
        if Some(sha.as_str()) != row["sha256"].as_str() {
            return Err(refuse(format!(
                "{name} does not match its checksum: the archive is damaged"
            )));
        }
        docs.push((id.to_string(), bytes));
    }

    let tx = super::write_transaction(c)?;
    let others: i64 = tx.query_row(
        "SELECT (SELECT COUNT(*) FROM accounts WHERE user_id = ?1)
              + (SELECT COUNT(*) FROM expenses WHERE user_id = ?1)
              + (SELECT COUNT(*) FROM daily_expenses WHERE user_id = ?1)
              + (SELECT COUNT(*) FROM incomes WHERE user_id = ?1)
              + (SELECT COUNT(*) FROM documents WHERE user_id = ?1)",
        [user],
        |r| r.get(0),
    )?;
    if others > 0 {
        return Err(refuse(
            "the user has records already; import into a user who has none",
        ));
    }
    tx.execute("DELETE FROM categories WHERE user_id = ?1", [user])?;
    let mut imported = Imported::default();
    for (table, _) in TABLES {
        let Some(rows) = tables.get(*table).and_then(Value::as_array) else {
            continue;
        };
        let known: Vec<String> = tx
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for row in rows {
            let row = row
                .as_object()
                .ok_or_else(|| refuse(format!("data.json: a row of {table} is not an object")))?;
            let columns: Vec<&String> = row
                .keys()
                .filter(|k| known.contains(k) && *k != "user_id")
                .collect();
            let sql = format!(
                "INSERT INTO {table} (user_id, {}) VALUES (?1, {})",
                columns
                    .iter()
                    .map(|c| format!("\"{c}\""))
                    .collect::<Vec<_>>()
                    .join(", "),
                (2..columns.len() + 2)
                    .map(|i| format!("?{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let values: Vec<rusqlite::types::Value> = columns
                .iter()
                .map(|c| match &row[c.as_str()] {
                    Value::Null => rusqlite::types::Value::Null,
                    Value::Bool(b) => rusqlite::types::Value::Integer(i64::from(*b)),
                    Value::Number(n) => match n.as_i64() {
                        Some(i) => rusqlite::types::Value::Integer(i),
                        None => rusqlite::types::Value::Real(n.as_f64().unwrap_or(0.0)),
                    },
                    Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                    other => rusqlite::types::Value::Text(other.to_string()),
                })
                .collect();
            let mut params: Vec<&dyn rusqlite::ToSql> = vec![user];
            params.extend(values.iter().map(|v| v as &dyn rusqlite::ToSql));
            tx.execute(&sql, params.as_slice()).map_err(|e| match e {
                rusqlite::Error::SqliteFailure(f, _)
                    if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                {
                    refuse(format!(
                        "a record of {table} cannot be loaded ({e}); are this archive's records in this instance already?"
                    ))
                }
                e => e.into(),
            })?;
            imported.records += 1;
        }
    }
    // Every reference to another record must be to one of this archive's
    // (this user's): an id of someone else's record is refused.
    for (table, _) in TABLES {
        let references: Vec<(String, String, String)> = tx
            .prepare(&format!(
                "SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list('{table}')"
            ))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (parent, from, to) in references {
            if parent == "users" {
                continue;
            }
            let foreign: i64 = tx.query_row(
                &format!(
                    "SELECT COUNT(*) FROM {table} c WHERE c.user_id = ?1 AND c.\"{from}\" IS NOT NULL
                     AND NOT EXISTS (SELECT 1 FROM {parent} p
                                     WHERE p.\"{to}\" = c.\"{from}\" AND p.user_id = ?1)"
                ),
                [user],
                |r| r.get(0),
            )?;
            if foreign > 0 {
                return Err(refuse(format!(
                    "a record of {table} refers to a record of {parent} that is not in this archive"
                )));
            }
        }
    }
    // An archive from before price histories: the one earlier price the
    // expenses kept, as migrations/V12__earlier_amounts.sql seeds it.
    if !tables.contains_key("earlier_amounts") {
        tx.execute(
            "INSERT INTO earlier_amounts (user_id, expense_id, until, amount_cents)
             SELECT user_id, id, substr(amount_changed_at, 1, 10), previous_amount_cents
               FROM expenses
              WHERE user_id = ?1 AND is_subscription = 1
                AND previous_amount_cents IS NOT NULL
                AND previous_amount_cents <> amount_cents
                AND substr(amount_changed_at, 1, 10) > start_date
                AND substr(amount_changed_at, 1, 10) > substr(created_at, 1, 10)",
            [user],
        )?;
    }
    // What the insert triggers leave to a confirm for imported entries
    // (migrations/V9__bulk_import_upkeep.sql).
    tx.execute(
        "INSERT INTO daily_expenses_fts(rowid, name, merchant, notes)
         SELECT rowid, name, merchant, notes FROM daily_expenses
         WHERE user_id = ?1 AND import_id IS NOT NULL",
        [user],
    )?;
    tx.execute(
        "DELETE FROM daily_expense_months WHERE user_id = ?1",
        [user],
    )?;
    tx.execute(
        "INSERT INTO daily_expense_months (user_id, month, currency, category_id, amount_cents, entries)
         SELECT user_id, substr(date, 1, 7), currency, COALESCE(category_id, ''), SUM(amount_cents), COUNT(*)
         FROM daily_expenses WHERE user_id = ?1 GROUP BY 1, 2, 3, 4",
        [user],
    )?;
    let text = |k: &str| data["user"][k].as_str().map(str::to_string);
    let settings = super::users::SettingsChange {
        name: text("name"),
        base_currency: text("baseCurrency")
            .filter(|c| crate::domain::currency::Currency::parse("baseCurrency", c).is_ok()),
        locale: text("locale").and_then(|l| crate::domain::locale::Locale::from_code(&l)),
    };
    super::users::update_settings(&tx, user, &settings, now)?;
    let mut written: Vec<std::path::PathBuf> = Vec::new();
    for (id, bytes) in &docs {
        let path = files.path(user, id);
        if let Err(e) = files.write(&path, bytes) {
            for p in &written {
                files.remove(p);
            }
            return Err(e.into());
        }
        written.push(path);
    }
    if let Err(e) = tx.commit() {
        for p in &written {
            files.remove(p);
        }
        return Err(e.into());
    }
    imported.documents = docs.len();
    Ok(imported)
}
