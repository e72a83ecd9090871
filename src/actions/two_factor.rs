//! Two-factor sign-in with an authenticator app (docs/sign-in.md):
//! `beginTotpSetup`, `enableTotp`, `disableTotp`, and `loginTotp`, the
//! second step of `login` for users who turned it on.

use super::{Ctx, Registry, Reply};
use crate::app::sign_in::{self, check_second_factor};
use crate::auth::totp;
use crate::clock::timestamp;
use crate::error::{Error, Result};
use crate::store::{sessions, two_factor};
use serde::Deserialize;
use serde_json::json;

pub fn register(r: &mut Registry) {
    r.session("beginTotpSetup", begin_setup);
    r.session("enableTotp", enable);
    r.session("disableTotp", disable);
    r.public("loginTotp", login_totp);
}

fn unix(ctx: &Ctx) -> i64 {
    ctx.state.clock.now().timestamp()
}

#[derive(Deserialize)]
struct BeginInput {
    #[serde(default)]
    password: String,
}

/// A new secret for the signed-in user, shown as text, `otpauth://`
/// address and QR code; nothing changes at sign-in until `enableTotp`
/// confirms a code from the app. The password is asked first (as for an
/// API token): an open session alone must not bind a stranger's app, which
/// would sign out every other browser and lock the owner out.
async fn begin_setup(ctx: Ctx, input: BeginInput) -> Result<Reply> {
    sign_in::confirm_password(&ctx.state, &ctx.client(), "password", input.password).await?;
    let user = ctx.user()?.clone();
    let secret = totp::new_secret();
    let sealed = ctx.state.sealer.seal(&secret);
    let id = user.id.clone();
    let started = ctx
        .state
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
        return Err(Error::refused(
            "two-factor sign-in is already on; turn it off first to set up another app",
        ));
    }
    let url = totp::otpauth_url(&user.email, &secret);
    Reply::data(json!({
        "secret": totp::to_base32(&secret),
        "otpauthUrl": url,
        "qrSvg": totp::qr_svg(&url),
    }))
}

#[derive(Deserialize)]
struct CodeInput {
    code: String,
}

/// Confirms the app with one of its codes: two-factor sign-in is on, ten
/// recovery codes are answered (once; only their hashes are kept), and
/// every other session of the user ends.
async fn enable(ctx: Ctx, input: CodeInput) -> Result<Reply> {
    let state = &ctx.state;
    let session = ctx.session.clone().ok_or(Error::Unauthorized)?;
    let id = session.user.id.clone();
    let current = state
        .db
        .run({
            let id = id.clone();
            move |c| two_factor::get(c, &id)
        })
        .await?;
    if current.secret.is_some() {
        return Err(Error::refused("two-factor sign-in is already on"));
    }
    let Some(pending) = current.pending else {
        return Err(Error::refused(
            "start the setup first: there is no secret waiting for a code",
        ));
    };
    let secret = state
        .sealer
        .open(&pending)
        .ok_or_else(|| Error::refused("the setup has expired; start it again"))?;
    let Some(step) = totp::verify(&secret, &input.code, unix(&ctx), None) else {
        return Err(Error::invalid(
            "code",
            "is not the app's current code; check the phone's clock and try the next one",
        ));
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
        return Err(Error::refused(
            "the setup changed meanwhile; start it again",
        ));
    }
    Reply::data(json!({ "recoveryCodes": codes }))
}

#[derive(Deserialize)]
struct DisableInput {
    password: String,
    code: String,
}

/// Two-factor sign-in off, with the password and a code (or a recovery
/// code). Wrong answers count against the sign-in limits.
async fn disable(ctx: Ctx, input: DisableInput) -> Result<Reply> {
    // One attempt for both: a right password alone does not clear the count,
    // so codes cannot be guessed behind it.
    let client = ctx.client();
    let attempt = sign_in::check_password(&ctx.state, &client, "password", input.password).await?;
    let user = ctx.user()?.clone();
    if !check_second_factor(&ctx.state, &user.id, &input.code).await? {
        return Err(Error::invalid("code", "is not a current or recovery code"));
    }
    attempt.succeeded();
    let id = user.id.clone();
    ctx.state
        .db
        .transaction(move |tx| two_factor::disable(tx, &id))
        .await?;
    tracing::info!(user_id = %user.id, "two-factor sign-in off");
    Reply::data(())
}

#[derive(Deserialize)]
struct LoginTotpInput {
    challenge: String,
    code: String,
}

/// The second step of `login`: a code from the app or an unused recovery
/// code, with the challenge `login` answered.
async fn login_totp(ctx: Ctx, input: LoginTotpInput) -> Result<Reply> {
    let signed =
        sign_in::login_totp(&ctx.state, &ctx.client(), &input.challenge, &input.code).await?;
    super::auth::reply(signed)
}
