//! Slows down password guessing, held in memory per process:
//!
//! - per address: after [`MAX_FAILURES`] failed sign-ins within [`WINDOW`],
//!   the address is locked for [`LOCK`], whatever password is tried;
//! - per client (`CASHKEEPER_SIGNIN_LIMIT`, default 50): the same for the
//!   client's IP address, whatever addresses it tries, so one client cannot
//!   try a password on every account.
//!
//! An attempt is counted *before* its password is checked, in the same step
//! as the lock check ([`Limiter::begin`]), so concurrent attempts cannot all
//! pass the check before any of them is counted; a successful one is taken
//! back afterwards ([`Attempt::succeeded`]). Anything that ends an attempt
//! without success (a wrong password, an error) leaves it counted.

use crate::error::Reason;
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

pub const MAX_FAILURES: u32 = 5;
pub const WINDOW: Duration = Duration::minutes(15);
pub const LOCK: Duration = Duration::minutes(15);
/// Keys tracked at most, so a flood of made-up addresses cannot grow memory.
const MAX_TRACKED: usize = 10_000;

/// Counts attempts per key within a window and locks a key that reaches
/// its limit.
pub struct Limiter {
    /// 0: no limit.
    max: u32,
    inner: Mutex<HashMap<String, Entry>>,
}

#[derive(Clone, Copy)]
struct Entry {
    attempts: u32,
    first: DateTime<Utc>,
    locked_until: Option<DateTime<Utc>>,
}

impl Limiter {
    pub fn new(max: u32) -> Limiter {
        Limiter {
            max,
            inner: Mutex::new(HashMap::new()),
        }
    }

    /// Checks and counts one attempt for `key`: `Err(seconds)` while the key
    /// is locked (the attempt is not counted then).
    pub fn begin(&self, key: &str, now: DateTime<Utc>) -> Result<(), i64> {
        if self.max == 0 {
            return Ok(());
        }
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_TRACKED && !map.contains_key(key) {
            map.retain(|_, e| e.locked_until.is_some_and(|u| u > now) || now - e.first < WINDOW);
        }
        let e = map.entry(key.to_string()).or_insert(Entry {
            attempts: 0,
            first: now,
            locked_until: None,
        });
        if let Some(until) = e.locked_until {
            if until > now {
                return Err((until - now).num_seconds().max(1));
            }
        }
        if now - e.first >= WINDOW || e.locked_until.is_some() {
            *e = Entry {
                attempts: 0,
                first: now,
                locked_until: None,
            };
        }
        e.attempts += 1;
        if e.attempts >= self.max {
            e.locked_until = Some(now + LOCK);
        }
        Ok(())
    }

    /// Takes back one counted attempt of `key`; `forget` drops the key's
    /// whole count (a right password for that address).
    fn give_back(&self, key: &str, forget: bool) {
        if self.max == 0 {
            return;
        }
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if forget {
            map.remove(key);
        } else if let Some(e) = map.get_mut(key) {
            e.attempts = e.attempts.saturating_sub(1);
            if e.attempts < self.max {
                e.locked_until = None;
            }
        }
    }

    /// Seconds while `key` stays locked, without counting anything.
    #[cfg(test)]
    fn locked_for(&self, key: &str, now: DateTime<Utc>) -> Option<i64> {
        let map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let until = map.get(key)?.locked_until?;
        (until > now).then(|| (until - now).num_seconds().max(1))
    }
}

/// Why a sign-in attempt was not even checked.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Too many failures for this email address; seconds to wait.
    Address(i64),
    /// Too many failures from this client; seconds to wait.
    Client(i64),
}

impl Refusal {
    /// What the user is told: the limit and the minutes to wait.
    pub fn reason(&self) -> Reason {
        let (address, secs) = match self {
            Refusal::Address(s) => (true, *s),
            Refusal::Client(s) => (false, *s),
        };
        Reason::TooManySignIns {
            address,
            minutes: (secs + 59) / 60,
        }
    }
}

/// Both limits of password checks: sign-ins, and the password asked again
/// before a sensitive change (a new API token, a new password).
pub struct SignInGuard {
    per_address: Limiter,
    per_client: Limiter,
}

impl SignInGuard {
    /// `per_client`: failures per client address per [`WINDOW`]; 0 is off.
    pub fn new(per_client: u32) -> SignInGuard {
        SignInGuard {
            per_address: Limiter::new(MAX_FAILURES),
            per_client: Limiter::new(per_client),
        }
    }

    /// Admits one password check for `email` (lower-cased) from `client`,
    /// counted as a failure until [`Attempt::succeeded`].
    pub fn begin(
        &self,
        email: &str,
        client: Option<IpAddr>,
        now: DateTime<Utc>,
    ) -> Result<Attempt<'_>, Refusal> {
        let client = client.map(|ip| ip.to_string());
        if let Some(c) = &client {
            self.per_client.begin(c, now).map_err(Refusal::Client)?;
        }
        if let Err(secs) = self.per_address.begin(email, now) {
            // No password was checked: the client's count is given back.
            if let Some(c) = &client {
                self.per_client.give_back(c, false);
            }
            return Err(Refusal::Address(secs));
        }
        Ok(Attempt {
            guard: self,
            email: email.to_string(),
            client,
        })
    }

    /// The second step of a sign-in succeeded: the first step's attempt,
    /// counted until now, no longer counts (like [`Attempt::succeeded`]).
    pub fn forgive(&self, email: &str, client: Option<IpAddr>) {
        self.per_address.give_back(email, true);
        if let Some(c) = client {
            self.per_client.give_back(&c.to_string(), false);
        }
    }

    /// Seconds while `email` stays locked.
    #[cfg(test)]
    fn address_locked_for(&self, email: &str, now: DateTime<Utc>) -> Option<i64> {
        self.per_address.locked_for(email, now)
    }
}

/// An admitted password check; dropped without [`Attempt::succeeded`], it
/// stays counted as a failure.
pub struct Attempt<'a> {
    guard: &'a SignInGuard,
    email: String,
    client: Option<String>,
}

impl Attempt<'_> {
    /// The password was right: the address's count starts over, and this
    /// attempt no longer counts against the client.
    pub fn succeeded(self) {
        self.guard.per_address.give_back(&self.email, true);
        if let Some(c) = &self.client {
            self.guard.per_client.give_back(c, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn five_failures_lock_the_address_for_a_while() {
        let g = SignInGuard::new(50);
        let t0 = Utc::now();
        for _ in 0..5 {
            drop(g.begin("a@x.org", ip("10.0.0.1"), t0).unwrap());
        }
        assert!(matches!(
            g.begin("a@x.org", ip("10.0.0.2"), t0),
            Err(Refusal::Address(_))
        ));
        assert!(g.begin("other@x.org", ip("10.0.0.1"), t0).is_ok());
        let later = t0 + LOCK + Duration::seconds(1);
        assert!(g.begin("a@x.org", ip("10.0.0.1"), later).is_ok());
    }

    #[test]
    fn concurrent_attempts_are_counted_before_they_are_checked() {
        // Five admitted and none finished yet: the sixth is refused.
        let g = SignInGuard::new(0);
        let t0 = Utc::now();
        let held: Vec<_> = (0..5)
            .map(|_| g.begin("a@x.org", None, t0).unwrap())
            .collect();
        assert!(g.begin("a@x.org", None, t0).is_err());
        drop(held);
        assert!(g.begin("a@x.org", None, t0).is_err());
    }

    #[test]
    fn failures_spread_over_more_than_the_window_do_not_lock() {
        let g = SignInGuard::new(50);
        let t0 = Utc::now();
        for i in 0..10 {
            drop(g.begin("a@x.org", None, t0 + WINDOW * i).unwrap());
        }
        assert!(g.address_locked_for("a@x.org", t0 + WINDOW * 9).is_none());
    }

    #[test]
    fn success_clears_the_address_count() {
        let g = SignInGuard::new(50);
        let t0 = Utc::now();
        for _ in 0..4 {
            drop(g.begin("a@x.org", None, t0).unwrap());
        }
        g.begin("a@x.org", None, t0).unwrap().succeeded();
        for _ in 0..4 {
            drop(g.begin("a@x.org", None, t0).unwrap());
        }
        assert!(g.address_locked_for("a@x.org", t0).is_none());
    }

    #[test]
    fn one_client_is_limited_across_addresses() {
        let g = SignInGuard::new(3);
        let t0 = Utc::now();
        for i in 0..3 {
            drop(g.begin(&format!("u{i}@x.org"), ip("10.0.0.1"), t0).unwrap());
        }
        let refusal = g.begin("u9@x.org", ip("10.0.0.1"), t0).err().unwrap();
        assert!(matches!(refusal, Refusal::Client(_)));
        assert_eq!(
            refusal.reason().to_string(),
            "too many failed sign-ins from your network; try again in 15 minutes"
        );
        // Another client is not affected, and no address got locked.
        assert!(g.begin("u9@x.org", ip("10.0.0.2"), t0).is_ok());
    }

    #[test]
    fn successes_do_not_use_up_the_client_limit() {
        let g = SignInGuard::new(3);
        let t0 = Utc::now();
        for _ in 0..10 {
            g.begin("a@x.org", ip("10.0.0.1"), t0).unwrap().succeeded();
        }
        assert!(g.begin("b@x.org", ip("10.0.0.1"), t0).is_ok());
    }

    #[test]
    fn a_zero_client_limit_is_off() {
        let g = SignInGuard::new(0);
        let t0 = Utc::now();
        for i in 0..100 {
            drop(g.begin(&format!("u{i}@x.org"), ip("10.0.0.1"), t0).unwrap());
        }
    }
}
