//! The current exchange-rate table, and its daily refresh from the ECB.
//!
//! The table lives in memory (every request reads it, none waits for the
//! network) and in the `exchange_rates` rows (a restart serves the last
//! fetched rates, not the older built-in ones). A refresh that fails in any
//! way, network, status, content or database, changes neither: the last good
//! table stays, and the failure is a warning in the log.

use crate::clock::timestamp;
use crate::domain::rates::Rates;
use crate::error::{Error, Result};
use crate::store::{self, exchange_rates, Db};
use anyhow::anyhow;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A fetch that takes longer than this has failed; the next try comes later.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(20);
/// The ECB publishes once per working day.
pub const REFRESH_EVERY: Duration = Duration::from_secs(24 * 60 * 60);
/// After a failed refresh: soon enough to catch up the same day, rare enough
/// not to hammer a server that is down.
pub const RETRY_AFTER: Duration = Duration::from_secs(60 * 60);
/// The daily feed is about 2 KB; anything much larger is not the feed.
const MAX_FEED_BYTES: usize = 1 << 20;

/// The current table, shared by every request.
pub struct RateStore {
    current: RwLock<Arc<Rates>>,
    /// Held from fetch to swap, so two refreshes cannot leave the rows of one
    /// and the in-memory table of the other.
    refreshing: tokio::sync::Mutex<()>,
    /// Counts swaps, so results computed with one table can be told from
    /// results of the next (cache keys).
    generation: std::sync::atomic::AtomicU64,
}

impl RateStore {
    pub fn new(rates: Rates) -> RateStore {
        RateStore {
            current: RwLock::new(Arc::new(rates)),
            refreshing: tokio::sync::Mutex::new(()),
            generation: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Changes whenever the table is replaced.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The table of the stored rows, laid over the built-in one so it stays
    /// complete; the built-in table alone when nothing is stored yet.
    ///
    /// Synchronous because the shared state is built synchronously before
    /// serving (like the migrations in `Db::open`): one short read of a
    /// table of about thirty rows, on a connection of its own.
    pub fn load(db: &Db) -> Result<RateStore> {
        let conn = store::open_connection(db.path())?;
        let rows = exchange_rates::all(&conn)?;
        Ok(RateStore::new(from_rows(&rows)))
    }

    /// The table now. Cheap: callers keep the `Arc` for as long as they
    /// compute, and a refresh meanwhile does not change it under them.
    pub fn current(&self) -> Arc<Rates> {
        // A poisoned lock still holds a whole `Arc` (the swap cannot half
        // happen), so it is safe to keep reading it.
        self.current
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn swap(&self, rates: Rates) {
        *self
            .current
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Arc::new(rates);
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// Fetches `url`, parses it as the ECB daily feed, replaces every stored
    /// row in one transaction, then the in-memory table. On any failure it
    /// logs a warning, keeps the last good table (stored and in memory) and
    /// returns the error, so the caller can retry sooner.
    pub async fn refresh(&self, db: &Db, client: &reqwest::Client, url: &str) -> Result<()> {
        let _one_at_a_time = self.refreshing.lock().await;
        match self.fetch_and_store(db, client, url).await {
            Ok(rates) => {
                tracing::info!(date = %rates.date(), "exchange rates refreshed");
                self.swap(rates);
                Ok(())
            }
            Err(e) => {
                let cause = match &e {
                    Error::Internal(cause) => format!("{cause:#}"),
                    other => other.to_string(),
                };
                tracing::warn!(
                    error = %cause,
                    kept = %self.current().date(),
                    "exchange-rate refresh failed; keeping the current rates"
                );
                Err(e)
            }
        }
    }

    async fn fetch_and_store(&self, db: &Db, client: &reqwest::Client, url: &str) -> Result<Rates> {
        let body = fetch(client, url).await?;
        let rates = Rates::parse_ecb_xml(&body)
            .map_err(|e| Error::Internal(anyhow!("exchange-rate feed: {e}")))?;
        let rows: Vec<(&'static str, String)> = rates
            .iter()
            .map(|(code, r)| (code, r.to_string()))
            .collect();
        let rate_date = rates.date().to_string();
        let fetched_at = timestamp(chrono::Utc::now());
        db.transaction(move |tx| exchange_rates::replace_all(tx, &rows, &rate_date, &fetched_at))
            .await?;
        Ok(rates)
    }
}

/// GET `url` with a time and size limit; the body as text.
async fn fetch(client: &reqwest::Client, url: &str) -> Result<String> {
    // Errors without the URL: the operator knows it, and a mirror's URL may
    // carry a token.
    let fail =
        |e: reqwest::Error| Error::Internal(anyhow!("fetching the feed: {}", e.without_url()));
    let mut res = client
        .get(url)
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(fail)?;
    if !res.status().is_success() {
        return Err(Error::Internal(anyhow!(
            "fetching the feed: status {}",
            res.status()
        )));
    }
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(fail)? {
        if body.len() + chunk.len() > MAX_FEED_BYTES {
            return Err(Error::Internal(anyhow!(
                "fetching the feed: larger than {MAX_FEED_BYTES} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body)
        .map_err(|_| Error::Internal(anyhow!("fetching the feed: the body is not UTF-8")))
}

/// The table of stored rows over the built-in one. A row that does not
/// read back (unknown code, bad number) keeps the built-in value of its
/// currency instead of failing start-up; the newest row date is the table's.
fn from_rows(rows: &[exchange_rates::StoredRate]) -> Rates {
    if rows.is_empty() {
        return Rates::builtin();
    }
    let mut date: Option<NaiveDate> = None;
    let mut rates = Vec::with_capacity(rows.len());
    for row in rows {
        match Decimal::from_str_exact(&row.rate) {
            Ok(rate) => rates.push((row.currency.as_str(), rate)),
            Err(_) => tracing::warn!(
                currency = %row.currency,
                "stored exchange rate {:?} is not a decimal; using the built-in rate",
                row.rate
            ),
        }
        if let Ok(d) = NaiveDate::parse_from_str(&row.rate_date, "%Y-%m-%d") {
            date = Some(date.map_or(d, |prev| prev.max(d)));
        }
    }
    Rates::over_builtin(date.unwrap_or(Rates::builtin().date()), rates)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::exchange_rates::StoredRate;

    fn row(currency: &str, rate: &str, date: &str) -> StoredRate {
        StoredRate {
            currency: currency.into(),
            rate: rate.into(),
            rate_date: date.into(),
            fetched_at: "2026-11-20T16:00:00Z".into(),
        }
    }

    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }

    #[test]
    fn no_rows_is_the_builtin_table() {
        assert_eq!(from_rows(&[]), Rates::builtin());
    }

    #[test]
    fn rows_lay_over_the_builtin_table() {
        let rates = from_rows(&[
            row("USD", "1.2345", "2026-11-20"),
            row("CHF", "0.9", "2026-11-20"),
        ]);
        assert_eq!(rates.rate("USD"), Some(dec("1.2345")));
        assert_eq!(rates.rate("CHF"), Some(dec("0.9")));
        assert_eq!(rates.rate("JPY"), Rates::builtin().rate("JPY"));
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
    }

    #[test]
    fn unreadable_rows_keep_the_builtin_value() {
        let rates = from_rows(&[
            row("USD", "lots", "2026-11-20"),
            row("XXX", "2", "2026-11-20"),
            row("GBP", "-1", "2026-11-20"),
            row("CHF", "0.9", "not a date"),
        ]);
        assert_eq!(rates.rate("USD"), Rates::builtin().rate("USD"));
        assert_eq!(rates.rate("GBP"), Rates::builtin().rate("GBP"));
        assert_eq!(rates.rate("XXX"), None);
        assert_eq!(rates.rate("CHF"), Some(dec("0.9")));
        assert_eq!(rates.date(), NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
    }

    #[tokio::test]
    async fn a_refresh_that_cannot_connect_keeps_the_table_and_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let store = RateStore::load(&db).unwrap();
        assert_eq!(*store.current(), Rates::builtin());
        // A port that was free a moment ago: connection refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = crate::outbound::http_client().build().unwrap();
        let url = format!("http://127.0.0.1:{port}/eurofxref-daily.xml");
        assert!(store.refresh(&db, &client, &url).await.is_err());
        assert_eq!(*store.current(), Rates::builtin());
        let rows = db.run(|c| exchange_rates::all(c)).await.unwrap();
        assert!(rows.is_empty());
    }

    #[tokio::test]
    async fn stored_rows_survive_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path()).unwrap();
        let rows = vec![("USD", "1.2345".to_string()), ("EUR", "1".to_string())];
        db.transaction(move |tx| {
            exchange_rates::replace_all(tx, &rows, "2026-11-20", "2026-11-20T16:00:00Z")
        })
        .await
        .unwrap();
        let store = RateStore::load(&db).unwrap();
        assert_eq!(store.current().rate("USD"), Some(dec("1.2345")));
        assert_eq!(store.current().rate("EUR"), Some(Decimal::ONE));
    }
}
