//! SQLite: the pool, the migrations, and one module per table group.
//!
//! Every query on user-owned data takes the user id and puts it in its WHERE
//! clause; another user's id therefore behaves like an unknown one. Blocking
//! database work runs through [`Db::run`], on tokio's blocking threads, never
//! on the async executor's.

pub mod accounts;
pub mod api_tokens;
pub mod backups;
pub mod balance_history;
pub mod bank;
pub mod bank_asks;
mod baseline;
pub mod budgets;
pub mod categories;
pub mod conversations;
pub mod daily_expenses;
pub mod documents;
pub mod exchange_rates;
pub mod expenses;
pub mod export;
pub mod imports;
pub mod incomes;
pub mod insights;
pub mod merchants;
pub mod migrations;
pub mod oidc;
pub mod password_resets;
pub mod prices;
pub mod proposals;
pub mod push_subscriptions;
pub mod recurring;
pub mod repeats;
pub mod reserve_pots;
pub mod search;
pub mod sessions;
pub mod table;
pub mod transfers;
pub mod two_factor;
pub mod users;

use crate::error::{Counted, Error, Reason, Result};
use anyhow::Context;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use table::Table;
use users::UserId;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;

/// The database file inside the data directory.
pub const DB_FILE: &str = "cashkeeper.db";

/// How long a statement waits for another connection's write lock before
/// it fails: far above the longest single write transaction (an import's
/// staging of 200,000 rows or one chunk of its confirm, see
/// `docs/performance.md`), so that no write fails because another ran.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Settings every connection gets: a busy handler first
/// ([`wait_for_lock`], up to [`BUSY_TIMEOUT`]), so concurrent writers wait
/// instead of failing (also while the settings below are made), foreign keys enforced, and a page cache of 1 MiB (SQLite's
/// default is 2 MB; the pool keeps up to 8 connections, and what misses it
/// is still in the operating system's file cache).
fn configure(c: &mut Connection) -> rusqlite::Result<()> {
    c.busy_handler(Some(wait_for_lock))?;
    c.execute_batch(
        "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -1024;",
    )?;
    Ok(())
}

/// How often a connection of this process found the write lock taken and
/// waited ([`wait_for_lock`]): a long writer (an import's confirm) leaves
/// the lock free between its chunks for as long as a chunk held it only
/// when someone waited meanwhile.
static LOCK_WAITS: AtomicU64 = AtomicU64::new(0);

/// The number of lock waits so far; compare two readings.
pub fn lock_waits() -> u64 {
    LOCK_WAITS.load(Ordering::Relaxed)
}

/// The busy handler of every connection: SQLite's own (its pauses of 1 to
/// 100 ms, up to [`BUSY_TIMEOUT`] in all), counting each wait in
/// [`LOCK_WAITS`]. `tries` is how often it was called for this wait.
fn wait_for_lock(tries: i32) -> bool {
    LOCK_WAITS.fetch_add(1, Ordering::Relaxed);
    pause(lock_delay(tries))
}

fn pause(delay: Option<Duration>) -> bool {
    match delay {
        Some(delay) => {
            std::thread::sleep(delay);
            true
        }
        None => false,
    }
}

/// The pause before try `tries + 1` of a wait for the lock, as SQLite's
/// default busy handler pauses; `None` once [`BUSY_TIMEOUT`] is spent.
fn lock_delay(tries: i32) -> Option<Duration> {
    lock_delay_within(tries, BUSY_TIMEOUT)
}

/// How long a write transaction may hold the write lock
/// ([`Db::transaction`]): below [`BUSY_TIMEOUT`], so a writer that waits
/// for one transaction gets its turn. The largest single transaction, a
/// file of 200,000 rows staged, takes about 3 s in a release build
/// (`docs/performance.md`).
pub const WRITE_BUDGET: Duration = Duration::from_secs(25);

/// How many SQLite steps run between two looks at a write transaction's
/// deadline: a look is a clock read, cheap at this distance.
const WRITE_BUDGET_CHECK: std::ffi::c_int = 10_000;

/// Connections kept for looking up sessions and API tokens ([`Db::lookup`]),
/// beside the pool's 8: however long the others are held (exports, long
/// lists, writers waiting for the lock), a signed-in visitor is still
/// recognised.
const LOOKUP_CONNECTIONS: u32 = 2;

/// How long a lookup waits for one of its connections before the request
/// is answered 503 busy.
const LOOKUP_WAIT: Duration = Duration::from_secs(5);

/// How long a lookup's one write (pushing a session's expiry forward, at
/// most hourly) waits for the write lock before it is left for a later
/// request: a lookup never queues behind a long writer.
const LOOKUP_LOCK_WAIT: Duration = Duration::from_millis(100);

/// The busy handler of the lookup connections: as [`wait_for_lock`], up to
/// [`LOOKUP_LOCK_WAIT`].
fn wait_briefly(tries: i32) -> bool {
    pause(lock_delay_within(tries, LOOKUP_LOCK_WAIT))
}

/// Settings of the lookup connections: as [`configure`], with the short
/// busy handler [`wait_briefly`].
fn configure_lookup(c: &mut Connection) -> rusqlite::Result<()> {
    configure(c)?;
    c.busy_handler(Some(wait_briefly))
}

/// How long a read ([`Db::read`]) may run before it is interrupted and
/// the request is answered 503 busy: far above any page's or list's time
/// in `docs/performance.md`, so only a read made unbounded by its input
/// (a deep page, a long range) meets it.
pub const READ_BUDGET: Duration = Duration::from_secs(10);

/// How many SQLite steps a read ([`Db::read`]) runs between two looks at
/// its deadline.
const READ_BUDGET_CHECK: std::ffi::c_int = 1_000;

/// As [`lock_delay`], giving up once `limit` is spent.
fn lock_delay_within(tries: i32, limit: Duration) -> Option<Duration> {
    const DELAYS: [u64; 12] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];
    const TOTALS: [u64; 12] = [0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228];
    let n = usize::try_from(tries).unwrap_or(0);
    let (delay, prior) = match DELAYS.get(n) {
        Some(&d) => (d, TOTALS[n]),
        None => (100, TOTALS[11] + 100 * (n as u64 - 11)),
    };
    let limit = limit.as_millis() as u64;
    let delay = delay.min(limit.saturating_sub(prior));
    (delay > 0).then(|| Duration::from_millis(delay))
}

/// The database file's own setting: WAL, so readers never block. It is
/// stored in the file, so it is made once, by [`prepare`], and not by every
/// connection: switching a fresh file to WAL takes an exclusive lock that
/// SQLite does not wait for, so connections switching at once fail with
/// "database is locked".
fn use_wal(c: &Connection) -> rusqlite::Result<()> {
    c.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
}

/// Held while a process prepares the database (WAL, migrations), so that
/// processes and threads opening the same data directory at once do it
/// one after the other.
const OPEN_LOCK: &str = "cashkeeper.open.lock";

/// An exclusive lock on [`OPEN_LOCK`], waited for; released when dropped.
pub struct OpenLock {
    _file: std::fs::File,
}

impl OpenLock {
    pub fn take(data_dir: &Path) -> Result<OpenLock> {
        let path = data_dir.join(OPEN_LOCK);
        let file = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        file.lock()
            .with_context(|| format!("locking {}", path.display()))?;
        Ok(OpenLock { _file: file })
    }
}

/// Creates the database in `data_dir` if needed, switches it to WAL and
/// applies the migrations it does not have yet, holding [`OpenLock`];
/// answers how many were applied.
pub fn prepare(data_dir: &Path) -> Result<usize> {
    let _lock = OpenLock::take(data_dir)?;
    let mut c = open_connection(&data_dir.join(DB_FILE))?;
    let applied = migrate(&mut c)?;
    if applied > 0 {
        tracing::info!(applied, "database migrated");
    }
    Ok(applied)
}

/// `q` for a LIKE pattern with `ESCAPE '\\'`: `%` and `_` match themselves.
pub fn like_escaped(q: &str) -> String {
    q.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// Begins a transaction that will write. It takes the write lock at once
/// (`BEGIN IMMEDIATE`): a deferred transaction that reads first and writes
/// later cannot wait for a concurrent writer (SQLite answers `SQLITE_BUSY`
/// at once, since its snapshot is already stale), while an immediate one
/// waits for the lock within the busy timeout like any single statement.
/// Every transaction that writes begins here.
pub fn write_transaction(c: &mut Connection) -> rusqlite::Result<rusqlite::Transaction<'_>> {
    c.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
}

/// Opens a single connection with the service's settings (CLI tools).
pub fn open_connection(path: &Path) -> Result<Connection> {
    let mut c = Connection::open(path)?;
    configure(&mut c)?;
    use_wal(&c)?;
    Ok(c)
}

pub use migrations::migrate;

/// See [`Db::change_stamp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChangeStamp {
    wal_len: u64,
    wal_modified: std::time::SystemTime,
    main_modified: std::time::SystemTime,
}

#[derive(Clone)]
pub struct Db {
    pool: Pool,
    /// [`LOOKUP_CONNECTIONS`] more, for [`Db::lookup`] only.
    lookups: Pool,
    path: PathBuf,
    /// [`READ_BUDGET`], shorter in tests.
    read_budget: Duration,
    /// [`WRITE_BUDGET`], shorter in tests.
    write_budget: Duration,
    /// SQLite steps the reads have run ([`Db::read_steps`]).
    read_steps: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl Db {
    /// Opens (creating if needed) the database in `data_dir` and migrates it
    /// ([`prepare`]), then the pool: its connections open a file that is
    /// already in WAL mode and up to date.
    pub fn open(data_dir: &Path) -> Result<Db> {
        prepare(data_dir)?;
        let path = data_dir.join(DB_FILE);
        let manager = SqliteConnectionManager::file(&path).with_init(configure);
        let pool = r2d2::Pool::builder()
            .max_size(8)
            // A local SQLite connection does not go stale like a network
            // one; checking it on every checkout only costs time.
            .test_on_check_out(false)
            .connection_timeout(Duration::from_secs(10))
            .build(manager)?;
        let lookups = r2d2::Pool::builder()
            .max_size(LOOKUP_CONNECTIONS)
            .test_on_check_out(false)
            .connection_timeout(LOOKUP_WAIT)
            .build(SqliteConnectionManager::file(&path).with_init(configure_lookup))?;
        Ok(Db {
            pool,
            lookups,
            path,
            read_budget: READ_BUDGET,
            write_budget: WRITE_BUDGET,
            read_steps: Default::default(),
        })
    }

    /// The same database with reads interrupted after `budget` instead of
    /// [`READ_BUDGET`] (tests).
    pub fn with_read_budget(mut self, budget: Duration) -> Db {
        self.read_budget = budget;
        self
    }

    /// The same database with write transactions interrupted after `budget`
    /// instead of [`WRITE_BUDGET`] (tests).
    pub fn with_write_budget(mut self, budget: Duration) -> Db {
        self.write_budget = budget;
        self
    }

    /// About how many SQLite steps the reads ([`Db::read`]) have run so
    /// far, counted in thousands (a statement's last few hundred are not
    /// counted): what a page or a list costs the database, the same at any
    /// load, for tests and measurements.
    pub fn read_steps(&self) -> u64 {
        self.read_steps.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fingerprint that changes whenever any process commits to the
    /// database: in WAL mode every commit writes the `-wal` file, so its size
    /// and modification time (nanoseconds) move; the main file's time covers
    /// checkpoints. `None` when it cannot be read: then nothing may be
    /// assumed unchanged. A `stat` of two local files, cheap enough for the
    /// request path, unlike a round trip to the blocking pool.
    pub fn change_stamp(&self) -> Option<ChangeStamp> {
        let wal = std::fs::metadata(self.path.with_extension("db-wal")).ok()?;
        let main = std::fs::metadata(&self.path).ok()?;
        Some(ChangeStamp {
            wal_len: wal.len(),
            wal_modified: wal.modified().ok()?,
            main_modified: main.modified().ok()?,
        })
    }

    /// Runs blocking database work on tokio's blocking pool.
    pub async fn run<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        on(&self.pool, f).await
    }

    /// Runs a session's or an API token's lookup on the connections kept
    /// for it ([`LOOKUP_CONNECTIONS`]), never waiting for the pool's. Its
    /// writes wait for the lock at most [`LOOKUP_LOCK_WAIT`].
    pub async fn lookup<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        on(&self.lookups, f).await
    }

    /// Runs reading work like [`Db::run`], interrupted once it has run for
    /// the read budget ([`READ_BUDGET`]): it then fails with
    /// [`Error::Busy`], and its connection is free again. Never for work
    /// that writes.
    pub async fn read<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let pool = self.pool.clone();
        let (budget, steps) = (self.read_budget, self.read_steps.clone());
        // The connection's interrupt handle while `f` runs; `None` before
        // and after, so a late interrupt never reaches the connection's
        // next user.
        let running: Running = std::sync::Arc::new(std::sync::Mutex::new(None));
        let handle = running.clone();
        let work = job(move || -> Result<T> {
            let mut conn = pool.get()?;
            *handle.lock().unwrap_or_else(|p| p.into_inner()) = Some(conn.get_interrupt_handle());
            // The statements look at the deadline too: a read past it
            // stops within its next steps, whenever the timer below wakes
            // (and under a budget of zero, every read that runs a few
            // thousand steps is busy).
            let deadline = std::time::Instant::now() + budget;
            conn.progress_handler(
                READ_BUDGET_CHECK,
                Some(move || {
                    steps.fetch_add(
                        READ_BUDGET_CHECK as u64,
                        std::sync::atomic::Ordering::Relaxed,
                    );
                    std::time::Instant::now() > deadline
                }),
            )?;
            // The handler goes before the connection returns to the pool,
            // also when `f` panics.
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&mut conn)));
            handle.lock().unwrap_or_else(|p| p.into_inner()).take();
            conn.progress_handler(0, None::<fn() -> bool>)?;
            out.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        answer(interrupted_after(work, running, self.read_budget).await?)
    }

    /// Runs `f` with a connection on the current thread, for code that is on
    /// a blocking thread already (a reply made in pieces); never call it from
    /// async code.
    pub fn blocking<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.pool.get()?;
        f(&mut conn)
    }

    /// Runs `f` inside one write transaction: all of it lands, or none of it.
    /// See [`write_transaction`].
    ///
    /// Once it holds the write lock it may run for [`WRITE_BUDGET`]: a
    /// statement still running then is interrupted, everything is rolled
    /// back, and it fails with [`Error::Busy`](crate::Error::Busy), so that
    /// no writer waiting for the lock ever waits past [`BUSY_TIMEOUT`]
    /// because of one transaction. Long writes (an import's confirm, a load
    /// of an export) are written in chunks far below it.
    pub async fn transaction<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let budget = self.write_budget;
        self.run(move |c| within_budget(c, budget, f)).await
    }

    /// [`Db::transaction`] for one chunk of a long write (an import's
    /// confirm or undo, a load of an export), with SQLite's statement
    /// journal in memory (`PRAGMA temp_store = MEMORY` while it runs, the
    /// default again after). In a transaction of several statements, each
    /// one that may fail halfway (an insert into a table with triggers and
    /// foreign keys: every row of a confirm) first copies each page it
    /// changes, 4 KiB, to the statement journal, which goes to a temporary
    /// file once it outgrows 64 KiB; written to a file, a confirm of
    /// 100,000 rows spent more than half of its CPU time in the kernel's
    /// write calls (`docs/performance.md`). A chunk's statements touch a
    /// bounded number of pages, so the journal stays small; other work
    /// keeps temporary storage in files, so a large sort spills to disk
    /// instead of growing the process. Its page cache is 8 MiB while it
    /// runs instead of 1 MiB ([`configure`]): a chunk of a confirm
    /// changes about a thousand pages (the entries, their five indexes and
    /// their search index), which in 1 MiB went to the write-ahead log
    /// before the commit and were read back from it.
    pub async fn chunk_transaction<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let budget = self.write_budget;
        self.run(move |c| {
            c.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192")?;
            let out = within_budget(c, budget, f);
            // The connection goes back to the pool as it came.
            let back = c.execute_batch("PRAGMA temp_store = DEFAULT; PRAGMA cache_size = -1024");
            let out = out?;
            back?;
            Ok(out)
        })
        .await
    }

    /// Folds the write-ahead log into the main file, so the file alone is a
    /// complete database after shutdown.
    pub fn checkpoint(&self) -> Result<()> {
        let c = self.pool.get()?;
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }
}

/// Runs `f` in one write transaction that may hold the lock for `budget`
/// (see [`Db::transaction`]).
fn within_budget<T>(
    c: &mut Connection,
    budget: Duration,
    f: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T>,
) -> Result<T> {
    let tx = write_transaction(c)?;
    let deadline = std::time::Instant::now() + budget;
    tx.progress_handler(
        WRITE_BUDGET_CHECK,
        Some(move || std::time::Instant::now() > deadline),
    )?;
    let out = f(&tx);
    // The commit itself is never interrupted.
    tx.progress_handler(0, None::<fn() -> bool>)?;
    let out = out?;
    tx.commit()?;
    Ok(out)
}

/// Runs blocking database work with a connection of `pool` on tokio's
/// blocking pool.
async fn on<T, F>(pool: &Pool, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
{
    let pool = pool.clone();
    answer(
        tokio::task::spawn_blocking(job(move || -> Result<T> {
            let mut conn = pool.get()?;
            f(&mut conn)
        }))
        .await?,
    )
}

/// Work for tokio's blocking pool, of one type whatever it does and
/// answers: tokio's task machinery (about 2.5 KiB of code a type) is
/// compiled once for the database's work instead of once for each of its
/// callers' closures, some 170 of them (`docs/performance.md`, "The
/// binary").
type Job = Box<dyn FnOnce() -> Answer + Send>;

/// What a [`Job`] answers: its work's `Result<T>`.
type Answer = Box<dyn std::any::Any + Send>;

/// The connection's interrupt handle while a read runs ([`Db::read`]).
type Running = std::sync::Arc<std::sync::Mutex<Option<rusqlite::InterruptHandle>>>;

/// `work` as a [`Job`].
fn job<T: Send + 'static>(work: impl FnOnce() -> Result<T> + Send + 'static) -> Job {
    Box::new(move || Box::new(work()) as Answer)
}

/// The `Result<T>` a [`job`] answered.
fn answer<T: 'static>(answer: Answer) -> Result<T> {
    match answer.downcast::<Result<T>>() {
        Ok(out) => *out,
        Err(_) => Err(Error::Internal(anyhow::anyhow!(
            "store: a job answered another type"
        ))),
    }
}

/// Runs a read's `work` on the blocking pool and interrupts its
/// connection (`running`) once it has run for `budget`, then every
/// 100 ms, for work that runs one short statement after another.
async fn interrupted_after(work: Job, running: Running, budget: Duration) -> Result<Answer> {
    let work = tokio::task::spawn_blocking(work);
    tokio::pin!(work);
    let mut wait = budget;
    loop {
        tokio::select! {
            out = &mut work => return Ok(out?),
            () = tokio::time::sleep(wait) => {}
        }
        if let Some(h) = running.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            h.interrupt();
        }
        wait = Duration::from_millis(100);
    }
}

/// Copies the live database to `target` with SQLite's online backup, which
/// is consistent even while the service writes. The copy is written beside
/// the target and renamed, so `target` is never half a database.
pub fn backup(source: &Path, target: &Path) -> Result<()> {
    let src = Connection::open_with_flags(
        source,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    src.busy_timeout(BUSY_TIMEOUT)?;
    let file_name = target
        .file_name()
        .ok_or_else(|| Error::invalid("FILE", Reason::NameAFile))?;
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).context("backup: cannot create the target's folder")?;
    }
    let tmp = target.with_file_name(format!(".{}.partial", file_name.to_string_lossy()));
    let _ = std::fs::remove_file(&tmp);
    {
        let mut dst = Connection::open(&tmp)?;
        let backup = rusqlite::backup::Backup::new(&src, &mut dst)?;
        backup.run_to_completion(256, Duration::from_millis(5), None)?;
    }
    {
        // A backup of a WAL database is itself in WAL mode; make the copy a
        // self-contained single file.
        let dst = Connection::open(&tmp)?;
        dst.query_row("PRAGMA journal_mode = DELETE", [], |_| Ok(()))?;
    }
    std::fs::rename(&tmp, target).context("backup: cannot write target")?;
    Ok(())
}

/// Whether `user` owns the record `id` of the table `T`. The table's name
/// is its [`Table::NAME`], a constant of the code, never input.
pub fn owns<T: Table>(c: &Connection, user_id: &UserId, id: &str) -> Result<bool> {
    let sql = format!(
        "SELECT EXISTS(SELECT 1 FROM {} WHERE id = ?1 AND user_id = ?2)",
        T::NAME
    );
    Ok(c.query_row(&sql, params![id, user_id], |r| r.get::<_, bool>(0))?)
}

/// Fails naming `field` (`accountId`) unless `user` owns the record `id`
/// of the table `T` that an input refers to: another user's record is
/// reported exactly like one that does not exist.
pub fn require_owned_field<T: Table>(
    c: &Connection,
    user_id: &UserId,
    field: &'static str,
    id: &str,
) -> Result<()> {
    if owns::<T>(c, user_id, id)? {
        Ok(())
    } else {
        Err(Error::unknown(field))
    }
}

/// Per-user limits of what a user may keep, far above any household's
/// needs, so that no account can grow a reply or a computation without
/// bound (every recurring item is expanded into due dates on every
/// dashboard and every `/payments` request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cap {
    Accounts,
    Categories,
    /// Recurring expenses, incomes and transfers together.
    Recurring,
    DailyExpenses,
    ApiTokens,
    /// Documents (besides their byte quota).
    Documents,
}

impl Cap {
    pub const fn max(self) -> i64 {
        match self {
            Cap::Accounts => 200,
            Cap::Categories => 500,
            Cap::Recurring => 2_000,
            Cap::DailyExpenses => 1_000_000,
            Cap::ApiTokens => 100,
            Cap::Documents => 100_000,
        }
    }

    /// What the limit counts, for the refusal.
    fn counted(self) -> Counted {
        match self {
            Cap::Accounts => Counted::Accounts,
            Cap::Categories => Counted::Categories,
            Cap::Recurring => Counted::Recurring,
            Cap::DailyExpenses => Counted::DailyExpenses,
            Cap::ApiTokens => Counted::ApiTokens,
            Cap::Documents => Counted::Documents,
        }
    }

    fn count(self, c: &Connection, user_id: &UserId) -> Result<i64> {
        let sql = match self {
            Cap::Accounts => "SELECT COUNT(*) FROM accounts WHERE user_id = ?1",
            Cap::Categories => "SELECT COUNT(*) FROM categories WHERE user_id = ?1",
            Cap::Recurring => {
                "SELECT (SELECT COUNT(*) FROM expenses WHERE user_id = ?1)
                      + (SELECT COUNT(*) FROM incomes WHERE user_id = ?1)
                      + (SELECT COUNT(*) FROM transfers WHERE user_id = ?1)"
            }
            // The trigger-kept month sums count the entries too.
            Cap::DailyExpenses => {
                "SELECT COALESCE(SUM(entries), 0) FROM daily_expense_months WHERE user_id = ?1"
            }
            Cap::ApiTokens => {
                "SELECT COUNT(*) FROM api_tokens WHERE user_id = ?1 AND revoked_at IS NULL"
            }
            Cap::Documents => "SELECT COUNT(*) FROM documents WHERE user_id = ?1",
        };
        Ok(c.prepare_cached(sql)?.query_row([user_id], |r| r.get(0))?)
    }

    /// Refuses one more record when the user already has the most allowed.
    /// Called inside the inserting (immediate) transaction, so concurrent
    /// inserts cannot pass it together.
    pub fn check(self, c: &Connection, user_id: &UserId) -> Result<()> {
        self.check_room(c, user_id, 1)
    }

    /// Refuses `more` records when they would pass the limit.
    pub fn check_room(self, c: &Connection, user_id: &UserId, more: i64) -> Result<()> {
        if more > 0 && self.count(c, user_id)? + more > self.max() {
            return Err(Error::refused(Reason::LimitReached(
                self.max(),
                self.counted(),
            )));
        }
        Ok(())
    }
}

/// Stored codes read back as the domain's enums. A code the domain does
/// not know (a corrupt or hand-edited row) fails the query loudly instead
/// of quietly becoming some default.
mod codes {
    use crate::domain::locale::Locale;
    use crate::domain::recurrence::Frequency;
    use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};

    fn unknown(what: &str, code: &str) -> FromSqlError {
        FromSqlError::Other(format!("unknown {what} {code:?} in the database").into())
    }

    impl FromSql for Frequency {
        fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
            let code = v.as_str()?;
            Frequency::from_code(code).ok_or_else(|| unknown("frequency", code))
        }
    }

    impl FromSql for Locale {
        fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
            let code = v.as_str()?;
            Locale::from_code(code).ok_or_else(|| unknown("locale", code))
        }
    }
}

/// A new record id.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A new record id that sorts after the ones made before it (UUID v7),
/// for bulk inserts: each lands at the end of the primary key's B-tree
/// instead of on a random page, so a write of 100,000 rows stays in the
/// page cache.
pub fn new_sequential_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    use super::{answer, configure, job, lock_delay, lock_waits, Db, BUSY_TIMEOUT};
    use crate::domain::locale::Locale;
    use crate::domain::recurrence::Frequency;
    use crate::error::{Error, Result};
    use rusqlite::Connection;

    #[test]
    fn stored_codes_read_back_and_an_unknown_one_fails_loudly() {
        let c = Connection::open_in_memory().unwrap();
        let f: Frequency = c
            .query_row("SELECT 'half_yearly'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(f, Frequency::HalfYearly);
        let l: Locale = c.query_row("SELECT 'de'", [], |r| r.get(0)).unwrap();
        assert_eq!(l, Locale::De);
        let err = c
            .query_row("SELECT 'fortnightly'", [], |r| r.get::<_, Frequency>(0))
            .unwrap_err();
        assert!(err.to_string().contains("unknown frequency"), "{err}");
        assert!(c
            .query_row("SELECT 'fr'", [], |r| r.get::<_, Locale>(0))
            .is_err());
    }

    #[test]
    fn a_wait_for_the_lock_pauses_as_sqlite_does_and_gives_up_after_the_busy_timeout() {
        let ms = |n| lock_delay(n).map(|d| d.as_millis() as u64);
        assert_eq!(
            (ms(0), ms(1), ms(11), ms(12)),
            (Some(1), Some(2), Some(100), Some(100))
        );
        let mut waited = 0;
        let mut tries = 0;
        while let Some(d) = lock_delay(tries) {
            waited += d.as_millis();
            tries += 1;
        }
        assert_eq!(waited, BUSY_TIMEOUT.as_millis());
    }

    #[tokio::test]
    async fn a_read_past_its_budget_is_interrupted_as_busy_and_its_connection_is_free_again() {
        let dir = tempfile::tempdir().unwrap();
        let db = super::Db::open(dir.path())
            .unwrap()
            .with_read_budget(std::time::Duration::from_millis(50));
        let endless = db
            .read(|c| {
                Ok(c.query_row(
                    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)
                     SELECT count(*) FROM r",
                    [],
                    |r| r.get::<_, i64>(0),
                )?)
            })
            .await;
        assert!(matches!(endless, Err(crate::Error::Busy(_))), "{endless:?}");
        // The pool's connections all still work, none left interrupted.
        for _ in 0..16 {
            let one = db
                .read(|c| Ok(c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?))
                .await
                .unwrap();
            assert_eq!(one, 1);
        }
    }

    /// The database's work crosses the blocking pool as one type; what it
    /// answered comes back as its own, and an answer read as another type
    /// is an internal error, not a panic.
    #[tokio::test]
    async fn work_on_the_blocking_pool_answers_its_own_type() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let n: i64 = db
            .run(|c| Ok(c.query_row("SELECT 6 * 7", [], |r| r.get(0))?))
            .await
            .unwrap();
        let text: String = db
            .read(|c| Ok(c.query_row("SELECT 'zweiundvierzig'", [], |r| r.get(0))?))
            .await
            .unwrap();
        assert_eq!((n, text.as_str()), (42, "zweiundvierzig"));
        let refused = db.run(|_| -> Result<u8> { Err(Error::Busy(anyhow::anyhow!("busy"))) });
        assert!(matches!(refused.await, Err(Error::Busy(_))));
        assert_eq!(answer::<u32>(job(|| Ok(7u32))()).unwrap(), 7);
        let mixed = answer::<String>(job(|| Ok(7u32))());
        assert!(matches!(mixed, Err(Error::Internal(_))), "{mixed:?}");
    }

    #[tokio::test]
    async fn a_read_that_panics_leaves_no_deadline_on_its_connection() {
        let dir = tempfile::tempdir().unwrap();
        let db = super::Db::open(dir.path())
            .unwrap()
            .with_read_budget(std::time::Duration::ZERO);
        let failed = db.read(|_| -> crate::Result<()> { panic!("a bug") }).await;
        assert!(failed.is_err());
        // Work without a budget on any of the pool's connections runs to
        // its end, however many steps it takes.
        for _ in 0..16 {
            let n = db
                .run(|c| {
                    Ok(c.query_row(
                        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 100000)
                         SELECT count(*) FROM r",
                        [],
                        |r| r.get::<_, i64>(0),
                    )?)
                })
                .await
                .unwrap();
            assert_eq!(n, 100_000);
        }
    }

    #[tokio::test]
    async fn a_write_transaction_past_its_budget_is_rolled_back_as_busy() {
        let dir = tempfile::tempdir().unwrap();
        let db = super::Db::open(dir.path())
            .unwrap()
            .with_write_budget(std::time::Duration::from_millis(50));
        db.transaction(|tx| Ok(tx.execute_batch("CREATE TABLE t (x INTEGER)")?))
            .await
            .unwrap();
        let endless = db
            .transaction(|tx| {
                tx.execute("INSERT INTO t VALUES (1)", [])?;
                Ok(tx.query_row(
                    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)
                     SELECT count(*) FROM r",
                    [],
                    |r| r.get::<_, i64>(0),
                )?)
            })
            .await;
        assert!(matches!(endless, Err(crate::Error::Busy(_))), "{endless:?}");
        // Nothing of it landed, and the next writer gets the lock at once.
        let rows = db
            .transaction(|tx| {
                tx.execute("INSERT INTO t VALUES (2)", [])?;
                Ok(tx.query_row("SELECT group_concat(x) FROM t", [], |r| {
                    r.get::<_, String>(0)
                })?)
            })
            .await
            .unwrap();
        assert_eq!(rows, "2");
    }

    #[test]
    fn a_writer_waits_for_the_lock_and_the_wait_is_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let open = move |path: &std::path::Path| {
            let mut c = Connection::open(path).unwrap();
            configure(&mut c).unwrap();
            c
        };
        let mut first = open(&path);
        first
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        first.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        let tx = super::write_transaction(&mut first).unwrap();
        tx.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let before = lock_waits();
        let second = std::thread::spawn(move || {
            let c = open(&path);
            c.execute("INSERT INTO t VALUES (2)", []).unwrap();
        });
        while lock_waits() == before {
            std::thread::yield_now();
        }
        tx.commit().unwrap();
        second.join().unwrap();
        let n: i64 = first
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2);
    }
}
