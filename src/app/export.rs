//! A user's data as one archive, and an archive loaded into a user who has
//! no records yet: "Export my data" and "Load an export" in Settings,
//! `cashkeeper export-user` and `import-user` (`docs/operations.md`).

use crate::app::chunks::in_chunks;
use crate::app::records::daily_expenses::{CategoryFilter, MonthFilter};
use crate::error::{Reason, Result};
use crate::store::documents::Files;
use crate::store::export::{self, Imported, Limits, Loading, Summary};
use crate::store::users::{User, UserId};
use crate::store::Db;
use std::collections::HashSet;
use std::fs::File;
use std::sync::{Arc, LazyLock, Mutex};

/// Archives read and checked at once; more wait their turn (the checks
/// hold the archive's rows in memory).
static CHECKS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// Exports built at once, whoever asks.
pub const AT_ONCE: usize = 2;

/// How long an export waits for its turn before it is answered busy.
pub const TURN_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

static TURNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(AT_ONCE);

/// The users whose export is being built or downloaded.
static EXPORTING: Mutex<Vec<UserId>> = Mutex::new(Vec::new());

/// A user's export under way, from its start until its archive is
/// downloaded (or the download broken off): the user may ask again once
/// it is dropped.
pub struct Exporting(UserId);

impl Drop for Exporting {
    fn drop(&mut self) {
        let mut running = EXPORTING.lock().unwrap_or_else(|p| p.into_inner());
        running.retain(|u| u != &self.0);
    }
}

/// Writes `user`'s archive, stamped `exported_at`, into `out` for a person
/// who downloads it: one export per user at a time (a second is refused,
/// [`Reason::ExportRunning`], until the first is dropped) and [`AT_ONCE`]
/// in all (more wait their turn up to [`TURN_WAIT`], then
/// [`crate::Error::Busy`]), so that exports cannot take the database's
/// connections from everyone else. `out` is made only once the turn came.
/// The [`Exporting`] answered counts as running until it is dropped.
pub async fn write_in_turn(
    db: &Db,
    files: &Files,
    user: &User,
    exported_at: String,
    out: impl FnOnce() -> Result<File>,
) -> Result<(Summary, Exporting)> {
    let running = {
        let mut running = EXPORTING.lock().unwrap_or_else(|p| p.into_inner());
        if running.contains(&user.id) {
            return Err(crate::Error::refused(Reason::ExportRunning));
        }
        running.push(user.id.clone());
        Exporting(user.id.clone())
    };
    let _turn = match tokio::time::timeout(TURN_WAIT, TURNS.acquire()).await {
        Ok(Ok(turn)) => turn,
        _ => {
            return Err(crate::Error::busy(anyhow::anyhow!(
                "exports: no turn within the wait"
            )))
        }
    };
    let summary = write(db, files, user, exported_at, out()?).await?;
    Ok((summary, running))
}

/// Writes `user`'s archive, stamped `exported_at`, into `out`.
pub async fn write(
    db: &Db,
    files: &Files,
    user: &User,
    exported_at: String,
    out: File,
) -> Result<Summary> {
    let (files, user) = (files.clone(), user.clone());
    db.run(move |c| {
        export::write(c, &files, &user, &exported_at, out).map_err(crate::Error::Internal)
    })
    .await
}

/// The user's one-time expenses of the month and category `shown` selects
/// (the page's filter), as a spreadsheet file in the user's language, the
/// export's `spreadsheet/` file of them.
pub async fn daily_expenses_sheet(db: &Db, user: &User, shown: MonthFilter) -> Result<Vec<u8>> {
    let user = user.clone();
    db.read(move |c| {
        let mut out = Vec::new();
        let category = match &shown.category {
            CategoryFilter::All => None,
            CategoryFilter::Uncategorised => Some(None),
            CategoryFilter::Only(id) => Some(Some(id.as_str())),
        };
        let month = (shown.first, shown.last);
        export::sheets::daily_expenses(c, &user, month, category, &mut out)
            .map_err(crate::Error::Internal)?;
        Ok(out)
    })
    .await
}

/// The hits of a search for `query` (checked by `app::search::query`),
/// the first [`SEARCH_SHEET_MAX`] of them, best first, as a spreadsheet
/// file in the user's language.
pub async fn search_sheet(
    db: &Db,
    user: &User,
    query: String,
    today: chrono::NaiveDate,
) -> Result<Vec<u8>> {
    let user = user.clone();
    db.read(move |c| {
        let hits = crate::store::search::search(c, &user.id, &query, (0, SEARCH_SHEET_MAX), today)?;
        let mut out = Vec::new();
        export::sheets::search_hits(&hits, user.locale, &mut out)
            .map_err(crate::Error::Internal)?;
        Ok(out)
    })
    .await
}

/// The most hits a search's spreadsheet file lists.
pub const SEARCH_SHEET_MAX: usize = 10_000;

/// The users whose load runs in this process: housekeeping takes back only
/// the others' (interrupted) loads.
static LOADING: LazyLock<Mutex<HashSet<UserId>>> = LazyLock::new(Default::default);

/// A user's place in [`LOADING`], given up when dropped.
struct Running(UserId);

impl Running {
    fn claim(user: &UserId) -> Running {
        lock_loading().insert(user.clone());
        Running(user.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        lock_loading().remove(&self.0);
    }
}

fn lock_loading() -> std::sync::MutexGuard<'static, HashSet<UserId>> {
    LOADING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Loads the archive `archive` into the user `user`, who has no records:
/// read and checked within `limits` without a database connection, then
/// written in chunks of [`export::CHUNK_ROWS`] rows per write transaction,
/// so that other users' writes wait briefly instead of for the whole
/// archive. A refused archive leaves nothing: one refused before writing
/// writes nothing, and what a load refused while writing wrote is taken
/// back in chunks (as housekeeping takes back a load the service stopped
/// in). Its refusal names the field `file`.
pub async fn load(
    db: &Db,
    files: &Files,
    user: &UserId,
    archive: File,
    limits: Limits,
    now: String,
) -> Result<Imported> {
    let _turn = CHECKS
        .acquire()
        .await
        .map_err(|e| crate::Error::Internal(e.into()))?;
    let (files, u) = (files.clone(), user.clone());
    let quota = limits.quota;
    let checked =
        tokio::task::spawn_blocking(move || export::check(&files, &u, archive, &limits)).await??;
    let loading = db.run(move |c| export::prepare(c, checked)).await?;
    let running = Running::claim(user);
    let (u, begun) = (user.clone(), now.clone());
    let loading = db
        .transaction(move |tx| {
            export::begin(tx, &u, &loading, quota, &begun)?;
            Ok(loading)
        })
        .await?;
    let written = write_rows(db, user, loading, now.clone()).await;
    crate::memory::release_free();
    match written {
        Ok(loading) => Ok(loading.keep()),
        Err(e) => {
            take_back(db, user, now).await?;
            drop(running);
            Err(e)
        }
    }
}

/// Writes a begun load's rows in chunks and finishes it.
async fn write_rows(db: &Db, user: &UserId, loading: Loading, now: String) -> Result<Loading> {
    let shared = Arc::new(Mutex::new(loading));
    let (u, chunks) = (user.clone(), shared.clone());
    in_chunks(db, (), move |tx| {
        let mut loading = chunks.lock().unwrap_or_else(|e| e.into_inner());
        export::write_chunk(tx, &u, &mut loading)
    })
    .await?;
    let loading = Arc::into_inner(shared)
        .ok_or_else(|| crate::Error::Internal(anyhow::anyhow!("a load's chunks still run")))?
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let u = user.clone();
    db.transaction(move |tx| {
        let mut loading = loading;
        export::finish(tx, &u, &mut loading, &now)?;
        Ok(loading)
    })
    .await
}

/// Takes back what a refused or interrupted load into `user`'s data wrote.
async fn take_back(db: &Db, user: &UserId, now: String) -> Result<usize> {
    let u = user.clone();
    in_chunks(db, (), move |tx| export::take_back(tx, &u, &now)).await
}

/// Takes back the loads the service stopped in (not those running in this
/// process); answers how many.
pub async fn take_back_interrupted(db: &Db, now: String) -> Result<usize> {
    let users = db.run(|c| export::interrupted(c)).await?;
    let mut taken = 0;
    for user in users {
        if lock_loading().contains(&user) {
            continue;
        }
        let removed = take_back(db, &user, now.clone()).await?;
        tracing::warn!(user = %user, removed, "an interrupted load of an export was taken back");
        taken += 1;
    }
    Ok(taken)
}
