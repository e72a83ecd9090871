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
    super::migrations::newest_version()
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

/// The steps of a restore, in order. Each may fail; a failure in any of
/// them puts the data directory back as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Copying the backup's database beside the live one (and syncing it).
    CopyDatabase,
    /// Copying the backup's documents beside the live ones (and syncing them).
    CopyDocuments,
    /// Moving the live database (with its `-wal` and `-shm`) aside.
    MoveDatabaseAside,
    /// Moving the live `documents/` aside.
    MoveDocumentsAside,
    /// Renaming the copied database into place.
    PlaceDatabase,
    /// Renaming the copied documents into place.
    PlaceDocuments,
    /// Syncing the data directory, so the renames are durable.
    Sync,
}

impl Step {
    pub const ALL: [Step; 7] = [
        Step::CopyDatabase,
        Step::CopyDocuments,
        Step::MoveDatabaseAside,
        Step::MoveDocumentsAside,
        Step::PlaceDatabase,
        Step::PlaceDocuments,
        Step::Sync,
    ];
}

/// Where a restore keeps the copies of the backup until they replace the
/// live files.
const INCOMING: &str = ".restore.new";
/// Where a restore keeps the live files it replaces until it has finished.
const REPLACED: &str = ".restore.old";

/// Restores the backup `file` (and `<file>.documents/` when present) into
/// `data_dir`, whose instance must be stopped. All or nothing: the backup's
/// database and documents are copied and synced beside the live ones
/// first, then the live files are moved aside and the copies renamed into
/// place; if any step fails, every rename is undone and the data directory
/// is as it was.
pub fn restore(data_dir: &Path, file: &Path) -> Result<Restored> {
    restore_failing_at(data_dir, file, None)
}

/// [`restore`], failing at the start of step `fail_at` as if its file
/// system operation had failed: for the tests of the undoing.
#[doc(hidden)]
pub fn restore_failing_at(data_dir: &Path, file: &Path, fail_at: Option<Step>) -> Result<Restored> {
    let _lock = InstanceLock::take(data_dir)?;
    // A command that opens the database meanwhile waits for the restore.
    let _opening = super::OpenLock::take(data_dir)?;
    let version = check(file)?;
    let replaced = data_dir.join(REPLACED);
    if replaced.exists() {
        return Err(anyhow::anyhow!(
            "{} holds files an interrupted restore moved aside: move them back into {} \
             (or remove the folder when the data directory is complete) and restore again",
            replaced.display(),
            data_dir.display()
        ));
    }
    let folder = backup_folder(file);
    let with_documents = folder.is_dir();
    let mut run = Run {
        data_dir,
        fail_at,
        moved: Vec::new(),
    };
    match run.steps(file, &folder, with_documents) {
        Ok(documents) => {
            // Done: what was replaced goes. A file left here is only
            // untidy, the restore itself is complete.
            for dir in [REPLACED, INCOMING] {
                let dir = data_dir.join(dir);
                if let Err(e) = remove_dir_if_present(&dir) {
                    tracing::warn!(error = %e, folder = %dir.display(), "cannot remove");
                }
            }
            Ok(Restored {
                version,
                documents: with_documents.then_some(documents),
            })
        }
        Err(e) => match run.undo() {
            Ok(()) => Err(e.context("restore failed; the data directory is as it was")),
            Err(undo) => Err(e.context(format!(
                "restore failed, and putting the data directory back failed too ({undo:#}); \
                 the previous files are in {}",
                replaced.display()
            ))),
        },
    }
}

/// One restore: the renames done so far, to undo them.
struct Run<'a> {
    data_dir: &'a Path,
    fail_at: Option<Step>,
    moved: Vec<(PathBuf, PathBuf)>,
}

impl Run<'_> {
    fn step(&self, step: Step) -> Result<()> {
        if self.fail_at == Some(step) {
            return Err(anyhow::anyhow!("{step:?}: failure injected"));
        }
        Ok(())
    }

    fn rename(&mut self, from: PathBuf, to: PathBuf) -> Result<()> {
        std::fs::rename(&from, &to)
            .with_context(|| format!("moving {} to {}", from.display(), to.display()))?;
        self.moved.push((from, to));
        Ok(())
    }

    /// Answers how many documents were copied.
    fn steps(&mut self, file: &Path, folder: &Path, with_documents: bool) -> Result<usize> {
        let data_dir = self.data_dir;
        let incoming = data_dir.join(INCOMING);
        let replaced = data_dir.join(REPLACED);
        let live_db = data_dir.join(DB_FILE);
        let live_documents = data_dir.join(super::documents::DIR);
        remove_dir_if_present(&incoming)?;
        std::fs::create_dir(&incoming).context("creating the restore's folder")?;

        self.step(Step::CopyDatabase)?;
        let new_db = incoming.join(DB_FILE);
        copy_database(file, &new_db).context("copying the database")?;

        let mut copied = 0;
        let new_documents = incoming.join(super::documents::DIR);
        if with_documents {
            self.step(Step::CopyDocuments)?;
            // The folder exists even when the backup holds no document.
            std::fs::create_dir(&new_documents).context("copying the documents")?;
            copied = Files::copy_tree(folder, &new_documents)?;
            sync_tree(&new_documents).context("syncing the copied documents")?;
        }

        self.step(Step::MoveDatabaseAside)?;
        std::fs::create_dir(&replaced).context("creating the folder of the replaced files")?;
        for ext in ["db", "db-wal", "db-shm"] {
            let from = live_db.with_extension(ext);
            if from.exists() {
                let to = replaced.join(from.file_name().expect("a file name"));
                self.rename(from, to)?;
            }
        }
        if with_documents {
            self.step(Step::MoveDocumentsAside)?;
            if live_documents.exists() {
                self.rename(live_documents.clone(), replaced.join(super::documents::DIR))?;
            }
        }

        self.step(Step::PlaceDatabase)?;
        self.rename(new_db, live_db)?;
        if with_documents {
            self.step(Step::PlaceDocuments)?;
            self.rename(new_documents, live_documents)?;
        }

        self.step(Step::Sync)?;
        sync_dir(data_dir).context("syncing the data directory")?;
        Ok(copied)
    }

    /// Moves back what was moved, newest first, and removes the restore's
    /// folders (the one of the replaced files only when it is empty again).
    fn undo(&mut self) -> Result<()> {
        while let Some((from, to)) = self.moved.pop() {
            std::fs::rename(&to, &from)
                .with_context(|| format!("moving {} back to {}", to.display(), from.display()))?;
        }
        remove_dir_if_present(&self.data_dir.join(INCOMING))?;
        match std::fs::remove_dir(self.data_dir.join(REPLACED)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(anyhow::Error::from(e).context("removing the restore's folder"));
            }
            _ => {}
        }
        sync_dir(self.data_dir).context("syncing the data directory")?;
        Ok(())
    }
}

/// A self-contained copy of the database `file` at `target`, synced.
fn copy_database(file: &Path, target: &Path) -> Result<()> {
    {
        let src = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        let mut dst = Connection::open(target)?;
        rusqlite::backup::Backup::new(&src, &mut dst)?.run_to_completion(
            1024,
            std::time::Duration::ZERO,
            None,
        )?;
        dst.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))?;
    }
    File::open(target)?.sync_all()?;
    Ok(())
}

fn remove_dir_if_present(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(anyhow::Error::from(e).context(format!("removing {}", dir.display())))
        }
        _ => Ok(()),
    }
}

/// Makes the entries of a folder (its renames) durable.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Syncs every file and folder under `dir`.
fn sync_tree(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            sync_tree(&entry.path())?;
        } else {
            File::open(entry.path())?.sync_all()?;
        }
    }
    sync_dir(dir)
}
