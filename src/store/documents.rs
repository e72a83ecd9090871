//! Documents: the rows, and their bytes in the data directory under
//! `documents/<user id>/<document id>`, never under the user's file name.
//!
//! The row and the file are kept consistent: the file is written to a
//! temporary name, synced and renamed into place before its row is
//! inserted, and removed again if the insert fails; a deleted row's file
//! is removed after the delete commits. A crash between the two steps
//! leaves at most a file without a row, which [`Files::sweep`] removes at
//! start-up; a row whose file is missing answers "not found".

use super::users::UserId;
use super::{Cap, Db};
use crate::domain::documents::{clean_name, Kind, MAX_BYTES};
use crate::error::{Error, Reason, Result};
use anyhow::Context;
use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub id: String,
    pub file_name: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub sha256: String,
    pub expense_id: Option<String>,
    pub daily_expense_id: Option<String>,
    pub created_at: String,
}

impl Document {
    pub fn kind(&self) -> Option<Kind> {
        Kind::from_content_type(&self.content_type)
    }
}

/// A checked upload: a kept file name, bytes of an accepted kind, and the
/// record it belongs to (not yet checked to be the user's).
pub struct Upload {
    pub file_name: String,
    pub kind: Kind,
    pub bytes: Vec<u8>,
    pub expense_id: Option<String>,
    pub daily_expense_id: Option<String>,
}

impl Upload {
    /// Checks an upload whose bytes came in `field` (`dataBase64` or
    /// `file`): at most [`MAX_BYTES`], of a kind its first bytes show, with
    /// a usable name. The client's content type is never asked.
    pub fn check(
        field: &'static str,
        file_name: &str,
        bytes: Vec<u8>,
        expense_id: Option<String>,
        daily_expense_id: Option<String>,
    ) -> Result<Upload> {
        if bytes.is_empty() {
            return Err(Error::invalid(field, Reason::Empty));
        }
        if bytes.len() > MAX_BYTES {
            return Err(Error::invalid(field, Reason::DocumentTooLarge));
        }
        let kind =
            Kind::sniff(&bytes).ok_or_else(|| Error::invalid(field, Reason::NotADocument))?;
        let file_name =
            clean_name(file_name).ok_or_else(|| Error::invalid("fileName", Reason::Required))?;
        Ok(Upload {
            file_name,
            kind,
            bytes,
            expense_id,
            daily_expense_id,
        })
    }
}

const COLUMNS: &str =
    "id, file_name, content_type, size_bytes, sha256, expense_id, daily_expense_id, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<Document> {
    Ok(Document {
        id: r.get(0)?,
        file_name: r.get(1)?,
        content_type: r.get(2)?,
        size_bytes: r.get(3)?,
        sha256: r.get(4)?,
        expense_id: r.get(5)?,
        daily_expense_id: r.get(6)?,
        created_at: r.get(7)?,
    })
}

/// Which of the user's documents to list.
#[derive(Default)]
pub struct Filter<'a> {
    pub expense_id: Option<&'a str>,
    pub daily_expense_id: Option<&'a str>,
}

/// The user's documents, newest first; only those of one record when the
/// filter names it.
pub fn list(c: &Connection, user_id: &UserId, f: &Filter<'_>) -> Result<Vec<Document>> {
    let rows = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM documents
             WHERE user_id = ?1 AND (?2 IS NULL OR expense_id = ?2)
               AND (?3 IS NULL OR daily_expense_id = ?3)
             ORDER BY created_at DESC, id DESC"
        ))?
        .query_map(params![user_id, f.expense_id, f.daily_expense_id], from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Which attached documents the expense pages show in their paperclips.
pub enum Attached {
    /// Those of any recurring expense.
    Expenses,
    /// Those of the one-time expenses dated from the first day through the second.
    DailyExpenses(chrono::NaiveDate, chrono::NaiveDate),
}

/// The user's documents attached as `which` says, newest first.
pub fn attached(c: &Connection, user_id: &UserId, which: Attached) -> Result<Vec<Document>> {
    let mut s;
    let rows = match which {
        Attached::Expenses => {
            s = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM documents WHERE user_id = ?1 AND expense_id IS NOT NULL
                 ORDER BY created_at DESC, id DESC"
            ))?;
            s.query_map([user_id], from_row)?
        }
        Attached::DailyExpenses(from, to) => {
            s = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM documents
                 WHERE user_id = ?1 AND daily_expense_id IN
                   (SELECT id FROM daily_expenses WHERE user_id = ?1 AND date >= ?2 AND date <= ?3)
                 ORDER BY created_at DESC, id DESC"
            ))?;
            s.query_map(params![user_id, from, to], from_row)?
        }
    }
    .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// The user's documents, newest first, each with the name of the expense
/// or one-time expense it belongs to.
pub fn list_named(c: &Connection, user_id: &UserId) -> Result<Vec<(Document, Option<Named>)>> {
    let rows = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS},
                    COALESCE((SELECT name FROM expenses e WHERE e.id = documents.expense_id),
                             (SELECT name FROM daily_expenses x WHERE x.id = documents.daily_expense_id)),
                    (SELECT date FROM daily_expenses x WHERE x.id = documents.daily_expense_id)
             FROM documents WHERE user_id = ?1
             ORDER BY created_at DESC, id DESC"
        ))?
        .query_map([user_id], |r| {
            let name: Option<String> = r.get(8)?;
            let date: Option<String> = r.get(9)?;
            Ok((from_row(r)?, name.map(|name| Named { name, date })))
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// What a document belongs to: the record's name, and a one-time
/// expense's date (`YYYY-MM-DD`).
#[derive(Clone, Debug)]
pub struct Named {
    pub name: String,
    pub date: Option<String>,
}

pub fn find(c: &Connection, user_id: &UserId, id: &str) -> Result<Option<Document>> {
    Ok(c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM documents WHERE id = ?1 AND user_id = ?2"
    ))?
    .query_row(params![id, user_id], from_row)
    .optional()?)
}

/// Attaches the user's document to an expense or a one-time expense (the
/// caller checked they are the user's), or to none; `None` when the user
/// has no such document.
pub fn attach(
    c: &Connection,
    user_id: &UserId,
    id: &str,
    expense_id: Option<&str>,
    daily_expense_id: Option<&str>,
) -> Result<Option<Document>> {
    if expense_id.is_some() && daily_expense_id.is_some() {
        return Err(one_record());
    }
    c.execute(
        "UPDATE documents SET expense_id = ?1, daily_expense_id = ?2 WHERE id = ?3 AND user_id = ?4",
        params![expense_id, daily_expense_id, id, user_id],
    )?;
    find(c, user_id, id)
}

fn one_record() -> Error {
    Error::invalid("dailyExpenseId", Reason::DocumentOwners)
}

/// Bytes the user's documents take together.
pub fn used_bytes(c: &Connection, user_id: &UserId) -> Result<i64> {
    Ok(
        c.prepare_cached("SELECT COALESCE(SUM(size_bytes), 0) FROM documents WHERE user_id = ?1")?
            .query_row([user_id], |r| r.get(0))?,
    )
}

/// Refuses `more` bytes of documents that would take the user's documents
/// past the byte `quota`. Call it inside the write transaction that
/// inserts them.
pub fn check_quota(c: &Connection, user_id: &UserId, more: i64, quota: u64) -> Result<()> {
    let used = used_bytes(c, user_id)?.max(0) as u64;
    if used.saturating_add(more.max(0) as u64) > quota {
        return Err(quota_refusal(quota, used));
    }
    Ok(())
}

/// The refusal of documents that do not fit in the `quota` of which `used`
/// bytes are taken.
pub fn quota_refusal(quota: u64, used: u64) -> Error {
    Error::refused(Reason::QuotaFull {
        quota_mb: quota / (1024 * 1024),
        used_mb: used.div_ceil(1024 * 1024),
    })
}

/// Which records an upload may be attached to: called with the expense
/// and the one-time expense it names, in the transaction that stores it.
pub type Attachable = fn(&Connection, &UserId, Option<&str>, Option<&str>) -> Result<()>;

/// Stores an upload: the file first, then its row in an immediate
/// transaction that checks the attached record (`attachable`), the count
/// and the byte `quota`. A refused or failed insert removes the file again.
pub async fn save(
    db: &Db,
    files: &Files,
    user_id: &UserId,
    up: Upload,
    quota: u64,
    now: String,
    attachable: Attachable,
) -> Result<Document> {
    if up.expense_id.is_some() && up.daily_expense_id.is_some() {
        return Err(one_record());
    }
    let id = super::new_id();
    let size = up.bytes.len() as i64;
    let sha256 = hex::encode(Sha256::digest(&up.bytes));
    let path = files.path(user_id, &id);
    let bytes = up.bytes;
    let (write_path, written) = (path.clone(), files.clone());
    tokio::task::spawn_blocking(move || written.write(&write_path, &bytes))
        .await
        .context("document write task")??;
    let (user, doc_id) = (user_id.clone(), id.clone());
    let inserted = db
        .transaction(move |tx| {
            attachable(
                tx,
                &user,
                up.expense_id.as_deref(),
                up.daily_expense_id.as_deref(),
            )?;
            Cap::Documents.check(tx, &user)?;
            check_quota(tx, &user, size, quota)?;
            tx.execute(
                "INSERT INTO documents (id, user_id, file_name, content_type, size_bytes, sha256,
                                        expense_id, daily_expense_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    doc_id,
                    user,
                    up.file_name,
                    up.kind.content_type(),
                    size,
                    sha256,
                    up.expense_id,
                    up.daily_expense_id,
                    now
                ],
            )?;
            Ok(find(tx, &user, &doc_id)?.expect("just inserted"))
        })
        .await;
    if inserted.is_err() {
        files.remove(&path);
    }
    inserted
}

/// Deletes the user's document and then its file; `false` when there is none.
pub async fn delete(db: &Db, files: &Files, user_id: &UserId, id: &str) -> Result<bool> {
    let (user, doc_id) = (user_id.clone(), id.to_string());
    let deleted = db
        .transaction(move |tx| {
            Ok(tx.execute(
                "DELETE FROM documents WHERE id = ?1 AND user_id = ?2",
                params![doc_id, user],
            )? == 1)
        })
        .await?;
    if deleted {
        files.remove(&files.path(user_id, id));
    }
    Ok(deleted)
}

/// The user's document and its bytes; `None` when either is missing.
pub async fn read(
    db: &Db,
    files: &Files,
    user_id: &UserId,
    id: &str,
) -> Result<Option<(Document, Vec<u8>)>> {
    let (user, doc_id) = (user_id.clone(), id.to_string());
    let Some(doc) = db.run(move |c| find(c, &user, &doc_id)).await? else {
        return Ok(None);
    };
    let path = files.path(user_id, id);
    let bytes = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .context("document read task")?;
    match bytes {
        Ok(b) => Ok(Some((doc, b))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            tracing::warn!(document = %id, "the file of a document is missing");
            Ok(None)
        }
        Err(e) => Err(anyhow::Error::new(e).context("reading a document").into()),
    }
}

/// The folder `cashkeeper backup FILE` copies the documents to: beside the
/// database copy, named like it with `.documents` (`copy.db` →
/// `copy.documents`).
pub fn backup_folder(db_copy: &Path) -> PathBuf {
    db_copy.with_extension(DIR)
}

/// Where the documents' bytes live: `documents/` in the data directory.
#[derive(Clone)]
pub struct Files {
    dir: PathBuf,
}

/// The folder of the documents in a data directory.
pub const DIR: &str = "documents";

impl Files {
    pub fn new(data_dir: &Path) -> Files {
        Files {
            dir: data_dir.join(DIR),
        }
    }

    /// The file of a document. Both parts are ids this service made (a
    /// user's id and a UUID), never input.
    pub fn path(&self, user_id: &UserId, id: &str) -> PathBuf {
        self.dir.join(user_id.as_str()).join(id)
    }

    /// Writes `bytes` to a temporary name beside `path`, syncs it and
    /// renames it into place, so `path` is never half a file.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let dir = path.parent().expect("a document path has a folder");
        std::fs::create_dir_all(dir).context("creating the documents folder")?;
        let name = path.file_name().expect("a document path has a name");
        let tmp = dir.join(format!(".{}.partial", name.to_string_lossy()));
        let result = (|| -> std::io::Result<()> {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)?;
            // The rename itself is durable once the folder is synced.
            std::fs::File::open(dir)?.sync_all()
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        Ok(result.context("writing a document")?)
    }

    pub fn remove(&self, path: &Path) {
        if let Err(e) = std::fs::remove_file(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(error = %e, path = %path.display(), "cannot remove a document file");
            }
        }
    }

    /// Removes files that have no row (left by a crash between writing a
    /// file and inserting its row, or between a delete and the removal)
    /// and unfinished temporary files. Runs at start-up, before serving.
    pub fn sweep(&self, c: &Connection) -> Result<usize> {
        let Ok(users) = std::fs::read_dir(&self.dir) else {
            return Ok(0);
        };
        let mut known = c.prepare("SELECT 1 FROM documents WHERE id = ?1 AND user_id = ?2")?;
        let mut removed = 0;
        for user in users.flatten() {
            if !user.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                continue;
            }
            let user_id = user.file_name().to_string_lossy().into_owned();
            for file in std::fs::read_dir(user.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = file.file_name().to_string_lossy().into_owned();
                let keep =
                    !name.starts_with('.') && known.exists(params![name, user_id]).unwrap_or(true);
                if !keep && std::fs::remove_file(file.path()).is_ok() {
                    removed += 1;
                }
            }
        }
        if removed > 0 {
            tracing::info!(removed, "removed document files without a document");
        }
        Ok(removed)
    }

    /// Copies every document file to `target`, keeping the `<user
    /// id>/<document id>` layout: into a folder beside it first, which then
    /// replaces `target`, so `target` is never a half copy. Files are copied
    /// after the database copy: one added meanwhile is an orphan the
    /// start-up sweep removes after a restore.
    pub fn backup(&self, target: &Path) -> Result<usize> {
        let name = target
            .file_name()
            .context("backup: the documents folder needs a name")?;
        let tmp = target.with_file_name(format!(".{}.partial", name.to_string_lossy()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).context("backup: creating the documents copy")?;
        let copied = self.copy_to(&tmp)?;
        let _ = std::fs::remove_dir_all(target);
        std::fs::rename(&tmp, target).context("backup: cannot write the documents copy")?;
        Ok(copied)
    }

    fn copy_to(&self, target: &Path) -> Result<usize> {
        Files::copy_tree(&self.dir, target)
    }

    /// Removes every file of a user (whose rows are gone).
    pub fn remove_user(&self, user_id: &UserId) -> Result<()> {
        match std::fs::remove_dir_all(self.dir.join(user_id.as_str())) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(anyhow::Error::from(e)
                .context("removing the user's documents")
                .into()),
            _ => Ok(()),
        }
    }

    /// Copies a documents folder (one folder per user) from `from` into
    /// `target`, leaving out partial files; answers how many files.
    pub fn copy_tree(from: &Path, target: &Path) -> Result<usize> {
        let mut copied = 0;
        let Ok(users) = std::fs::read_dir(from) else {
            return Ok(0);
        };
        for user in users.flatten() {
            if !user.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                continue;
            }
            let into = target.join(user.file_name());
            std::fs::create_dir_all(&into).context("backup: creating the documents copy")?;
            for file in std::fs::read_dir(user.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if file.file_name().to_string_lossy().starts_with('.') {
                    continue;
                }
                std::fs::copy(file.path(), into.join(file.file_name()))
                    .context("backup: copying a document")?;
                copied += 1;
            }
        }
        Ok(copied)
    }
}
