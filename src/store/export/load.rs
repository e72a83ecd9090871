//! Loading an export back: [`check`] reads and checks the archive within
//! its [`Limits`] and stages its documents; [`prepare`] gives every record
//! a new id and checks every reference, [`begin`], [`write_chunk`] and
//! [`finish`] write its rows in chunks of [`CHUNK_ROWS`] rows per write
//! transaction, and [`take_back`] removes what a refused or interrupted
//! load wrote.

use super::{FORMAT, TABLES, VERSION};
use crate::domain::documents::MAX_BYTES;
use crate::error::{Error, Reason, Result};
use crate::store::documents::{self, Files, Upload};
use crate::store::users::UserId;
use crate::store::Cap;
use rusqlite::{Connection, OptionalExtension};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, Read, Seek};
use std::path::PathBuf;

/// How much of an archive [`check`] reads. Everything past a limit is
/// refused before it is expanded or parsed.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Files in the archive.
    pub entries: usize,
    /// `data.json`, expanded; it is held in memory (as its rows' text)
    /// until the rows are written.
    pub data_bytes: u64,
    /// The documents' files together: the user's document quota.
    pub quota: u64,
}

/// An entry over [`RATIO_FROM`] that expands to more than this many times
/// its compressed size is refused: deflate shrinks an export's JSON and
/// CSV by 3 to 10 times, a zip bomb by up to 1,000.
pub const MAX_RATIO: u64 = 100;
/// Entries smaller than this may compress as they like.
pub const RATIO_FROM: u64 = 1024 * 1024;

impl Limits {
    /// "Load an export" in Settings: 10,000 files, a `data.json` of up to
    /// 128 MiB (some 300,000 records).
    pub fn upload(quota: u64) -> Limits {
        Limits {
            entries: 10_000,
            data_bytes: 128 * 1024 * 1024,
            quota,
        }
    }

    /// `cashkeeper import-user`, run by the administrator: 200,000 files
    /// and a `data.json` of up to 4 GiB.
    pub fn command(quota: u64) -> Limits {
        Limits {
            entries: 200_000,
            data_bytes: 4 * 1024 * 1024 * 1024,
            quota,
        }
    }
}

/// What an import of an archive wrote.
#[derive(Debug, Default, PartialEq)]
pub struct Imported {
    pub records: usize,
    pub documents: usize,
    /// Records per table, for the tables that had any.
    pub tables: BTreeMap<String, usize>,
    /// The archive's base currency, when it replaced another.
    pub base_currency: Option<String>,
}

/// Why an archive is refused, naming the field `file`. Nothing is written then.
fn refuse(reason: Reason) -> Error {
    Error::invalid("file", reason)
}

/// A refusal about one file of the archive (`data.json`, `documents/…`).
fn refuse_file(name: &str, reason: Reason) -> Error {
    refuse(Reason::InFile(name.to_string(), Box::new(reason)))
}

fn damaged() -> Error {
    refuse_file("data.json", Reason::Damaged)
}

/// An archive read and checked by [`check`]: `data.json`'s rows (as their
/// text) and the documents' files, staged under new ids. Dropped without
/// [`load`] succeeding, it removes the staged files again.
pub struct Checked {
    user: Value,
    version: u64,
    tables: Vec<(&'static str, Vec<Box<RawValue>>)>,
    staged: Staged,
}

struct Staged {
    files: Files,
    docs: HashMap<String, StagedDocument>,
    kept: bool,
}

struct StagedDocument {
    id: String,
    path: PathBuf,
    file_name: String,
    content_type: &'static str,
    size: i64,
    sha256: String,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.kept {
            for d in self.docs.values() {
                self.files.remove(&d.path);
            }
        }
    }
}

#[derive(serde::Deserialize)]
struct Data {
    format: Option<Value>,
    version: Option<Value>,
    #[serde(default)]
    user: Value,
    tables: Option<HashMap<String, Vec<Box<RawValue>>>>,
}

/// Reads at most `declared` bytes: an entry that holds more than its
/// header says is damaged (or made to get past the size checks).
struct Bounded<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            // One byte more than declared is too much.
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other("the entry is larger than it says")),
            };
        }
        let max = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..max])?;
        self.left -= n as u64;
        Ok(n)
    }
}

fn mb(bytes: u64) -> u64 {
    bytes.div_ceil(1024 * 1024)
}

/// Reads and checks an archive written by [`write`] for `user`, without a
/// database connection: the number of files, each file's expanded size and
/// compression ratio before anything is expanded, `data.json` within
/// [`Limits::data_bytes`], and every document through the checks of an
/// upload ([`Upload::check`]: a PDF, JPEG, PNG or WebP by its first bytes,
/// at most 10 MiB; all of them within the quota), its checksum computed
/// again. The documents' files are written under new ids, to be kept by
/// [`load`].
pub fn check<R: Read + Seek>(
    files: &Files,
    user: &UserId,
    archive: R,
    limits: &Limits,
) -> Result<Checked> {
    let mut archive = archive;
    // The count the archive's end record gives, before the zip reader
    // builds an index of every entry.
    let said = entries_said(&mut archive).unwrap_or(0);
    if said > limits.entries as u64 {
        return Err(refuse(Reason::TooManyFiles(limits.entries)));
    }
    let mut zip = zip::ZipArchive::new(archive).map_err(|_| refuse(Reason::NotAnExport))?;
    if zip.len() > limits.entries {
        return Err(refuse(Reason::TooManyFiles(limits.entries)));
    }
    let mut data_index = None;
    let mut document_entries: HashMap<String, (usize, String, u64)> = HashMap::new();
    let mut expanded: u64 = 0;
    let most = limits
        .data_bytes
        .saturating_mul(2)
        .saturating_add(limits.quota);
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .map_err(|_| refuse(Reason::NotAnExport))?;
        let name: String = entry
            .name()
            .map(|n| n.chars().take(200).collect())
            .unwrap_or_else(|_| "?".to_string());
        let (size, packed) = (entry.size(), entry.compressed_size());
        if size > RATIO_FROM && size / packed.max(1) > MAX_RATIO {
            return Err(refuse_file(&name, Reason::ExpandsTimes(MAX_RATIO)));
        }
        expanded = expanded.saturating_add(size);
        if expanded > most {
            return Err(refuse_file(&name, Reason::ArchiveExpandsTo(mb(most))));
        }
        if name == "data.json" {
            if size > limits.data_bytes {
                return Err(refuse_file(
                    "data.json",
                    Reason::ExpandsTo(mb(limits.data_bytes)),
                ));
            }
            data_index = Some((i, size));
        } else if let Some(rest) = name.strip_prefix("documents/") {
            if let Some((id, _)) = rest.split_once('/') {
                document_entries
                    .entry(id.to_string())
                    .or_insert((i, name.clone(), size));
            }
        }
    }
    let Some((data_index, data_size)) = data_index else {
        return Err(refuse(Reason::NoDataJson));
    };
    let data: Data = {
        let entry = zip.by_index(data_index).map_err(|_| damaged())?;
        let reader = BufReader::with_capacity(
            64 * 1024,
            Bounded {
                inner: entry,
                left: data_size,
            },
        );
        serde_json::from_reader(reader).map_err(|_| damaged())?
    };
    if data.format.as_ref().and_then(Value::as_str) != Some(FORMAT) {
        return Err(refuse_file("data.json", Reason::OtherFormat));
    }
    let version = match data.version.as_ref().and_then(Value::as_u64) {
        Some(v) if v <= u64::from(VERSION) => v,
        _ => return Err(refuse_file("data.json", Reason::NewerVersion)),
    };
    let mut all = data.tables.ok_or_else(damaged)?;
    let tables: Vec<(&'static str, Vec<Box<RawValue>>)> = TABLES
        .iter()
        .filter_map(|(t, _)| all.remove(*t).map(|rows| (*t, rows)))
        .collect();
    drop(all);

    // The documents: through an upload's checks, one file in memory at a time.
    let mut staged = Staged {
        files: files.clone(),
        docs: HashMap::new(),
        kept: false,
    };
    let rows = tables
        .iter()
        .find(|(t, _)| *t == "documents")
        .map(|(_, rows)| rows.as_slice())
        .unwrap_or_default();
    let mut listed = Vec::new();
    let mut total: u64 = 0;
    for raw in rows {
        let row: Map<String, Value> = serde_json::from_str(raw.get()).map_err(|_| damaged())?;
        let id = row.get("id").and_then(Value::as_str).unwrap_or_default();
        if uuid::Uuid::parse_str(id).is_err() {
            return Err(damaged());
        }
        // A row whose file is not in the archive (it was gone when the
        // archive was written) is left out.
        let Some((index, name, size)) = document_entries.get(id) else {
            continue;
        };
        if *size > MAX_BYTES as u64 {
            return Err(refuse_file(name, Reason::DocumentTooLarge));
        }
        total += size;
        if total > limits.quota {
            // The user has no documents yet (`load` insists), so all of
            // the quota is free.
            return Err(documents::quota_refusal(limits.quota, 0));
        }
        listed.push((row, *index, name.clone(), *size));
    }
    for (row, index, name, size) in listed {
        let mut bytes = Vec::with_capacity(size as usize);
        let entry = zip.by_index(index).map_err(|_| damaged())?;
        Bounded {
            inner: entry,
            left: size,
        }
        .read_to_end(&mut bytes)
        .map_err(|_| refuse_file(&name, Reason::CannotRead))?;
        let file_name = row
            .get("file_name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let upload = Upload::check("file", file_name, bytes, None, None).map_err(|e| match e {
            Error::Invalid { reason, .. } => refuse_file(&name, reason),
            other => other,
        })?;
        let sha256 = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&upload.bytes));
        if row.get("sha256").and_then(Value::as_str) != Some(sha256.as_str()) {
            return Err(refuse_file(&name, Reason::Checksum));
        }
        let id = crate::store::new_id();
        let path = files.path(user, &id);
        files.write(&path, &upload.bytes)?;
        let old = row["id"].as_str().unwrap_or_default().to_string();
        staged.docs.insert(
            old,
            StagedDocument {
                id,
                path,
                file_name: upload.file_name,
                content_type: upload.kind.content_type(),
                size: upload.bytes.len() as i64,
                sha256,
            },
        );
    }
    Ok(Checked {
        user: data.user,
        version,
        tables,
        staged,
    })
}

/// How many files a zip archive's end of central directory record (or its
/// zip64 record) says it holds; `None` when there is no such record.
fn entries_said<R: Read + Seek>(archive: &mut R) -> Option<u64> {
    use std::io::SeekFrom;
    let len = archive.seek(SeekFrom::End(0)).ok()?;
    // The record is 22 bytes and a comment of up to 65,535.
    let tail = len.min(22 + 65_535);
    archive.seek(SeekFrom::Start(len - tail)).ok()?;
    let mut buf = vec![0u8; tail as usize];
    archive.read_exact(&mut buf).ok()?;
    let at = (0..buf.len().checked_sub(21)?)
        .rev()
        .find(|&i| buf[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])?;
    let entries = u64::from(u16::from_le_bytes([buf[at + 10], buf[at + 11]]));
    if entries != 0xFFFF {
        return Some(entries);
    }
    // zip64: its locator is the 20 bytes before the record.
    let locator = at.checked_sub(20)?;
    if buf[locator..locator + 4] != [0x50, 0x4b, 0x06, 0x07] {
        return Some(entries);
    }
    let offset = u64::from_le_bytes(buf[locator + 8..locator + 16].try_into().ok()?);
    archive.seek(SeekFrom::Start(offset)).ok()?;
    let mut record = [0u8; 40];
    archive.read_exact(&mut record).ok()?;
    if record[..4] != [0x50, 0x4b, 0x06, 0x06] {
        return Some(entries);
    }
    Some(u64::from_le_bytes(record[32..40].try_into().ok()?))
}

/// Columns that name another record without a declared foreign key: a
/// record's import, an import row's match and the record an assistant's
/// proposal booked. Given a new id when the record is in the archive, left
/// empty when not.
const LOOSE_REFERENCES: &[&str] = &["import_id", "match_id", "record_id"];

/// Rows a load writes per write transaction, and records a taken-back
/// load removes per write transaction: each holds the write lock for a
/// fraction of a second, so other users' writes wait briefly instead of for
/// the whole archive (see `docs/performance.md`).
pub const CHUNK_ROWS: usize = 5_000;

/// What a table's rows need to be written: its columns, whether its `id`
/// is a text key that gets a new id, and its columns that name a record of
/// another table (the table named).
struct Shape {
    known: Vec<String>,
    text_id: bool,
    references: HashMap<String, String>,
}

fn shape(c: &Connection, table: &str) -> Result<Shape> {
    let mut known = Vec::new();
    let mut text_id = false;
    {
        let mut s = c.prepare(&format!(
            "SELECT name, type, pk FROM pragma_table_info('{table}')"
        ))?;
        let mut q = s.query([])?;
        while let Some(r) = q.next()? {
            let (name, kind, pk): (String, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            if name == "id" && pk == 1 && kind.eq_ignore_ascii_case("TEXT") {
                text_id = true;
            }
            known.push(name);
        }
    }
    let references = c
        .prepare(&format!(
            "SELECT \"from\", \"table\" FROM pragma_foreign_key_list('{table}')"
        ))?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .filter(|r| !matches!(r, Ok((_, parent)) if parent == "users"))
        .collect::<rusqlite::Result<_>>()?;
    Ok(Shape {
        known,
        text_id,
        references,
    })
}

/// A [`check`]ed archive on its way into a user's data: every record's new
/// id is known before any is written (a record may name one of a table
/// written after its own), and every reference is checked, so only a
/// record the database itself refuses can stop a load once it wrote.
pub struct Loading {
    checked: Checked,
    ids: HashMap<String, String>,
    shapes: Vec<Shape>,
    /// Categories' monthly limits of an archive before budgets: (new id,
    /// cents, created at), made budgets at the end.
    limits: Vec<(String, i64, String)>,
    /// The next row to write: (table, row) in `checked.tables`.
    next: (usize, usize),
    /// What is written so far.
    pub imported: Imported,
}

/// Reads `checked` against the tables as they are: new ids, references and
/// the old archives' monthly limits. Writes nothing.
pub fn prepare(c: &Connection, checked: Checked) -> Result<Loading> {
    let mut ids: HashMap<String, String> = checked
        .staged
        .docs
        .iter()
        .map(|(old, d)| (old.clone(), d.id.clone()))
        .collect();
    #[derive(serde::Deserialize)]
    struct Id {
        id: Option<Value>,
    }
    for (table, rows) in &checked.tables {
        if *table == "documents" {
            continue;
        }
        for raw in rows {
            let row: Id = serde_json::from_str(raw.get()).map_err(|_| damaged())?;
            if let Some(Value::String(id)) = row.id {
                ids.entry(id)
                    .or_insert_with(crate::store::new_sequential_id);
            }
        }
    }
    let mut shapes = Vec::with_capacity(checked.tables.len());
    let mut limits = Vec::new();
    for (table, rows) in &checked.tables {
        let shape = shape(c, table)?;
        for raw in rows {
            let row: Map<String, Value> = serde_json::from_str(raw.get()).map_err(|_| damaged())?;
            for (column, value) in &row {
                let Some(parent) = shape.references.get(column) else {
                    continue;
                };
                let known = value.is_null() || value.as_str().is_some_and(|v| ids.contains_key(v));
                if shape.known.contains(column) && !known {
                    return Err(refuse_file(
                        "data.json",
                        Reason::DanglingRecord {
                            table: table.to_string(),
                            parent: parent.to_string(),
                        },
                    ));
                }
            }
            if *table == "categories" && checked.version < 3 {
                let old = row.get("id").and_then(Value::as_str);
                let cents = row.get("monthly_limit_cents").and_then(Value::as_i64);
                if let (Some(new), Some(cents)) = (old.and_then(|o| ids.get(o)), cents) {
                    let created = row.get("created_at").and_then(Value::as_str);
                    limits.push((new.clone(), cents, created.unwrap_or_default().to_string()));
                }
            }
        }
        shapes.push(shape);
    }
    Ok(Loading {
        checked,
        ids,
        shapes,
        limits,
        next: (0, 0),
        imported: Imported::default(),
    })
}

/// The tables a load writes, children after their parents, as the marks of
/// a load name them.
fn loaded_tables() -> impl DoubleEndedIterator<Item = &'static str> {
    TABLES.iter().map(|(t, _)| *t)
}

/// Begins the load in the write transaction `tx`: `user` must have nothing
/// of their own yet but the default categories (which the archive's
/// replace), the documents must fit the quota. Marks the user's data as
/// being loaded, with the newest row of every table it writes, so that a
/// load that is refused or interrupted is taken back ([`take_back`]) to
/// exactly what was there.
pub fn begin(
    tx: &Connection,
    user: &UserId,
    loading: &Loading,
    quota: u64,
    now: &str,
) -> Result<()> {
    if being_loaded(tx, user)? {
        return Err(refuse(Reason::HasRecords));
    }
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
        return Err(refuse(Reason::HasRecords));
    }
    let staged = &loading.checked.staged;
    let staged_bytes: i64 = staged.docs.values().map(|d| d.size).sum();
    documents::check_quota(tx, user, staged_bytes, quota)?;
    Cap::Documents.check_room(tx, user, staged.docs.len() as i64)?;
    let mut marks = Map::new();
    for table in loaded_tables() {
        let newest: i64 = tx.query_row(
            &format!("SELECT COALESCE(MAX(rowid), 0) FROM {table}"),
            [],
            |r| r.get(0),
        )?;
        marks.insert(table.to_string(), json!(newest));
    }
    tx.execute(
        "INSERT INTO export_loads (user_id, marks, started_at) VALUES (?1, ?2, ?3)",
        rusqlite::params![user, Value::Object(marks).to_string(), now],
    )?;
    tx.execute("DELETE FROM categories WHERE user_id = ?1", [user])?;
    Ok(())
}

/// Whether a load into the user's data is under way or was interrupted.
pub fn being_loaded(c: &Connection, user: &UserId) -> Result<bool> {
    Ok(c.query_row(
        "SELECT EXISTS (SELECT 1 FROM export_loads WHERE user_id = ?1)",
        [user],
        |r| r.get(0),
    )?)
}

/// The users whose load was interrupted (the service stopped): each is
/// taken back when the service starts.
pub fn interrupted(c: &Connection) -> Result<Vec<UserId>> {
    Ok(c.prepare("SELECT user_id FROM export_loads")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?)
}

/// Writes the next [`CHUNK_ROWS`] rows of the archive in the write
/// transaction `tx`; answers how many, `None` when all are written.
pub fn write_chunk(tx: &Connection, user: &UserId, loading: &mut Loading) -> Result<Option<usize>> {
    if !being_loaded(tx, user)? {
        // Taken back meanwhile.
        return Err(refuse(Reason::HasRecords));
    }
    let mut written = 0;
    // The rowids of this chunk's one-time expenses that skip the insert
    // triggers (those an import wrote): their index and sums follow below.
    let mut imported_expenses: Option<(i64, i64)> = None;
    while written < CHUNK_ROWS {
        let (t, r) = loading.next;
        let Some((table, rows)) = loading.checked.tables.get(t) else {
            break;
        };
        let Some(raw) = rows.get(r) else {
            loading.next = (t + 1, 0);
            continue;
        };
        let table = *table;
        let row: Map<String, Value> = serde_json::from_str(raw.get()).map_err(|_| damaged())?;
        if let Some(rowid) = insert_row(tx, user, loading, t, table, row)? {
            if table == "daily_expenses" {
                let (lo, hi) = imported_expenses.unwrap_or((rowid, rowid));
                imported_expenses = Some((lo.min(rowid), hi.max(rowid)));
            }
            loading.imported.records += 1;
            *loading
                .imported
                .tables
                .entry(table.to_string())
                .or_default() += 1;
        }
        loading.next = (t, r + 1);
        written += 1;
    }
    if let Some((lo, hi)) = imported_expenses {
        crate::store::daily_expenses::index_imported(tx, user, lo, hi)?;
        crate::store::users::count_change(tx, user)?;
    }
    Ok((written > 0).then_some(written))
}

/// Inserts one row of the archive's table number `t`; answers its rowid,
/// `None` for a document row whose file is not in the archive.
fn insert_row(
    tx: &Connection,
    user: &UserId,
    loading: &Loading,
    t: usize,
    table: &str,
    mut row: Map<String, Value>,
) -> Result<Option<i64>> {
    let (shape, ids) = (&loading.shapes[t], &loading.ids);
    if table == "documents" {
        let old = row.get("id").and_then(Value::as_str).unwrap_or_default();
        let Some(doc) = loading.checked.staged.docs.get(old) else {
            return Ok(None);
        };
        row.insert("file_name".into(), json!(doc.file_name));
        row.insert("content_type".into(), json!(doc.content_type));
        row.insert("size_bytes".into(), json!(doc.size));
        row.insert("sha256".into(), json!(doc.sha256));
    }
    let mut columns = Vec::with_capacity(row.len());
    let mut values: Vec<rusqlite::types::Value> = Vec::with_capacity(row.len());
    for (column, value) in &row {
        if !shape.known.contains(column) || column == "user_id" {
            continue;
        }
        let value = if column == "id" && shape.text_id {
            match value.as_str().and_then(|v| ids.get(v)) {
                Some(new) => rusqlite::types::Value::Text(new.clone()),
                None => return Err(damaged()),
            }
        } else if let Some(parent) = shape.references.get(column) {
            match value {
                Value::Null => rusqlite::types::Value::Null,
                other => match other.as_str().and_then(|v| ids.get(v)) {
                    Some(new) => rusqlite::types::Value::Text(new.clone()),
                    None => {
                        return Err(refuse_file(
                            "data.json",
                            Reason::DanglingRecord {
                                table: table.to_string(),
                                parent: parent.to_string(),
                            },
                        ))
                    }
                },
            }
        } else if LOOSE_REFERENCES.contains(&column.as_str()) {
            match value.as_str().and_then(|v| ids.get(v)) {
                Some(new) => rusqlite::types::Value::Text(new.clone()),
                None => rusqlite::types::Value::Null,
            }
        } else {
            match value {
                Value::Null => rusqlite::types::Value::Null,
                Value::Bool(b) => rusqlite::types::Value::Integer(i64::from(*b)),
                Value::Number(n) => match n.as_i64() {
                    Some(i) => rusqlite::types::Value::Integer(i),
                    None => rusqlite::types::Value::Real(n.as_f64().unwrap_or(0.0)),
                },
                Value::String(s) => rusqlite::types::Value::Text(s.clone()),
                other => rusqlite::types::Value::Text(other.to_string()),
            }
        };
        columns.push(format!("\"{column}\""));
        values.push(value);
    }
    let sql = format!(
        "INSERT INTO {table} (user_id, {}) VALUES (?1, {})",
        columns.join(", "),
        (2..columns.len() + 2)
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![user];
    params.extend(values.iter().map(|v| v as &dyn rusqlite::ToSql));
    tx.prepare_cached(&sql)?
        .execute(params.as_slice())
        .map_err(|e| match e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                refuse_file("data.json", Reason::UnloadableRecord(table.to_string()))
            }
            e => e.into(),
        })?;
    Ok(Some(tx.last_insert_rowid()))
}

/// Ends the load in the write transaction `tx`: what older archives lack
/// (budgets from monthly limits, earlier prices, balance histories), the
/// user's settings, and the mark. Once it is committed, [`Loading::keep`]
/// keeps the staged documents' files.
pub fn finish(tx: &Connection, user: &UserId, loading: &mut Loading, now: &str) -> Result<()> {
    let checked = &loading.checked;
    // An archive from before budgets: each monthly limit is the category's
    // budget from the month it was made, as migrations/V16__budgets.sql
    // turned them.
    for (category, cents, created) in loading.limits.iter().filter(|l| l.1 > 0) {
        tx.execute(
            "INSERT INTO budgets (user_id, category_id, month, amount_cents, rollover, created_at)
             VALUES (?1, ?2, substr(?3, 1, 7), ?4, 0, ?3)",
            rusqlite::params![user, category, created, cents],
        )?;
    }
    // An archive from before price histories: the one earlier price the
    // expenses kept, as migrations/V12__earlier_amounts.sql seeds it.
    if checked.version < 2 && !checked.tables.iter().any(|(t, _)| *t == "earlier_amounts") {
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
    // An archive from before balance histories: each account's balance
    // from its creation day, as migrations/V17__balance_history.sql seeds it.
    if !checked.tables.iter().any(|(t, _)| *t == "balance_history") {
        tx.execute(
            "INSERT INTO balance_history (user_id, account_id, date, balance_cents, recorded_at)
             SELECT user_id, id, substr(created_at, 1, 10), balance_cents, ?2
               FROM accounts WHERE user_id = ?1",
            rusqlite::params![user, now],
        )?;
    }
    // The account keeps the name and language its person chose; one with
    // no name yet (as `import-user` makes it) takes the archive's. The base
    // currency comes along: the archive's budgets are meant in it.
    let text = |k: &str| checked.user[k].as_str().map(str::to_string);
    let (name, base): (String, String) = tx.query_row(
        "SELECT name, base_currency FROM users WHERE id = ?1",
        [user],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let fresh = name.trim().is_empty();
    let base_currency = text("baseCurrency")
        .filter(|c| crate::domain::currency::Currency::parse("baseCurrency", c).is_ok());
    loading.imported.base_currency = base_currency.clone().filter(|c| *c != base);
    let settings = crate::store::users::SettingsChange {
        name: text("name").filter(|_| fresh),
        base_currency,
        locale: text("locale")
            .and_then(|l| crate::domain::locale::Locale::from_code(&l))
            .filter(|_| fresh),
    };
    crate::store::users::update_settings(tx, user, &settings, now)?;
    tx.execute("DELETE FROM export_loads WHERE user_id = ?1", [user])?;
    loading.imported.documents = loading.checked.staged.docs.len();
    Ok(())
}

impl Loading {
    /// Keeps the staged documents' files: the load is committed.
    pub fn keep(mut self) -> Imported {
        self.checked.staged.kept = true;
        std::mem::take(&mut self.imported)
    }
}

/// Takes back up to [`CHUNK_ROWS`] rows of a refused or interrupted load in
/// the write transaction `tx`, the newest tables' first; answers how many.
/// Once none is left, the user gets the default categories back (in their
/// language) and the mark goes: answers `None`.
pub fn take_back(tx: &Connection, user: &UserId, now: &str) -> Result<Option<usize>> {
    let marks: Option<String> = tx
        .query_row(
            "SELECT marks FROM export_loads WHERE user_id = ?1",
            [user],
            |r| r.get(0),
        )
        .optional()?;
    let Some(marks) = marks else {
        return Ok(None);
    };
    let marks: Map<String, Value> = serde_json::from_str(&marks).unwrap_or_default();
    let mut removed = 0;
    for table in loaded_tables().rev() {
        let newest = marks.get(table).and_then(Value::as_i64).unwrap_or(0);
        removed += tx.execute(
            &format!(
                "DELETE FROM {table} WHERE rowid IN (
                    SELECT rowid FROM {table} WHERE user_id = ?1 AND rowid > ?2 LIMIT ?3)"
            ),
            rusqlite::params![user, newest, (CHUNK_ROWS - removed) as i64],
        )?;
        if removed == CHUNK_ROWS {
            return Ok(Some(removed));
        }
    }
    // The month sums of imported entries that never had theirs.
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
    let none: bool = tx.query_row(
        "SELECT NOT EXISTS (SELECT 1 FROM categories WHERE user_id = ?1)",
        [user],
        |r| r.get(0),
    )?;
    if none {
        let locale: String =
            tx.query_row("SELECT locale FROM users WHERE id = ?1", [user], |r| {
                r.get(0)
            })?;
        let locale = crate::domain::locale::Locale::from_code(&locale).unwrap_or_default();
        crate::store::categories::insert_defaults(tx, user, locale, now)?;
    }
    tx.execute("DELETE FROM export_loads WHERE user_id = ?1", [user])?;
    Ok(if removed > 0 { Some(removed) } else { None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use zip::write::SimpleFileOptions;
    use zip::{CompressionMethod, ZipWriter};

    #[test]
    fn the_number_of_files_comes_from_the_end_record_also_of_zip64() {
        for n in [0usize, 3, 70_000] {
            let mut out = std::io::Cursor::new(Vec::new());
            let mut z = ZipWriter::new(&mut out);
            let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
            for i in 0..n {
                z.start_file(format!("{i}"), stored).unwrap();
            }
            z.finish().unwrap();
            assert_eq!(entries_said(&mut out), Some(n as u64), "{n}");
        }
        assert_eq!(
            entries_said(&mut std::io::Cursor::new(b"no zip".to_vec())),
            None
        );
    }
}
