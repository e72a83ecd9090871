//! `/api/auth/oidc/*`: single sign-on through the configured OpenID
//! provider (`docs/sign-in.md`). Both routes are plain browser navigations
//! (they work without JavaScript) and answer with redirects: to the
//! provider, to the app once signed in, or back to the login page with the
//! reason (`/login?sso=…`).

use crate::app::sign_in;
use crate::app::single_sign_on::{self, Callback, Outcome};
use crate::auth::oidc::{self, Refusal};
use crate::auth::session;
use crate::config::Config;
use crate::domain::locale::Locale;
use crate::state::AppState;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

fn pending_cookie(config: &Config, value: &str, max_age: i64) -> String {
    session::cookie(config, oidc::COOKIE, value, "/api/auth/oidc", max_age)
}

/// A 303 to `location` with the given cookies.
fn redirect(location: &str, cookies: &[String]) -> Response {
    let mut res = StatusCode::SEE_OTHER.into_response();
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(location) {
        h.insert(header::LOCATION, v);
    }
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(c) {
            h.append(header::SET_COOKIE, v);
        }
    }
    res
}

fn to_login(refusal: Refusal, cookies: &[String]) -> Response {
    redirect(&format!("/login?sso={}", refusal.code()), cookies)
}

fn not_configured() -> Response {
    super::error(StatusCode::NOT_FOUND, "single sign-on is not configured")
}

#[derive(Deserialize)]
pub struct StartQuery {
    /// The page to open once signed in (`/settings`, say); only a path on
    /// this site is kept.
    #[serde(rename = "return")]
    return_to: Option<String>,
}

/// `GET /api/auth/oidc/start`: off to the provider, with this browser's
/// sealed `state`, `nonce` and PKCE verifier in a cookie.
pub async fn start(
    State(state): State<AppState>,
    query: Result<Query<StartQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Some(provider) = &state.oidc else {
        return not_configured();
    };
    let return_to = query.ok().and_then(|Query(q)| q.return_to);
    match provider
        .begin(state.clock.now().timestamp(), return_to.as_deref())
        .await
    {
        Ok((url, pending)) => redirect(
            &url,
            &[pending_cookie(
                &state.config,
                &pending.seal(&state.sealer),
                oidc::PENDING_LIFETIME.as_secs() as i64,
            )],
        ),
        Err(refusal) => to_login(refusal, &[]),
    }
}

#[derive(Deserialize, Default)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /api/auth/oidc/callback`: the provider sends the browser back here
/// with a code; a session starts when every check passes. The started
/// sign-in's cookie is removed either way.
pub async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<CallbackQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    if state.oidc.is_none() {
        return not_configured();
    }
    let clear = pending_cookie(&state.config, "", 0);
    let q = query.map(|Query(q)| q).unwrap_or_default();
    let callback = Callback {
        pending: session::cookie_value(&headers, oidc::COOKIE).map(str::to_string),
        state: q.state,
        code: q.code,
        error: q.error,
        error_description: q.error_description,
        old_session: session::cookie_value(&headers, session::COOKIE).map(str::to_string),
    };
    let client = sign_in::Client {
        user_agent: header_str(&headers, header::USER_AGENT).unwrap_or(""),
        ..sign_in::Client::default()
    };
    let locale = Locale::from_accept_language(header_str(&headers, header::ACCEPT_LANGUAGE));
    match single_sign_on::finish(&state, callback, &client, locale).await {
        Ok(Outcome::SignedIn { token, return_to }) => redirect(
            &return_to,
            &[clear, session::set_cookie(&state.config, &token)],
        ),
        Ok(Outcome::SecondFactor { challenge }) => redirect(
            "/login?step=code",
            &[clear, challenge_cookie(&state.config, &challenge)],
        ),
        Err(refusal) => to_login(refusal, &[clear]),
    }
}

/// The cookie that hands a second-factor challenge to the login page
/// (`session::CHALLENGE_COOKIE`), for as long as the challenge lives.
fn challenge_cookie(config: &Config, challenge: &str) -> String {
    session::cookie(
        config,
        session::CHALLENGE_COOKIE,
        challenge,
        "/login",
        session::CHALLENGE_LIFETIME.num_seconds(),
    )
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}
