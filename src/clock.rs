//! The service's notion of "now".
//!
//! Everything that expires (sessions, reset links, tokens, insights) asks the
//! clock instead of calling `Utc::now()`, so a test can move time forward
//! without sleeping.

use chrono::{DateTime, Duration, NaiveDate, SecondsFormat, Utc};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

#[derive(Clone, Default)]
pub struct Clock {
    offset_secs: Arc<AtomicI64>,
}

impl Clock {
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::seconds(self.offset_secs.load(Ordering::Relaxed))
    }

    /// Today as a UTC calendar day (`docs/api.md`).
    pub fn today(&self) -> NaiveDate {
        self.now().date_naive()
    }

    /// Sets this clock (and every clone of it) to `at`, from where it runs on;
    /// for tests that need a known "today".
    pub fn set(&self, at: DateTime<Utc>) {
        self.offset_secs
            .store((at - Utc::now()).num_seconds(), Ordering::Relaxed);
    }

    /// Moves this clock (and every clone of it) forward; for tests.
    pub fn advance(&self, by: Duration) {
        self.offset_secs
            .fetch_add(by.num_seconds(), Ordering::Relaxed);
    }
}

/// The one textual form of timestamps in the database and in JSON:
/// RFC 3339 in UTC with whole seconds, which also sorts as text.
pub fn timestamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Reads back what [`timestamp`] wrote.
pub fn parse_timestamp(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}
