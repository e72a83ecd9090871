//! Slows down password guessing for one address: after
//! [`MAX_FAILURES`] failed logins within [`WINDOW`], the address is locked for
//! [`LOCK`], whatever password is tried. Held in memory, per process.

use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

pub const MAX_FAILURES: u32 = 5;
pub const WINDOW: Duration = Duration::minutes(15);
pub const LOCK: Duration = Duration::minutes(15);
/// Addresses tracked at most, so a flood of made-up addresses cannot grow memory.
const MAX_TRACKED: usize = 10_000;

#[derive(Default)]
pub struct LoginLimiter {
    inner: Mutex<HashMap<String, Entry>>,
}

#[derive(Clone, Copy)]
struct Entry {
    failures: u32,
    first_failure: DateTime<Utc>,
    locked_until: Option<DateTime<Utc>>,
}

impl LoginLimiter {
    /// `Some(seconds)` while the address is locked.
    pub fn locked_for(&self, email: &str, now: DateTime<Utc>) -> Option<i64> {
        let map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let until = map.get(&email.to_lowercase())?.locked_until?;
        (until > now).then(|| (until - now).num_seconds().max(1))
    }

    pub fn record_failure(&self, email: &str, now: DateTime<Utc>) {
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_TRACKED {
            map.retain(|_, e| {
                e.locked_until.is_some_and(|u| u > now) || now - e.first_failure < WINDOW
            });
        }
        let e = map.entry(email.to_lowercase()).or_insert(Entry {
            failures: 0,
            first_failure: now,
            locked_until: None,
        });
        if now - e.first_failure >= WINDOW || e.locked_until.is_some_and(|u| u <= now) {
            *e = Entry {
                failures: 0,
                first_failure: now,
                locked_until: None,
            };
        }
        e.failures += 1;
        if e.failures >= MAX_FAILURES {
            e.locked_until = Some(now + LOCK);
        }
    }

    pub fn record_success(&self, email: &str) {
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(&email.to_lowercase());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_failures_lock_the_address_for_a_while() {
        let l = LoginLimiter::default();
        let t0 = Utc::now();
        for _ in 0..4 {
            l.record_failure("A@x.org", t0);
        }
        assert_eq!(l.locked_for("a@x.org", t0), None);
        l.record_failure("a@x.org", t0);
        assert!(l.locked_for("a@X.org", t0).is_some());
        assert!(l.locked_for("other@x.org", t0).is_none());
        assert!(l
            .locked_for("a@x.org", t0 + LOCK + Duration::seconds(1))
            .is_none());
    }

    #[test]
    fn failures_spread_over_more_than_the_window_do_not_lock() {
        let l = LoginLimiter::default();
        let t0 = Utc::now();
        for i in 0..10 {
            l.record_failure("a@x.org", t0 + WINDOW * i);
        }
        assert!(l.locked_for("a@x.org", t0 + WINDOW * 9).is_none());
    }

    #[test]
    fn success_clears_the_count() {
        let l = LoginLimiter::default();
        let t0 = Utc::now();
        for _ in 0..4 {
            l.record_failure("a@x.org", t0);
        }
        l.record_success("a@x.org");
        l.record_failure("a@x.org", t0);
        assert!(l.locked_for("a@x.org", t0).is_none());
    }
}
