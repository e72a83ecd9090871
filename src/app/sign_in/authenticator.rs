//! Two-factor sign-in with an authenticator app (`docs/sign-in.md`):
//! setting it up, turning it on with a code, and off again.

use super::{check_password, check_second_factor, confirm_password, Client};
use crate::auth::totp;
use crate::clock::timestamp;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::{sessions, two_factor};
use serde::Serialize;

/// A new app's secret, as text, `otpauth://` address and QR code.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    pub secret: String,
    pub otpauth_url: String,
    pub qr_svg: String,
}

/// A new secret for the signed-in user, shown as text, `otpauth://`
/// address and QR code; nothing changes at sign-in until `enableTotp`
/// confirms a code from the app. The password is asked first (as for an
/// API token): an open session alone must not bind a stranger's app, which
/// would sign out every other browser and lock the owner out.
pub async fn begin_setup(state: &AppState, client: &Client<'_>, password: String) -> Result<Setup> {
    confirm_password(state, client, "password", password).await?;
    let user = &client.session.ok_or(Error::Unauthorized)?.user;
    let secret = totp::new_secret();
    let sealed = state.sealer.seal(&secret);
    let id = user.id.clone();
    let started = state
        .db
        .transaction(move |tx| {
            if two_factor::is_on(tx, &id)? {
                return Ok(false);
            }
            two_factor::set_pending(tx, &id, &sealed)?;
            Ok(true)
        })
        .await?;
    if !started {
        return Err(Error::refused(Reason::TwoFactorOnTurnOffFirst));
    }
    let url = totp::otpauth_url(&user.email, &secret);
    Ok(Setup {
        secret: totp::to_base32(&secret),
        qr_svg: totp::qr_svg(&url),
        otpauth_url: url,
    })
}

/// Confirms the app with one of its codes: two-factor sign-in is on, ten
/// recovery codes are answered (once; only their hashes are kept), and
/// every other session of the user ends.
pub async fn enable(state: &AppState, client: &Client<'_>, code: &str) -> Result<Vec<String>> {
    let session = client.session.ok_or(Error::Unauthorized)?;
    let id = session.user.id.clone();
    let current = state
        .db
        .run({
            let id = id.clone();
            move |c| two_factor::get(c, &id)
        })
        .await?;
    if current.secret.is_some() {
        return Err(Error::refused(Reason::TwoFactorOn));
    }
    let Some(pending) = current.pending else {
        return Err(Error::refused(Reason::SetupNotStarted));
    };
    let secret = state
        .sealer
        .open(&pending)
        .ok_or_else(|| Error::refused(Reason::SetupExpired))?;
    let Some(step) = totp::verify(&secret, code, state.clock.now().timestamp(), None) else {
        return Err(Error::invalid("code", Reason::NotCurrentCode));
    };
    let codes = totp::new_recovery_codes();
    let hashes: Vec<String> = codes
        .iter()
        .map(|c| state.sealer.fingerprint(&totp::normalize_recovery_code(c)))
        .collect();
    let now = timestamp(state.clock.now());
    let keep = session.token_hash.clone();
    let enabled = state
        .db
        .transaction(move |tx| {
            if !two_factor::enable(tx, &id, &pending, step, &hashes, &now)? {
                return Ok(false);
            }
            let ended = sessions::delete_all_for_user(tx, &id, Some(&keep))?;
            tracing::info!(user_id = %id, other_sessions_ended = ended, "two-factor sign-in on");
            Ok(true)
        })
        .await?;
    if !enabled {
        return Err(Error::refused(Reason::SetupChanged));
    }
    Ok(codes)
}

/// Two-factor sign-in off, with the password and a code (or a recovery
/// code). Wrong answers count against the sign-in limits.
pub async fn disable(
    state: &AppState,
    client: &Client<'_>,
    password: String,
    code: &str,
) -> Result<()> {
    // One attempt for both: a right password alone does not clear the count,
    // so codes cannot be guessed behind it.
    let attempt = check_password(state, client, "password", password).await?;
    let user = &client.session.ok_or(Error::Unauthorized)?.user;
    if !check_second_factor(state, &user.id, code).await? {
        return Err(Error::invalid("code", Reason::NotACode));
    }
    attempt.succeeded();
    let id = user.id.clone();
    state
        .db
        .transaction(move |tx| two_factor::disable(tx, &id))
        .await?;
    tracing::info!(user_id = %user.id, "two-factor sign-in off");
    Ok(())
}
