//! How a sign-in ends, whichever way it began (a password, a password and
//! a second factor, a sign-up, single sign-on): a second factor is asked
//! when it is on, otherwise a session starts. And what every sensitive
//! change asks first: the password again, or a second factor. Setting up
//! an authenticator app is [`authenticator`]. See `docs/sign-in.md`.

pub mod authenticator;
mod reset;
mod second_factor;
mod with_password;

pub use reset::{forgot_password, reset_link_usable, reset_password};
pub use second_factor::login_totp;
pub use with_password::{login, passwords_allowed, register, registration_open};

use crate::auth::login_limit::Attempt;
use crate::auth::{password, session, totp};
use crate::clock::timestamp;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::users::{self, User, UserId};
use crate::store::{api_tokens, password_resets, sessions, two_factor};
use chrono::Duration;
use serde::Serialize;
use std::net::IpAddr;

/// The longest display name.
pub const NAME_MAX: usize = 100;

/// How long after a sign-in through the provider a sensitive change needs
/// no password from an account that has none.
pub const PROVIDER_CONFIRMS_FOR: Duration = Duration::minutes(10);

/// What a door knows of who asks.
#[derive(Clone, Copy, Default)]
pub struct Client<'a> {
    /// The client's address, for the per-client sign-in limit.
    pub address: Option<IpAddr>,
    /// The browser's `User-Agent`, kept with a new session.
    pub user_agent: &'a str,
    /// The browser's known-browser cookie (`auth::session::KNOWN_COOKIE`).
    pub known_browser: Option<&'a str>,
    /// The session the request came with, if any.
    pub session: Option<&'a session::Session>,
}

impl Client<'_> {
    /// The client address a password check of `email_key` counts against:
    /// none for a browser known to that account (a right password before)
    /// or for a signed-in session (bound to its account, so it cannot try
    /// other accounts), where the per-account limit still holds.
    pub fn limited_as(&self, state: &AppState, email_key: &str) -> Option<IpAddr> {
        let known = session::is_known(&state.sealer, self.known_browser, email_key);
        if known || self.session.is_some() {
            None
        } else {
            self.address
        }
    }
}

/// A session started: the user, the session's token, and how it began
/// (a door sets the cookies, `http::session::cookies`).
pub struct SignedIn {
    pub user: User,
    pub token: String,
    pub via: session::Via,
}

/// How a first sign-in step ends.
pub enum Ending {
    SignedIn(SignedIn),
    /// Two-factor sign-in is on: no session before the code, asked with
    /// this challenge (see `session::challenge`).
    SecondFactor {
        challenge: String,
    },
}

/// The end of a first step that proved who the user is (a right password,
/// the provider's word): the second factor when it is on, else a session.
pub async fn end(
    state: &AppState,
    user: User,
    via: session::Via,
    client: &Client<'_>,
) -> Result<Ending> {
    let id = user.id.clone();
    if state.db.run(move |c| two_factor::is_on(c, &id)).await? {
        let challenge = session::challenge(&state.db, &state.clock, user.id.clone(), via).await?;
        return Ok(Ending::SecondFactor { challenge });
    }
    Ok(Ending::SignedIn(start(state, user, via, client).await?))
}

/// Starts a session in this browser, with nothing more to ask.
pub async fn start(
    state: &AppState,
    user: User,
    via: session::Via,
    client: &Client<'_>,
) -> Result<SignedIn> {
    let token = session::start(
        &state.db,
        &state.clock,
        user.id.clone(),
        client.user_agent,
        via,
    )
    .await?;
    Ok(SignedIn { user, token, via })
}

/// Trims a display name and checks its length.
pub fn parse_name(field: &'static str, raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.chars().count() > NAME_MAX {
        return Err(Error::invalid(field, Reason::MaxChars(100)));
    }
    Ok(name.to_string())
}

async fn confirm_by_provider(
    state: &AppState,
    client: &Client<'_>,
    field: &'static str,
) -> Result<()> {
    let hash = client
        .session
        .ok_or(Error::Unauthorized)?
        .token_hash
        .clone();
    let started = state
        .db
        .run(move |c| sessions::provider_sign_in_at(c, &hash))
        .await?
        .and_then(|at| crate::clock::parse_timestamp(&at));
    let now = state.clock.now();
    match started {
        Some(at) if now - at <= PROVIDER_CONFIRMS_FOR => Ok(()),
        _ => Err(Error::invalid(field, Reason::SingleSignOnOnly)),
    }
}

/// Asks the signed-in user for their password again before a sensitive
/// change (a new API token, a new password). Wrong answers count against
/// the same limits as sign-ins, so a borrowed session cannot guess it.
///
/// An account made by signing in through the OpenID provider has no
/// password its owner knows: it confirms by a fresh sign-in through the
/// provider instead ([`PROVIDER_CONFIRMS_FOR`]), and `given` is ignored.
pub async fn confirm_password(
    state: &AppState,
    client: &Client<'_>,
    field: &'static str,
    given: String,
) -> Result<()> {
    check_password(state, client, field, given)
        .await?
        .succeeded();
    Ok(())
}

/// [`confirm_password`] for a change that asks for more than the password
/// (a code too): the attempt stays counted until the caller calls
/// `succeeded` with everything right, so a right password does not wipe
/// the failures of what is guessed behind it.
pub async fn check_password<'a>(
    state: &'a AppState,
    client: &Client<'_>,
    field: &'static str,
    given: String,
) -> Result<Attempt<'a>> {
    let user = &client.session.ok_or(Error::Unauthorized)?.user;
    let id = user.id.clone();
    let (known, phc) = state
        .db
        .run(move |c| Ok((users::has_password(c, &id)?, users::password_hash(c, &id)?)))
        .await?;
    let key = user.email.to_lowercase();
    if known && given.is_empty() {
        return Err(Error::invalid(field, Reason::Required));
    }
    let attempt = state
        .sign_in
        .begin(&key, client.limited_as(state, &key), state.clock.now())
        .map_err(|r| Error::invalid(field, r.reason()))?;
    if !known {
        confirm_by_provider(state, client, field).await?;
    } else if !password::verify(given, phc).await? {
        return Err(Error::invalid(field, Reason::NotYourPassword));
    }
    Ok(attempt)
}

/// Checks a TOTP code or an unused recovery code of `user_id`, and uses it
/// up: a TOTP step and a recovery code each work once.
pub async fn check_second_factor(state: &AppState, user_id: &UserId, given: &str) -> Result<bool> {
    let now_unix = state.clock.now().timestamp();
    let now = timestamp(state.clock.now());
    let id = user_id.clone();
    let stored = state.db.run(move |c| two_factor::get(c, &id)).await?;
    let Some(sealed) = stored.secret else {
        return Ok(false);
    };
    let id = user_id.clone();
    if totp::looks_like_code(given) {
        let Some(secret) = state.sealer.open(&sealed) else {
            tracing::error!(user_id = %user_id,
                "the two-factor secret cannot be opened: secrets.key in the data directory is not the one it was sealed with");
            return Err(Error::refused(Reason::SecretUnreadable));
        };
        let Some(step) = totp::verify(&secret, given, now_unix, stored.last_step) else {
            return Ok(false);
        };
        return state
            .db
            .transaction(move |tx| two_factor::use_step(tx, &id, step))
            .await;
    }
    let hash = state
        .sealer
        .fingerprint(&totp::normalize_recovery_code(given));
    state
        .db
        .transaction(move |tx| two_factor::use_recovery_code(tx, &id, &hash, &now))
        .await
}

/// What Settings shows of a user's two-factor sign-in.
#[derive(Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactorStatus {
    pub enabled: bool,
    pub enabled_at: Option<String>,
    pub recovery_codes_left: i64,
}

/// Ends the session of `token_hash` (signing out).
pub async fn sign_out(state: &AppState, token_hash: &str) -> Result<()> {
    let hash = token_hash.to_string();
    state
        .db
        .transaction(move |tx| sessions::delete(tx, &hash))
        .await
}

/// Whether the user has a password (an account made by single sign-on
/// has none until one is set).
pub async fn has_password(state: &AppState, user_id: &UserId) -> Result<bool> {
    let user = user_id.clone();
    state.db.run(move |c| users::has_password(c, &user)).await
}

pub async fn two_factor_status(state: &AppState, user_id: &UserId) -> Result<TwoFactorStatus> {
    let id = user_id.clone();
    state
        .db
        .run(move |c| {
            let t = two_factor::get(c, &id)?;
            Ok(TwoFactorStatus {
                enabled: t.secret.is_some(),
                enabled_at: t.enabled_at,
                recovery_codes_left: two_factor::recovery_codes_left(c, &id)?,
            })
        })
        .await
}

/// After a password reset or change: every other reset link ends, every
/// session but `keep` ends, and with `revoke_tokens` every API token too.
pub fn end_old_credentials(
    tx: &rusqlite::Connection,
    user_id: &UserId,
    keep: Option<&str>,
    revoke_tokens: bool,
    now: &str,
) -> Result<()> {
    password_resets::delete_all_for_user(tx, user_id)?;
    sessions::delete_all_for_user(tx, user_id, keep)?;
    if revoke_tokens {
        let n = api_tokens::revoke_all_for_user(tx, user_id, now)?;
        tracing::info!(%user_id, revoked = n, "API tokens revoked with the password change");
    }
    Ok(())
}
