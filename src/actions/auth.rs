//! Sign-in actions: `register`, `login`, `logout`, `forgotPassword`,
//! `resetPassword`. The second step of `login` for users with two-factor
//! sign-in is in `two_factor`; how a sign-in ends is `app::sign_in`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::sign_in::{self, end_old_credentials, Ending, SignedIn};
use crate::auth::{password, secrets, session};
use crate::clock::timestamp;
use crate::domain::email::Email;
use crate::error::{Error, Result};
use crate::store::{password_resets, sessions, users};
use chrono::Duration;
use serde::Deserialize;

/// How long a reset link works.
pub const RESET_LIFETIME: Duration = Duration::hours(1);
/// Reset mails per address and hour, so the form cannot flood a mailbox.
const RESETS_PER_HOUR: i64 = 3;

pub fn register(r: &mut Registry) {
    r.public("register", register_user);
    r.public("login", login);
    r.session("logout", logout);
    r.public("forgotPassword", forgot_password);
    r.public("resetPassword", reset_password);
}

#[derive(Deserialize)]
struct RegisterInput {
    email: String,
    password: String,
    #[serde(default)]
    name: Option<String>,
}

async fn register_user(ctx: Ctx, input: RegisterInput) -> Result<Reply> {
    let name = input.name.as_deref().unwrap_or("");
    let client = ctx.client();
    let signed = sign_in::register(
        &ctx.state,
        &client,
        ctx.accept_locale,
        &input.email,
        input.password,
        name,
    )
    .await?;
    reply(signed)
}

/// The reply of a session started: the user, and the cookies.
pub fn reply(signed: SignedIn) -> Result<Reply> {
    let mut reply = Reply::data(&signed.user)?;
    reply.set_cookies = signed.cookies;
    Ok(reply)
}

#[derive(Deserialize)]
struct LoginInput {
    email: String,
    password: String,
}

async fn login(ctx: Ctx, input: LoginInput) -> Result<Reply> {
    match sign_in::login(&ctx.state, &ctx.client(), &input.email, input.password).await? {
        Ending::SignedIn(signed) => reply(signed),
        Ending::SecondFactor { challenge } => {
            Reply::data(serde_json::json!({ "totpRequired": true, "challenge": challenge }))
        }
    }
}

async fn logout(ctx: Ctx, _: NoInput) -> Result<Reply> {
    if let Some(s) = &ctx.session {
        let hash = s.token_hash.clone();
        ctx.state
            .db
            .transaction(move |tx| sessions::delete(tx, &hash))
            .await?;
    }
    Ok(Reply::data(())?.with_cookie(session::clear_cookie(&ctx.state.config)))
}

#[derive(Deserialize)]
struct ForgotInput {
    email: String,
}

/// Answers the same for known and unknown addresses, at once: looking the
/// address up, storing the link and sending the mail (or log line) all
/// happen in the background, so neither the answer's timing nor a failure
/// tells whether the address is registered.
async fn forgot_password(ctx: Ctx, input: ForgotInput) -> Result<Reply> {
    let state = ctx.state.clone();
    sign_in::passwords_allowed(&state)?;
    let email = Email::parse("email", &input.email)?;
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
    Reply::data(())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResetInput {
    token: String,
    password: String,
    /// Also revoke the account's API tokens (the reset page asks; default yes).
    #[serde(default = "crate::app::input::default_true")]
    revoke_api_tokens: bool,
}

/// Sets a new password from a reset link. The link is used up, every other
/// link and every session of the user ends (but the caller's own, if it is
/// the same user's): whoever knew the old password is signed out.
async fn reset_password(ctx: Ctx, input: ResetInput) -> Result<Reply> {
    let state = &ctx.state;
    sign_in::passwords_allowed(state)?;
    password::check_rule("password", &input.password)?;
    let token = input.token.trim();
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::invalid("token", "is invalid or expired"));
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
        return Err(Error::invalid("token", "is invalid or expired"));
    }
    let hash = password::hash(input.password).await?;
    let current = ctx
        .session
        .as_ref()
        .map(|s| (s.user.id.clone(), s.token_hash.clone()));
    let revoke_tokens = input.revoke_api_tokens;
    state
        .db
        .transaction(move |tx| {
            let user_id = password_resets::consume(tx, &token_hash, &now)?
                .ok_or_else(|| Error::invalid("token", "is invalid or expired"))?;
            users::set_password(tx, &user_id, &hash, &now)?;
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
    Reply::data(())
}
