//! Browser sessions: a random cookie, stored only as its SHA-256, with a
//! 30-day sliding expiry.
//!
//! The router's session middleware resolves the session once per request
//! ([`resolve`]) and leaves a [`Session`] in the request's extensions;
//! pages and actions read it from there.

use crate::clock::{timestamp, Clock};
use crate::config::Config;
use crate::error::Result;
use crate::store::{sessions, users::User, Db};
use axum::http::{header, HeaderMap};
use chrono::Duration;

pub const COOKIE: &str = "cashkeeper_session";
/// How long a session lives without use.
pub const LIFETIME: Duration = Duration::days(30);
/// How often at most a session's expiry is pushed forward (one write an hour,
/// not one per request).
const TOUCH_EVERY: Duration = Duration::hours(1);

/// The signed-in user of this request.
#[derive(Clone, Debug)]
pub struct Session {
    /// The session's public id (`listSessions`).
    pub id: String,
    pub user: User,
    /// SHA-256 of the cookie value, the session's key in the database.
    pub token_hash: String,
}

/// The cookie value of `name` in the request's `Cookie` headers.
pub fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k == name).then_some(v)
        })
}

/// A `Set-Cookie` value of the service: `HttpOnly`, `SameSite=Lax`, and
/// `Secure` when the service is reached over https.
pub fn cookie(config: &Config, name: &str, value: &str, path: &str, max_age: i64) -> String {
    format!(
        "{name}={value}; Path={path}; HttpOnly; SameSite=Lax; Max-Age={max_age}{}",
        if config.secure_cookies() {
            "; Secure"
        } else {
            ""
        }
    )
}

/// The cookie a browser keeps after a right password: it names no session
/// and opens nothing, but a sign-in that carries it for the same account is
/// not held back by the per-client limit, so one member of a household
/// guessing behind the shared router cannot lock the others out.
pub const KNOWN_COOKIE: &str = "cashkeeper_known";
/// How long a browser stays known after its last right password.
const KNOWN_LIFETIME: Duration = Duration::days(400);

/// The value of [`KNOWN_COOKIE`] for the account `email_key` (lower-cased):
/// a keyed hash, so it cannot be made up for another account.
pub fn known_value(sealer: &crate::auth::sealed::Sealer, email_key: &str) -> String {
    sealer.fingerprint(&format!("known-browser:{email_key}"))
}

/// Whether the request's [`KNOWN_COOKIE`] is the one of `email_key`,
/// compared in constant time.
pub fn is_known(
    sealer: &crate::auth::sealed::Sealer,
    cookie: Option<&str>,
    email_key: &str,
) -> bool {
    cookie.is_some_and(|given| {
        crate::auth::secrets::constant_time_eq(given, &known_value(sealer, email_key))
    })
}

/// The `Set-Cookie` value that marks this browser as known for `email_key`.
pub fn set_known_cookie(
    config: &Config,
    sealer: &crate::auth::sealed::Sealer,
    email_key: &str,
) -> String {
    cookie(
        config,
        KNOWN_COOKIE,
        &known_value(sealer, email_key),
        "/",
        KNOWN_LIFETIME.num_seconds(),
    )
}

/// The `Set-Cookie` value that stores `token` for [`LIFETIME`].
pub fn set_cookie(config: &Config, token: &str) -> String {
    cookie(config, COOKIE, token, "/", LIFETIME.num_seconds())
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(config: &Config) -> String {
    cookie(config, COOKIE, "", "/", 0)
}

/// How a session was started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// The password (and the second factor when it is on), or sign-up.
    Password,
    /// The OpenID provider.
    Provider,
}

/// Starts a session for `user_id` in the browser that sent `user_agent`;
/// returns the cookie value to send.
pub async fn start(
    db: &Db,
    clock: &Clock,
    user_id: crate::store::users::UserId,
    user_agent: &str,
    via: Via,
) -> Result<String> {
    let token = crate::auth::secrets::random_hex(32);
    let hash = crate::auth::secrets::sha256_hex(&token);
    let now = clock.now();
    let (now_s, exp) = (timestamp(now), timestamp(now + LIFETIME));
    let agent = user_agent.to_string();
    db.run(move |c| {
        sessions::insert(
            c,
            &sessions::NewSession {
                token_hash: &hash,
                user_id: &user_id,
                now: &now_s,
                expires_at: &exp,
                user_agent: &agent,
                via_provider: via == Via::Provider,
            },
        )
    })
    .await?;
    Ok(token)
}

/// A sign-in through the OpenID provider of an account with two-factor
/// sign-in continues on the login page with the code; this cookie (path
/// `/login`) carries the challenge there.
pub const CHALLENGE_COOKIE: &str = "cashkeeper_challenge";

/// How long the second step of a sign-in may wait after the first.
pub const CHALLENGE_LIFETIME: Duration = Duration::minutes(5);

/// After a right first step (the password, or the OpenID provider) of a
/// user with two-factor sign-in: a single-use challenge for `loginTotp`,
/// valid for [`CHALLENGE_LIFETIME`]. Only its hash is stored.
pub async fn challenge(
    db: &Db,
    clock: &Clock,
    user_id: crate::store::users::UserId,
    via: Via,
) -> Result<String> {
    let token = crate::auth::secrets::random_hex(32);
    let hash = crate::auth::secrets::sha256_hex(&token);
    let now = clock.now();
    let (now_s, exp) = (timestamp(now), timestamp(now + CHALLENGE_LIFETIME));
    db.transaction(move |tx| {
        crate::store::two_factor::insert_challenge(
            tx,
            &hash,
            &user_id,
            &now_s,
            &exp,
            via == Via::Provider,
        )
    })
    .await?;
    Ok(token)
}

/// Looks the session of a cookie value up, on the connections kept for
/// lookups ([`Db::lookup`]); slides its expiry when due and says so, so the
/// caller can renew the cookie too. When the write lock is taken the slide
/// is left for a later request. An error is never "no session": the caller
/// answers it (503 busy when the lookup could not run).
pub async fn resolve(db: &Db, clock: &Clock, token: &str) -> Result<Option<(Session, bool)>> {
    let hash = crate::auth::secrets::sha256_hex(token);
    let now = clock.now();
    db.lookup(move |c| {
        let Some(live) = sessions::find_live(c, &hash, &timestamp(now))? else {
            return Ok(None);
        };
        let mut due = crate::clock::parse_timestamp(&live.last_seen_at)
            .is_none_or(|seen| now - seen >= TOUCH_EVERY);
        if due {
            match sessions::touch(c, &hash, &timestamp(now), &timestamp(now + LIFETIME)) {
                Ok(()) => {}
                Err(e) if e.is_busy() => due = false,
                Err(e) => return Err(e),
            }
        }
        Ok(Some((
            Session {
                id: live.id,
                user: live.user,
                token_hash: hash,
            },
            due,
        )))
    })
    .await
}
