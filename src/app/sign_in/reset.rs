//! A forgotten password: the reset link by mail, and the new password set
//! through it.

use super::{end_old_credentials, passwords_allowed, Client};
use crate::auth::{password, secrets};
use crate::clock::timestamp;
use crate::domain::email::Email;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::{password_resets, users};
use chrono::Duration;

/// How long a reset link works.
pub const RESET_LIFETIME: Duration = Duration::hours(1);
/// Reset mails per address and hour, so the form cannot flood a mailbox.
const RESETS_PER_HOUR: i64 = 3;

/// Answers the same for known and unknown addresses, at once: looking the
/// address up, storing the link and sending the mail (or log line) all
/// happen in the background, so neither the answer's timing nor a failure
/// tells whether the address is registered.
pub fn forgot_password(state: &AppState, email: &str) -> Result<()> {
    let state = state.clone();
    passwords_allowed(&state)?;
    let email = Email::parse("email", email)?;
    let lookup = email.key();
    tokio::spawn(async move {
        let token = secrets::random_hex(32);
        let hash = secrets::sha256_hex(&token);
        let now = state.clock.now();
        let (now_s, exp_s) = (timestamp(now), timestamp(now + RESET_LIFETIME));
        let hour_ago = timestamp(now - Duration::hours(1));
        let user = state
            .db
            .transaction(move |tx| {
                let Some(user) = users::find_by_email(tx, &lookup)? else {
                    return Ok(None);
                };
                if password_resets::count_since(tx, &user.id, &hour_ago)? >= RESETS_PER_HOUR {
                    tracing::warn!(user_id = %user.id, "password reset requested too often; not sent");
                    return Ok(None);
                }
                password_resets::delete_stale(tx, &now_s)?;
                password_resets::insert(tx, &hash, &user.id, &now_s, &exp_s)?;
                Ok(Some(user))
            })
            .await;
        match user {
            Ok(Some(user)) => {
                let link = format!("{}/reset-password?token={token}", state.config.base_url);
                if let Err(e) = state.mailer.send_reset(&user, &link).await {
                    tracing::error!(user_id = %user.id, error = %e, "password-reset mail failed");
                }
            }
            Ok(None) => {}
            Err(e) => e.log(),
        }
    });
    Ok(())
}

/// Sets a new password from a reset link. The link is used up, every other
/// link and every session of the user ends (but the caller's own, if it is
/// the same user's): whoever knew the old password is signed out.
pub async fn reset_password(
    state: &AppState,
    client: &Client<'_>,
    token: &str,
    new_password: String,
    revoke_tokens: bool,
) -> Result<()> {
    passwords_allowed(state)?;
    password::check_rule("password", &new_password)?;
    let token = token.trim();
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::invalid("token", Reason::InvalidOrExpired));
    }
    let token_hash = secrets::sha256_hex(&token.to_ascii_lowercase());
    let now = timestamp(state.clock.now());
    // Cheap check first: a dead link costs no password hashing.
    let (check_hash, check_now) = (token_hash.clone(), now.clone());
    let usable = state
        .db
        .run(move |c| password_resets::is_usable(c, &check_hash, &check_now))
        .await?;
    if !usable {
        return Err(Error::invalid("token", Reason::InvalidOrExpired));
    }
    let hash = password::hash(new_password).await?;
    let current = client
        .session
        .map(|s| (s.user.id.clone(), s.token_hash.clone()));
    state
        .db
        .transaction(move |tx| {
            let user_id = password_resets::consume(tx, &token_hash, &now)?
                .ok_or_else(|| Error::invalid("token", Reason::InvalidOrExpired))?;
            crate::app::users::new_password(tx, &user_id, &hash, &now)?;
            let keep = current
                .as_ref()
                .filter(|(uid, _)| *uid == user_id)
                .map(|(_, hash)| hash.as_str());
            end_old_credentials(tx, &user_id, keep, revoke_tokens, &now)?;
            tracing::info!(%user_id, "password reset");
            Ok(())
        })
        .await?;
    state.token_cache.clear();
    Ok(())
}

/// Whether the reset link of `token` can still set a password (the page
/// says so before asking for one).
pub async fn reset_link_usable(state: &AppState, token: &str) -> bool {
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let hash = secrets::sha256_hex(&token.to_ascii_lowercase());
    let now = timestamp(state.clock.now());
    state
        .db
        .run(move |c| password_resets::is_usable(c, &hash, &now))
        .await
        .unwrap_or(false)
}
