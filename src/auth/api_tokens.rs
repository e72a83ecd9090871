//! Personal API tokens: their format, the per-token rate limit of `/api/v1`
//! (a sliding window), and the throttled "last used" bookkeeping.

use crate::auth::rate_limit::SlidingWindow;
use crate::store::api_tokens::Presented;
use crate::store::users::UserId;
use crate::store::ChangeStamp;
use chrono::{DateTime, Duration, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

pub const PREFIX: &str = "csk_";

/// The lifetimes a token may have, in days; `None` is "never expires".
pub const LIFETIMES: [u32; 3] = [30, 90, 365];

/// A new token: `csk_` and 64 lowercase hex digits (256 random bits).
pub fn generate() -> String {
    format!("{PREFIX}{}", super::secrets::random_hex(32))
}

/// Whether `s` has the exact token format (lowercase hex only).
pub fn is_well_formed(s: &str) -> bool {
    s.strip_prefix(PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A token just created: the only time the token itself is shown.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    #[serde(flatten)]
    pub record: crate::store::api_tokens::ApiToken,
    pub token: String,
}

/// Creates a token for `user_id` (the `createApiToken` action and
/// `cashkeeper token create`); refused past `store::Cap::ApiTokens`.
pub fn create_for(
    c: &rusqlite::Connection,
    user_id: &UserId,
    name: &str,
    days: Option<u32>,
    now: DateTime<Utc>,
) -> crate::error::Result<Created> {
    crate::store::Cap::ApiTokens.check(c, user_id)?;
    let token = generate();
    let expires = days.map(|d| crate::clock::timestamp(now + Duration::days(i64::from(d))));
    let record = crate::store::api_tokens::insert(
        c,
        user_id,
        name,
        &super::secrets::sha256_hex(&token),
        &crate::clock::timestamp(now),
        expires.as_deref(),
    )?;
    Ok(Created { record, token })
}

/// Known tokens by hash, with the database fingerprint they were read at:
/// a token is taken from memory only while no process has committed
/// anything since (so a revocation, a deleted user or any write is seen on
/// the next request).
#[derive(Default)]
pub struct TokenCache {
    map: Mutex<HashMap<String, (ChangeStamp, Presented)>>,
}

/// Tokens kept at most; beyond it the cache starts over.
const MAX_CACHED: usize = 10_000;

impl TokenCache {
    /// The token with this hash, if it was read at `stamp`.
    pub fn get(&self, hash: &str, stamp: ChangeStamp) -> Option<Presented> {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get(hash)
            .filter(|(s, _)| *s == stamp)
            .map(|(_, p)| p.clone())
    }

    pub fn put(&self, hash: &str, stamp: ChangeStamp, presented: Presented) {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_CACHED {
            map.clear();
        }
        map.insert(hash.to_string(), (stamp, presented));
    }

    /// Forgets every token: after a revocation or a change of a user's
    /// settings, whatever the file system's timestamps say.
    pub fn clear(&self) {
        self.map.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }
}

/// "Last used" is written at most this often per token.
const TOUCH_EVERY: Duration = Duration::seconds(60);
/// Tokens tracked at most; beyond it, idle ones are forgotten.
const MAX_TRACKED: usize = 10_000;

/// Held in the shared state: per token, the times of its requests in the
/// last minute, and when "last used" was last written.
#[derive(Default)]
pub struct ApiGuard {
    windows: SlidingWindow,
    touched: Mutex<HashMap<String, DateTime<Utc>>>,
}

impl ApiGuard {
    /// Counts a request of `token_id` at `now` if fewer than `limit` were made
    /// in the preceding minute; otherwise answers the whole seconds until a
    /// slot frees (1 to 60) and does not count it.
    pub fn admit(&self, token_id: &str, limit: u32, now: DateTime<Utc>) -> Result<(), i64> {
        self.windows.admit(token_id, limit, now)
    }

    /// Whether "last used" of `token_id` is due to be written at `now` (and
    /// marks it written).
    pub fn touch_due(&self, token_id: &str, now: DateTime<Utc>) -> bool {
        let mut map = self.touched.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() >= MAX_TRACKED {
            map.retain(|_, t| now - *t < TOUCH_EVERY);
        }
        match map.get(token_id) {
            Some(t) if now - *t < TOUCH_EVERY => false,
            _ => {
                map.insert(token_id.to_string(), now);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_have_the_documented_format() {
        let t = generate();
        assert!(is_well_formed(&t), "{t}");
        assert_eq!(t.len(), 68);
        assert!(!is_well_formed(&t.to_uppercase()));
        assert!(!is_well_formed(&format!("csk_{}", "A".repeat(64))));
        assert!(!is_well_formed(&format!("csk_{}", "a".repeat(63))));
        assert!(!is_well_formed(&format!("csk_{}", "a".repeat(65))));
        assert!(!is_well_formed(&format!("cks_{}", "a".repeat(64))));
        assert!(!is_well_formed(&format!("csk_{}", "g".repeat(64))));
    }

    #[test]
    fn last_used_is_written_at_most_once_a_minute() {
        let g = ApiGuard::default();
        let t0 = Utc::now();
        assert!(g.touch_due("a", t0));
        assert!(!g.touch_due("a", t0 + Duration::seconds(59)));
        assert!(g.touch_due("a", t0 + Duration::seconds(60)));
    }
}
