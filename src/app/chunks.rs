//! Long writes in chunks: an import's confirm and undo, an export's load.
//! Each chunk is one short write transaction, and the write lock is left
//! free between two, so other users' writes wait briefly instead of for
//! the whole file (see `docs/performance.md`).

use crate::error::Result;
use crate::store::Db;
use std::time::Duration;

/// After a chunk during which someone waited for the write lock, the lock
/// stays free as long as the chunk held it (within these bounds), so that
/// writers waiting in the busy handler, which looks again every 100 ms at
/// most, get their turn between two chunks; when nobody waited, for
/// [`PAUSE_MIN`] only (a writer of another process is not counted, and
/// gets in within a few chunks).
const PAUSE_MIN: Duration = Duration::from_millis(20);
const PAUSE_MAX: Duration = Duration::from_millis(250);

/// Runs `step` in one write transaction after another until it answers
/// `None`, pausing between them (see [`PAUSE_MIN`]); answers the sum of
/// what the steps answered. Runs as its own task, so that a client that
/// goes away does not stop it between two chunks; `hold` (an account's
/// turn) is kept until the task ends.
pub async fn in_chunks<F, H>(db: &Db, hold: H, step: F) -> Result<usize>
where
    F: Fn(&rusqlite::Transaction<'_>) -> Result<Option<usize>> + Clone + Send + Sync + 'static,
    H: Send + 'static,
{
    let db = db.clone();
    tokio::spawn(async move {
        let _hold = hold;
        let mut total = 0;
        loop {
            let (started, waits) = (std::time::Instant::now(), crate::store::lock_waits());
            let step = step.clone();
            match db.chunk_transaction(move |tx| step(tx)).await? {
                Some(n) => total += n,
                None => return Ok(total),
            }
            let held = started.elapsed();
            tracing::debug!(
                held_ms = held.as_millis() as u64,
                total,
                "import chunk written"
            );
            crate::memory::release_free();
            let pause = if crate::store::lock_waits() == waits {
                PAUSE_MIN
            } else {
                held.clamp(PAUSE_MIN, PAUSE_MAX)
            };
            tokio::time::sleep(pause).await;
        }
    })
    .await
    .map_err(anyhow::Error::from)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// `PRAGMA temp_store` of a connection: 2 is memory, 0 the default.
    fn temp_store(c: &rusqlite::Connection) -> Result<i64> {
        Ok(c.query_row("PRAGMA temp_store", [], |r| r.get(0))?)
    }

    #[tokio::test]
    async fn a_chunk_keeps_its_statement_journal_in_memory_and_gives_the_connection_back_as_it_was()
    {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let s = seen.clone();
        let total = in_chunks(&db, (), move |tx| {
            let mut s = s.lock().unwrap();
            s.push(temp_store(tx)?);
            Ok((s.len() < 3).then_some(1))
        })
        .await
        .unwrap();
        assert_eq!(total, 2);
        assert_eq!(*seen.lock().unwrap(), [2, 2, 2]);
        // Every connection of the pool is back to temporary files, so a
        // large sort elsewhere spills to disk.
        for _ in 0..16 {
            assert_eq!(db.run(|c| temp_store(c)).await.unwrap(), 0);
        }
    }
}
