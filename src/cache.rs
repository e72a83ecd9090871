//! Replies of `/api/v1` computed from a user's data, kept while nothing they
//! depend on changed: the user's data version (moved by triggers on every
//! write, from any process), the exchange-rate table, and the UTC day.

use chrono::NaiveDate;
use std::collections::HashMap;
use std::sync::Mutex;

/// What a cached reply was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub data_version: i64,
    pub rates_generation: u64,
    pub today: NaiveDate,
}

/// A computed report of any type, for [`ReplyCache`]s that several reports
/// share: each report keeps one type under keys of its own prefix.
pub type AnyReport = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// Replies kept at most; beyond it the cache starts over.
const MAX_ENTRIES: usize = 4096;

pub struct ReplyCache<T> {
    map: Mutex<HashMap<String, (Stamp, T)>>,
    max: usize,
}

/// A cached value that is also bound to a moment: valid before `until`.
#[derive(Clone)]
pub struct Until<T> {
    pub value: T,
    pub until: Option<chrono::DateTime<chrono::Utc>>,
}

impl<T> Until<T> {
    pub fn valid_at(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        self.until.is_none_or(|u| now < u)
    }
}

impl<T> Default for ReplyCache<T> {
    fn default() -> Self {
        Self::holding(MAX_ENTRIES)
    }
}

impl<T> ReplyCache<T> {
    /// A cache that starts over beyond `max` entries: for larger values
    /// than the replies' bytes.
    pub fn holding(max: usize) -> Self {
        ReplyCache {
            map: Mutex::new(HashMap::new()),
            max,
        }
    }
}

impl<T: Clone> ReplyCache<T> {
    pub fn get(&self, key: &str, stamp: Stamp) -> Option<T> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get(key)
            .filter(|(s, _)| *s == stamp)
            .map(|(_, b)| b.clone())
    }

    pub fn put(&self, key: String, stamp: Stamp, body: T) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= self.max && !map.contains_key(&key) {
            map.clear();
        }
        map.insert(key, (stamp, body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_served_only_for_the_same_stamp() {
        let c = ReplyCache::<axum::body::Bytes>::default();
        let day = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let s = Stamp {
            data_version: 1,
            rates_generation: 0,
            today: day,
        };
        c.put("u:summary".into(), s, axum::body::Bytes::from_static(b"{}"));
        assert!(c.get("u:summary", s).is_some());
        assert!(c
            .get(
                "u:summary",
                Stamp {
                    data_version: 2,
                    ..s
                }
            )
            .is_none());
        assert!(c
            .get(
                "u:summary",
                Stamp {
                    rates_generation: 1,
                    ..s
                }
            )
            .is_none());
        assert!(c
            .get(
                "u:summary",
                Stamp {
                    today: day.succ_opt().unwrap(),
                    ..s
                }
            )
            .is_none());
        assert!(c.get("v:summary", s).is_none());
    }

    #[test]
    fn a_bounded_cache_starts_over_beyond_its_size() {
        let c = ReplyCache::<u32>::holding(2);
        let s = Stamp {
            data_version: 1,
            rates_generation: 0,
            today: NaiveDate::from_ymd_opt(2026, 1, 1).unwrap(),
        };
        c.put("a".into(), s, 1);
        c.put("b".into(), s, 2);
        c.put("b".into(), s, 3);
        assert_eq!(
            c.get("a", s),
            Some(1),
            "a key kept again does not count twice"
        );
        c.put("c".into(), s, 4);
        assert_eq!((c.get("a", s), c.get("c", s)), (None, Some(4)));
    }
}
