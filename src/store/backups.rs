//! Backups of a data directory (the database and the documents), the
//! scheduled ones in `<data dir>/backups/` with their rotation, and the
//! restore of one into a stopped instance. See `docs/operations.md`.

use super::documents::{backup_folder, Files};
use super::DB_FILE;
use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags};
use std::fs::File;
use std::path::{Path, PathBuf};

/// The folder of the scheduled backups inside the data directory.
pub const DIR: &str = "backups";
/// Held by a serving instance; a restore needs it free.
const LOCK_FILE: &str = "cashkeeper.lock";
const PREFIX: &str = "cashkeeper-";

/// What a backup wrote.
#[derive(Debug)]
pub struct Written {
    pub file: PathBuf,
    pub documents: usize,
}

/// Writes a consistent copy of the database to `target` (also while the
/// service writes) and the documents to `<target>.documents/` beside it.
pub fn write(data_dir: &Path, target: &Path) -> Result<Written> {
    let source = data_dir.join(DB_FILE);
    if !source.exists() {
        return Err(anyhow::anyhow!(
            "no database at {} (CASHKEEPER_DATA_DIR)",
            source.display()
        ));
    }
    super::backup(&source, target)?;
    let documents = Files::new(data_dir).backup(&backup_folder(target))?;
    Ok(Written {
        file: target.to_path_buf(),
        documents,
    })
}

/// A scheduled backup: `backups/cashkeeper-20261123T033000Z.db` (and its
/// documents), then only the newest `keep` are kept.
pub fn scheduled(data_dir: &Path, keep: usize, now: DateTime<Utc>) -> Result<Written> {
    let dir = data_dir.join(DIR);
    std::fs::create_dir_all(&dir).context("creating the backups folder")?;
    let name = format!("{PREFIX}{}.db", now.format("%Y%m%dT%H%M%SZ"));
    let written = write(data_dir, &dir.join(name))?;
    for old in list(data_dir)?.into_iter().rev().skip(keep) {
        let _ = std::fs::remove_dir_all(backup_folder(&old));
        std::fs::remove_file(&old).context("removing an old backup")?;
    }
    Ok(written)
}

/// The scheduled backups, oldest first (their names sort by time).
pub fn list(data_dir: &Path) -> Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(data_dir.join(DIR)) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(".db"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Proof that no other process serves this data directory: an exclusive
/// lock on `cashkeeper.lock`, released when dropped (or when the process
/// dies, however it dies).
pub struct InstanceLock {
    _file: File,
}

impl InstanceLock {
    /// Takes the lock, or says that an instance holds it.
    pub fn take(data_dir: &Path) -> Result<InstanceLock> {
        let path = data_dir.join(LOCK_FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(InstanceLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => Err(anyhow::anyhow!(
                "a cashkeeper instance is serving {}; stop it first",
                data_dir.display()
            )),
            Err(std::fs::TryLockError::Error(e)) => {
                Err(anyhow::Error::from(e).context("locking the data directory"))
            }
        }
    }
}

/// The newest schema version this binary knows.
pub fn newest_version() -> i64 {
    super::embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| i64::from(m.version()))
        .max()
        .unwrap_or(0)
}

/// Checks that `file` is a sound cashkeeper database this binary can run:
/// SQLite's integrity check passes and its schema is not newer than this
/// binary's. Answers its schema version.
pub fn check(file: &Path) -> Result<i64> {
    let c = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("{} cannot be opened", file.display()))?;
    let integrity: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(|e| {
            anyhow::anyhow!(
                "{} is damaged or not an SQLite database ({e})",
                file.display()
            )
        })?;
    if integrity != "ok" {
        return Err(anyhow::anyhow!(format!(
            "{} is damaged: {integrity}",
            file.display()
        )));
    }
    let version: Option<i64> = c
        .query_row(
            "SELECT MAX(version) FROM refinery_schema_history",
            [],
            |r| r.get(0),
        )
        .map_err(|_| anyhow::anyhow!("{} is not a cashkeeper database", file.display()))?;
    let version = version.unwrap_or(0);
    let users: rusqlite::Result<i64> = c.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0));
    if users.is_err() {
        return Err(anyhow::anyhow!(format!(
            "{} is not a cashkeeper database",
            file.display()
        )));
    }
    if version > newest_version() {
        return Err(anyhow::anyhow!(format!(
            "{} has schema version {version}, newer than this binary's {}; use a newer cashkeeper",
            file.display(),
            newest_version()
        )));
    }
    Ok(version)
}

/// What a restore did.
#[derive(Debug)]
pub struct Restored {
    pub version: i64,
    /// Documents restored, or None when the backup had no documents folder
    /// (the data directory's documents are then left as they are).
    pub documents: Option<usize>,
}

/// Restores the backup `file` (and `<file>.documents/` when present) into
/// `data_dir`, whose instance must be stopped. The current database is
/// replaced only after the copy is complete and synced.
pub fn restore(data_dir: &Path, file: &Path) -> Result<Restored> {
    let _lock = InstanceLock::take(data_dir)?;
    let version = check(file)?;
    let target = data_dir.join(DB_FILE);
    let tmp = data_dir.join(format!(".{DB_FILE}.restore"));
    let _ = std::fs::remove_file(&tmp);
    {
        let src = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut dst = Connection::open(&tmp)?;
        rusqlite::backup::Backup::new(&src, &mut dst)?.run_to_completion(
            1024,
            std::time::Duration::ZERO,
            None,
        )?;
        dst.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))?;
    }
    File::open(&tmp)
        .and_then(|f| f.sync_all())
        .context("syncing the restored database")?;
    // The old database's write-ahead log belongs to the old file.
    for ext in ["db-wal", "db-shm"] {
        let _ = std::fs::remove_file(target.with_extension(ext));
    }
    std::fs::rename(&tmp, &target).context("replacing the database")?;

    let folder = backup_folder(file);
    let documents = if folder.is_dir() {
        let live = data_dir.join(super::documents::DIR);
        let incoming = data_dir.join(".documents.restore");
        let old = data_dir.join(".documents.old");
        let _ = std::fs::remove_dir_all(&incoming);
        let copied = Files::copy_tree(&folder, &incoming)?;
        let _ = std::fs::remove_dir_all(&old);
        if live.exists() {
            std::fs::rename(&live, &old).context("moving the old documents aside")?;
        }
        std::fs::rename(&incoming, &live).context("putting the documents in place")?;
        let _ = std::fs::remove_dir_all(&old);
        Some(copied)
    } else {
        None
    };
    Ok(Restored { version, documents })
}
