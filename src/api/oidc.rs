//! `/api/auth/oidc/*`: single sign-on through the configured OpenID
//! provider (`docs/sign-in.md`). Both routes are plain browser navigations
//! (they work without JavaScript) and answer with redirects: to the
//! provider, to the app once signed in, or back to the login page with the
//! reason (`/login?sso=…`).

use crate::app::sign_in::{self, Ending};
use crate::auth::oidc::{self, Newcomer, Pending, Refusal};
use crate::auth::session;
use crate::clock::timestamp;
use crate::config::Config;
use crate::domain::email::Email;
use crate::domain::locale::Locale;
use crate::state::AppState;
use crate::store::users;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// Longer `code` or `state` values than this are not a provider's.
const MAX_PARAM: usize = 4096;

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
    match finish(&state, &headers, q).await {
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

/// How a callback that passed every check goes on.
enum Outcome {
    SignedIn {
        token: String,
        return_to: String,
    },
    /// Two-factor sign-in is on: the code is asked next (`loginTotp`).
    SecondFactor {
        challenge: String,
    },
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The checks of a callback in order, then a session or the second step.
async fn finish(
    state: &AppState,
    headers: &HeaderMap,
    q: CallbackQuery,
) -> Result<Outcome, Refusal> {
    let provider = state.oidc.as_ref().ok_or(Refusal::Unavailable)?;
    let pending = session::cookie_value(headers, oidc::COOKIE)
        .and_then(|c| Pending::open(&state.sealer, c, state.clock.now().timestamp()))
        .ok_or(Refusal::State)?;
    let given_state = q.state.as_deref().unwrap_or("");
    if given_state.len() > MAX_PARAM || !pending.state_matches(given_state) {
        return Err(Refusal::State);
    }
    if let Some(error) = q.error {
        let detail: String = q
            .error_description
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let error: String = error.chars().take(100).collect();
        tracing::info!(%error, %detail, "the OpenID provider did not sign the user in");
        return Err(Refusal::Provider);
    }
    let code = q.code.filter(|c| !c.is_empty() && c.len() <= MAX_PARAM);
    let code = code.ok_or(Refusal::Token)?;
    let return_to = pending.return_to().to_string();
    let identity = provider.finish(pending, &code).await?;

    let email = match identity.email.as_deref().map(|e| Email::parse("email", e)) {
        Some(Ok(e)) => Some(e),
        // An address cashkeeper would not accept cannot match or create one.
        Some(Err(_)) | None => None,
    };
    let email_key = email.as_ref().map(|e| e.key());
    let locale = Locale::from_accept_language(header_str(headers, header::ACCEPT_LANGUAGE));
    let name: String = identity
        .name
        .as_deref()
        .unwrap_or("")
        .trim()
        .chars()
        .take(100)
        .collect();
    let registration = state.config.registration;
    let now = timestamp(state.clock.now());

    // First without a new account's password hash (hashing is slow and
    // rarely needed); again with one when the user is new and may join.
    let mut password_hash: Option<String> = None;
    let user = loop {
        let (id, key, hash, name, now) = (
            identity.clone(),
            email_key.clone(),
            password_hash.clone(),
            name.clone(),
            now.clone(),
        );
        let address = email.as_ref().map(|e| e.as_str().to_string());
        let found = state
            .db
            .transaction(move |tx| {
                let newcomer = match (&hash, &address) {
                    (Some(h), Some(a)) => Some(Newcomer {
                        email: a,
                        name: &name,
                        password_hash: h,
                        locale,
                    }),
                    _ => None,
                };
                let found = oidc::user_for(tx, &id, key.as_deref(), registration, newcomer, &now)?;
                // A password hash for a new account is worth making only
                // when one may be made.
                let may_join = matches!(found, Err(Refusal::NoAccount))
                    && registration.admits(|| users::count(tx))?;
                Ok((found, may_join))
            })
            .await
            .map_err(|e| {
                tracing::error!("single sign-on: {e}");
                Refusal::Unavailable
            })?;
        match found {
            (Err(Refusal::NoAccount), true) if password_hash.is_none() => {
                // Nobody knows this password: the account signs in through
                // the provider (or sets a password with "forgot password").
                let random = crate::auth::secrets::random_hex(32);
                password_hash = Some(crate::auth::password::hash(random).await.map_err(|e| {
                    tracing::error!("single sign-on: {e}");
                    Refusal::Unavailable
                })?);
            }
            (other, _) => break other?,
        }
    };
    if password_hash.is_some() {
        tracing::info!(user_id = %user.id, "user registered through single sign-on");
    }
    let fail = |e: crate::Error| {
        tracing::error!("single sign-on: {e}");
        Refusal::Unavailable
    };
    let agent = header_str(headers, header::USER_AGENT).unwrap_or("");
    let client = sign_in::Client {
        user_agent: agent,
        ..sign_in::Client::default()
    };
    // The provider vouched for who it is; cashkeeper's own second factor
    // is still asked, as after a password.
    let user_id = user.id.clone();
    let token = match sign_in::end(state, user, session::Via::Provider, &client)
        .await
        .map_err(fail)?
    {
        Ending::SecondFactor { challenge } => return Ok(Outcome::SecondFactor { challenge }),
        Ending::SignedIn(signed) => signed.token,
    };
    tracing::info!(%user_id, "signed in through single sign-on");
    // A session this browser had before ends (its reminders move over when
    // it was the same user's): one browser, one session.
    if let Some(old) = session::cookie_value(headers, session::COOKIE) {
        let (old, new) = (
            crate::auth::secrets::sha256_hex(old),
            crate::auth::secrets::sha256_hex(&token),
        );
        state
            .db
            .transaction(move |tx| crate::store::sessions::hand_over(tx, &old, &new))
            .await
            .map_err(fail)?;
    }
    Ok(Outcome::SignedIn { token, return_to })
}
