//! Browser sessions: a random cookie, stored only as its SHA-256, with a
//! 30-day sliding expiry.
//!
//! [`layer`] resolves the session once per request and leaves a [`Session`]
//! in the request's extensions; pages and actions read it from there.

use crate::app::AppState;
use crate::clock::timestamp;
use crate::error::Result;
use crate::store::{sessions, users::User};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
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

/// The `Set-Cookie` value that stores `token` for [`LIFETIME`].
pub fn set_cookie(state: &AppState, token: &str) -> String {
    format!(
        "{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{}",
        LIFETIME.num_seconds(),
        if state.config.secure_cookies() {
            "; Secure"
        } else {
            ""
        }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(state: &AppState) -> String {
    format!(
        "{COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{}",
        if state.config.secure_cookies() {
            "; Secure"
        } else {
            ""
        }
    )
}

/// Starts a session for `user_id`; returns the cookie value to send.
pub async fn start(state: &AppState, user_id: String) -> Result<String> {
    let token = crate::auth::secrets::random_hex(32);
    let hash = crate::auth::secrets::sha256_hex(&token);
    let now = state.clock.now();
    let (now_s, exp) = (timestamp(now), timestamp(now + LIFETIME));
    state
        .db
        .run(move |c| sessions::insert(c, &hash, &user_id, &now_s, &exp))
        .await?;
    Ok(token)
}

/// Looks the session up; slides its expiry when due and says so, so the
/// caller can renew the cookie too.
async fn resolve(state: &AppState, token: &str) -> Result<Option<(Session, bool)>> {
    let hash = crate::auth::secrets::sha256_hex(token);
    let now = state.clock.now();
    state
        .db
        .run(move |c| {
            let Some(live) = sessions::find_live(c, &hash, &timestamp(now))? else {
                return Ok(None);
            };
            let due = crate::clock::parse_timestamp(&live.last_seen_at)
                .is_none_or(|seen| now - seen >= TOUCH_EVERY);
            if due {
                sessions::touch(c, &hash, &timestamp(now), &timestamp(now + LIFETIME))?;
            }
            Ok(Some((
                Session {
                    user: live.user,
                    token_hash: hash,
                },
                due,
            )))
        })
        .await
}

/// Middleware: resolves the session cookie (if any) into a [`Session`]
/// extension and renews the cookie when the expiry slid forward.
pub async fn layer(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    // The REST API authenticates by token and assets need no user: no lookup.
    let skip = path.starts_with("/assets/") || path.starts_with("/api/v1/");
    let token = if skip {
        None
    } else {
        cookie_value(req.headers(), COOKIE)
            .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_owned)
    };
    let mut renew = None;
    if let Some(token) = token {
        match resolve(&state, &token).await {
            Ok(Some((session, slid))) => {
                if slid {
                    renew = Some(token);
                }
                req.extensions_mut().insert(session);
            }
            Ok(None) => {}
            Err(e) => e.log(),
        }
    }
    let mut res = next.run(req).await;
    if let Some(token) = renew {
        // An action that ended or replaced the session has set its own cookie.
        if !res.headers().contains_key(header::SET_COOKIE) {
            if let Ok(v) = HeaderValue::from_str(&set_cookie(&state, &token)) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
        }
    }
    res
}
