//! Per-key request limits over a sliding 60-second window (not a refilling
//! bucket): at most `limit` requests in any 60 seconds. Used per token by
//! `/api/v1` and per user by the receipt scan; held in memory, per process.

use chrono::{DateTime, Duration, Utc};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// The window of every rate limit.
pub const WINDOW: Duration = Duration::seconds(60);
/// Keys tracked at most; beyond it, idle ones are forgotten.
const MAX_TRACKED: usize = 10_000;

/// Per key, the times of its admitted requests in the last minute.
#[derive(Default)]
pub struct SlidingWindow {
    windows: Mutex<HashMap<String, VecDeque<DateTime<Utc>>>>,
}

impl SlidingWindow {
    /// Counts a request of `key` at `now` if fewer than `limit` were admitted
    /// in the preceding minute; otherwise answers the whole seconds until a
    /// slot frees (1 to 60, for `Retry-After`) and does not count it.
    pub fn admit(&self, key: &str, limit: u32, now: DateTime<Utc>) -> Result<(), i64> {
        let mut map = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_TRACKED && !map.contains_key(key) {
            map.retain(|_, q| q.back().is_some_and(|t| now - *t < WINDOW));
        }
        let q = map.entry(key.to_string()).or_default();
        while q.front().is_some_and(|t| now - *t >= WINDOW) {
            q.pop_front();
        }
        if q.len() >= limit.max(1) as usize {
            let oldest = q.front().copied().unwrap_or(now);
            let wait = WINDOW - (now - oldest);
            // Round up to whole seconds: a client waiting that long gets in.
            let secs = (wait.num_milliseconds() + 999) / 1000;
            return Err(secs.clamp(1, 60));
        }
        q.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_slides_and_tells_when_a_slot_frees() {
        let g = SlidingWindow::default();
        let t0 = Utc::now();
        for i in 0..3 {
            assert!(g.admit("a", 3, t0 + Duration::seconds(i * 10)).is_ok());
        }
        // The fourth within the minute waits until the first is 60 s old.
        assert_eq!(g.admit("a", 3, t0 + Duration::seconds(30)), Err(30));
        assert!(
            g.admit("b", 3, t0 + Duration::seconds(30)).is_ok(),
            "per key"
        );
        assert!(g.admit("a", 3, t0 + Duration::seconds(60)).is_ok());
        assert_eq!(
            g.admit("a", 3, t0 + Duration::milliseconds(60_500)),
            Err(10)
        );
    }

    #[test]
    fn a_refused_request_is_not_counted() {
        let g = SlidingWindow::default();
        let t0 = Utc::now();
        assert!(g.admit("a", 1, t0).is_ok());
        for s in 1..30 {
            assert!(g.admit("a", 1, t0 + Duration::seconds(s)).is_err());
        }
        assert!(g.admit("a", 1, t0 + Duration::seconds(60)).is_ok());
    }
}
