//! Reading an uploaded file, on a blocking thread: at most [`AT_ONCE`]
//! files are read at once in all and [`PER_USER`] per user (the others
//! wait their turn, at most [`WAIT_MAX`]); each read gets [`BUDGET`] and is
//! called off when its request goes away; after a refusal the memory it
//! took is given back as after a success. See `docs/import.md`, Limits.

use crate::domain::import::budget::{Budget, Stop};
use crate::domain::import::read::ReadError;
use crate::error::{Error, Reason, Result};
use crate::store::users::UserId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Files read at once, in all: reading a large file takes a core and
/// a small multiple of the file's size (`docs/performance.md`).
pub const AT_ONCE: usize = 2;
/// Files of one user read at once.
pub const PER_USER: usize = 1;
/// The longest one file may take to read: a release build reads the
/// largest accepted file in seconds.
pub const BUDGET: Duration = Duration::from_secs(60);
/// The longest an upload waits for its turn before it is refused.
pub const WAIT_MAX: Duration = Duration::from_secs(60);

/// Who reads and who waits, for the whole process.
pub struct Readers {
    all: Arc<Semaphore>,
    users: Mutex<HashMap<String, Arc<Slot>>>,
    per_user: usize,
}

/// One user's turn and what their reads did.
struct Slot {
    turn: Arc<Semaphore>,
    counts: Counts,
}

/// What one user's reads are doing and did; for the tests and the log.
#[derive(Default)]
struct Counts {
    waiting: AtomicUsize,
    reading: AtomicUsize,
    called_off: AtomicUsize,
}

/// A user's reads as [`counts`] answers them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Uploads waiting for their turn now.
    pub waiting: usize,
    /// Files being read now.
    pub reading: usize,
    /// Reads stopped because their request went away, so far.
    pub called_off: usize,
}

impl Readers {
    pub fn new(at_once: usize, per_user: usize) -> Readers {
        Readers {
            all: Arc::new(Semaphore::new(at_once)),
            users: Mutex::new(HashMap::new()),
            per_user,
        }
    }

    /// The user's slot, made on their first upload. A slot is a few dozen
    /// bytes and stays for the process's life.
    fn slot(&self, user: &str) -> Arc<Slot> {
        let mut users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users
            .entry(user.to_string())
            .or_insert_with(|| {
                Arc::new(Slot {
                    turn: Arc::new(Semaphore::new(self.per_user)),
                    counts: Counts::default(),
                })
            })
            .clone()
    }

    /// Waits for the user's turn, then for one of all: both, or None
    /// after `wait`.
    async fn turn(&self, slot: &Slot, wait: Duration) -> Option<Turn> {
        let _waiting = Step::on(&slot.counts.waiting);
        let both = async {
            let mine = slot.turn.clone().acquire_owned().await.ok()?;
            let all = self.all.clone().acquire_owned().await.ok()?;
            Some(Turn {
                _mine: mine,
                _all: all,
            })
        };
        tokio::time::timeout(wait, both).await.ok().flatten()
    }

    /// What the user's reads are doing and did.
    pub fn seen(&self, user: &str) -> Seen {
        let users = self.users.lock().unwrap_or_else(|e| e.into_inner());
        users.get(user).map_or_else(Seen::default, |slot| {
            let c = &slot.counts;
            Seen {
                waiting: c.waiting.load(Ordering::SeqCst),
                reading: c.reading.load(Ordering::SeqCst),
                called_off: c.called_off.load(Ordering::SeqCst),
            }
        })
    }
}

/// The process's readers.
fn readers() -> &'static Readers {
    static READERS: OnceLock<Readers> = OnceLock::new();
    READERS.get_or_init(|| Readers::new(AT_ONCE, PER_USER))
}

/// What a user's reads are doing now and did so far.
pub fn counts(user: &str) -> Seen {
    readers().seen(user)
}

/// A user's turn and one of all, held until the read ends.
struct Turn {
    _mine: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

/// One more in a count while it lives.
struct Step<'a>(&'a AtomicUsize);

impl<'a> Step<'a> {
    fn on(count: &'a AtomicUsize) -> Step<'a> {
        count.fetch_add(1, Ordering::SeqCst);
        Step(count)
    }
}

impl Drop for Step<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Sets the flag the read looks at when the request's future is dropped
/// (the client went away, or the service stops), and when it ends anyway.
struct CallOff(Arc<AtomicBool>);

impl Drop for CallOff {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` (a reader over the upload it holds) on a blocking thread in
/// the user's turn, within [`BUDGET`]. The outer error is the upload's
/// refusal when its turn did not come within [`WAIT_MAX`], named `field`.
pub async fn read<T: Send + 'static>(
    user: &UserId,
    field: &'static str,
    work: impl FnOnce(&Budget) -> std::result::Result<T, ReadError> + Send + 'static,
) -> Result<std::result::Result<T, ReadError>> {
    let slot = readers().slot(user.as_str());
    let Some(turn) = readers().turn(&slot, WAIT_MAX).await else {
        return Err(Error::invalid(
            field,
            Reason::ReadersBusy(WAIT_MAX.as_secs()),
        ));
    };
    let off = Arc::new(AtomicBool::new(false));
    let _call_off = CallOff(off.clone());
    let budget = Budget::new(BUDGET, off);
    let read = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        let _reading = Step::on(&slot.counts.reading);
        // `work` and the upload it holds are gone when it returns.
        let read = work(&budget);
        if let Err(e) = &read {
            if *e == ReadError::Stopped(Stop::CalledOff) {
                slot.counts.called_off.fetch_add(1, Ordering::SeqCst);
            }
            tracing::debug!(refusal = ?e, "upload refused as it was read");
            crate::memory::release_free();
        }
        read
    });
    Ok(read.await.map_err(anyhow::Error::from)?)
}

/// The refusal of a read that ran out of time or was called off.
pub fn stopped(field: &'static str, stop: Stop) -> Error {
    match stop {
        Stop::TimeUp => Error::invalid(field, Reason::ReadTooLong(BUDGET.as_secs())),
        Stop::CalledOff => Error::invalid(field, Reason::ReadCalledOff),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn two_files_are_read_at_once_in_all_and_one_per_user() {
        let readers = Readers::new(2, 1);
        let (anna, ben, cleo) = (
            readers.slot("anna"),
            readers.slot("ben"),
            readers.slot("cleo"),
        );
        let wait = Duration::from_millis(50);
        let first = readers.turn(&anna, wait).await.expect("anna's first");
        // Anna's second waits for her first, however free the others are.
        assert!(readers.turn(&anna, wait).await.is_none());
        let second = readers.turn(&ben, wait).await.expect("ben's");
        // Two are read: Cleo waits for one of them.
        assert!(readers.turn(&cleo, wait).await.is_none());
        drop(first);
        let third = readers.turn(&cleo, wait).await.expect("cleo's");
        assert_eq!(readers.all.available_permits(), 0);
        drop((second, third));
        assert_eq!(readers.all.available_permits(), 2);
        assert_eq!(readers.seen("anna").waiting, 0);
    }

    #[tokio::test]
    async fn a_wait_is_counted_while_it_lasts() {
        let readers = Arc::new(Readers::new(1, 1));
        let anna = readers.slot("anna");
        let held = readers.turn(&anna, Duration::from_secs(1)).await;
        let waiting = {
            let (readers, anna) = (readers.clone(), anna.clone());
            tokio::spawn(
                async move { readers.turn(&anna, Duration::from_secs(60)).await.is_some() },
            )
        };
        while readers.seen("anna").waiting == 0 {
            tokio::task::yield_now().await;
        }
        drop(held);
        assert!(waiting.await.unwrap());
        assert_eq!(readers.seen("anna").waiting, 0);
    }
}
