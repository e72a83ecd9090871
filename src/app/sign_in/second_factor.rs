//! The second step of a sign-in for users with two-factor sign-in on.

use super::{check_second_factor, start, Client, SignedIn};
use crate::auth::{secrets, session};
use crate::clock::timestamp;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::{two_factor, users};

const CHALLENGE_GONE: Reason = Reason::ChallengeGone;

/// The second step of `login`: a code from the app or an unused recovery
/// code, with the challenge `login` answered. Signs in exactly like
/// `login`. Wrong codes count against the same limits as wrong passwords.
pub async fn login_totp(
    state: &AppState,
    client: &Client<'_>,
    challenge: &str,
    code: &str,
) -> Result<SignedIn> {
    let token = challenge.trim().to_ascii_lowercase();
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::invalid("challenge", CHALLENGE_GONE));
    }
    let hash = secrets::sha256_hex(&token);
    let now = timestamp(state.clock.now());
    let (h, n) = (hash.clone(), now.clone());
    let (user_id, via_provider) = state
        .db
        .run(move |c| two_factor::challenge_user(c, &h, &n))
        .await?
        .ok_or_else(|| Error::invalid("challenge", CHALLENGE_GONE))?;
    let id = user_id.clone();
    let user = state
        .db
        .run(move |c| users::find(c, &id))
        .await?
        .ok_or_else(|| Error::invalid("challenge", CHALLENGE_GONE))?;
    // Counted like the password step was (see `Client::limited_as`).
    let limited_as = client.limited_as(state, &user.email.to_lowercase());
    let attempt = state
        .sign_in
        .begin(&user.email.to_lowercase(), limited_as, state.clock.now())
        .map_err(|r| Error::refused(r.reason()))?;
    if !check_second_factor(state, &user_id, code).await? {
        return Err(Error::invalid("code", Reason::NotACode));
    }
    let (h, n) = (hash, now);
    let id = user_id.clone();
    let consumed = state
        .db
        .transaction(move |tx| {
            if users::is_disabled(tx, &id)? {
                return Err(Error::refused(Reason::AccountDisabled));
            }
            two_factor::consume_challenge(tx, &h, &n)
        })
        .await?;
    if !consumed {
        return Err(Error::invalid("challenge", CHALLENGE_GONE));
    }
    attempt.succeeded();
    let via = if via_provider {
        session::Via::Provider
    } else {
        // The password step's attempt stayed counted until now.
        state
            .sign_in
            .forgive(&user.email.to_lowercase(), limited_as);
        session::Via::Password
    };
    start(state, user, via, client).await
}
