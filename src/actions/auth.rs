//! Sign-in actions: `register`, `login`, `logout`, `forgotPassword`,
//! `resetPassword`. The second step of `login` for users with two-factor
//! sign-in is in `two_factor`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::auth::{password, secrets, session};
use crate::clock::timestamp;
use crate::config::Registration;
use crate::domain::email::Email;
use crate::error::{Error, Result};
use crate::store::users::UserId;
use crate::store::{api_tokens, password_resets, sessions, two_factor, users};
use chrono::Duration;
use serde::Deserialize;

/// How long a reset link works.
pub const RESET_LIFETIME: Duration = Duration::hours(1);
/// Reset mails per address and hour, so the form cannot flood a mailbox.
const RESETS_PER_HOUR: i64 = 3;
/// The longest display name.
pub const NAME_MAX: usize = 100;

pub fn register(r: &mut Registry) {
    r.public("register", register_user);
    r.public("login", login);
    r.session("logout", logout);
    r.public("forgotPassword", forgot_password);
    r.public("resetPassword", reset_password);
}

/// Refuses password sign-in, sign-up and reset when
/// `CASHKEEPER_OIDC_ONLY=true`: people sign in through the provider.
fn passwords_allowed(state: &crate::state::AppState) -> Result<()> {
    match &state.config.oidc {
        Some(o) if o.only => Err(Error::refused(format!(
            "sign-in with a password is turned off here; use \"{}\" on the sign-in page",
            o.label(crate::i18n::EN.sso_button)
        ))),
        _ => Ok(()),
    }
}

/// Trims a display name and checks its length.
pub fn parse_name(field: &'static str, raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.chars().count() > NAME_MAX {
        return Err(Error::invalid(field, "must be at most 100 characters"));
    }
    Ok(name.to_string())
}

#[derive(Deserialize)]
struct RegisterInput {
    email: String,
    password: String,
    #[serde(default)]
    name: Option<String>,
}

async fn register_user(ctx: Ctx, input: RegisterInput) -> Result<Reply> {
    let state = &ctx.state;
    passwords_allowed(state)?;
    if state.config.registration == Registration::Closed {
        return Err(Error::refused("registration is closed"));
    }
    let email = Email::parse("email", &input.email)?;
    password::check_rule("password", &input.password)?;
    let name = parse_name("name", input.name.as_deref().unwrap_or(""))?;
    let hash = password::hash(input.password).await?;
    let registration = state.config.registration;
    let locale = ctx.accept_locale;
    let now = timestamp(state.clock.now());
    let user = state
        .db
        .transaction(move |tx| {
            // Checked inside the insert's transaction, so two sign-ups racing
            // for the first account cannot both win.
            if !registration.admits(|| users::count(tx))? {
                return Err(Error::refused("registration is closed"));
            }
            users::create(
                tx,
                &users::NewUser {
                    email: email.as_str(),
                    name: &name,
                    password_hash: &hash,
                    locale,
                    now: &now,
                },
            )
        })
        .await?;
    tracing::info!(user_id = %user.id, "user registered");
    signed_in(&ctx, &user, session::Via::Password).await
}

#[derive(Deserialize)]
struct LoginInput {
    email: String,
    password: String,
}

async fn login(ctx: Ctx, input: LoginInput) -> Result<Reply> {
    let state = &ctx.state;
    passwords_allowed(state)?;
    let email = Email::parse("email", &input.email)?;
    let key = email.key();
    let attempt = state
        .sign_in
        .begin(&key, ctx.sign_in_client(&key), state.clock.now())
        .map_err(|r| Error::refused(r.message()))?;
    let found = state
        .db
        .run(move |c| users::password_hash_by_email(c, &key))
        .await?;
    let (user, phc) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    let ok = password::verify(input.password, phc).await?;
    let user = match (ok, user) {
        (true, Some(user)) => user,
        // The attempt stays counted.
        _ => return Err(Error::refused("invalid email or password")),
    };
    let id = user.id.clone();
    if state.db.run(move |c| users::is_disabled(c, &id)).await? {
        // Only the right password learns this; the attempt stays counted.
        return Err(Error::refused(
            "this account is disabled; ask the administrator of this cashkeeper",
        ));
    }
    let id = user.id.clone();
    if state.db.run(move |c| two_factor::is_on(c, &id)).await? {
        // No session before the second factor. The attempt stays counted
        // until `loginTotp` succeeds, so guessing codes is limited too.
        drop(attempt);
        return super::two_factor::challenge(&ctx, &user.id).await;
    }
    attempt.succeeded();
    signed_in(&ctx, &user, session::Via::Password).await
}

/// The reply of a successful sign-in (or sign-up): the user, and the
/// cookie of a new session in this browser.
pub async fn signed_in(ctx: &Ctx, user: &users::User, via: session::Via) -> Result<Reply> {
    let state = &ctx.state;
    let token = session::start(
        &state.db,
        &state.clock,
        user.id.clone(),
        &ctx.user_agent,
        via,
    )
    .await?;
    let reply = Reply::data(user)?.with_cookie(session::set_cookie(&state.config, &token));
    Ok(match via {
        // A right password: this browser is known to the account from now on.
        session::Via::Password => reply.with_cookie(session::set_known_cookie(
            &state.config,
            &state.sealer,
            &user.email.to_lowercase(),
        )),
        session::Via::Provider => reply,
    })
}

/// How long after a sign-in through the provider a sensitive change needs
/// no password from an account that has none.
pub const PROVIDER_CONFIRMS_FOR: Duration = Duration::minutes(10);

async fn confirm_by_provider(ctx: &Ctx, field: &'static str) -> Result<()> {
    let state = &ctx.state;
    let hash = ctx
        .session
        .as_ref()
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
        _ => Err(Error::invalid(
            field,
            "your account signs in through single sign-on and has no password: sign in \
             through it again, then repeat this within 10 minutes",
        )),
    }
}

/// Asks the signed-in user for their password again before a sensitive
/// change (a new API token, a new password). Wrong answers count against
/// the same limits as sign-ins, so a borrowed session cannot guess it.
///
/// An account made by signing in through the OpenID provider has no
/// password its owner knows: it confirms by a fresh sign-in through the
/// provider instead ([`PROVIDER_CONFIRMS_FOR`]), and `given` is ignored.
pub async fn confirm_password(ctx: &Ctx, field: &'static str, given: String) -> Result<()> {
    check_password(ctx, field, given).await?.succeeded();
    Ok(())
}

/// [`confirm_password`] for a change that asks for more than the password
/// (a code too): the attempt stays counted until the caller calls
/// `succeeded` with everything right, so a right password does not wipe
/// the failures of what is guessed behind it.
pub async fn check_password<'a>(
    ctx: &'a Ctx,
    field: &'static str,
    given: String,
) -> Result<crate::auth::login_limit::Attempt<'a>> {
    let state = &ctx.state;
    let user = ctx.user()?;
    let id = user.id.clone();
    let (known, phc) = state
        .db
        .run(move |c| Ok((users::has_password(c, &id)?, users::password_hash(c, &id)?)))
        .await?;
    let key = user.email.to_lowercase();
    if known && given.is_empty() {
        return Err(Error::invalid(field, "is required"));
    }
    let attempt = state
        .sign_in
        .begin(&key, ctx.sign_in_client(&key), state.clock.now())
        .map_err(|r| Error::invalid(field, r.message()))?;
    if !known {
        confirm_by_provider(ctx, field).await?;
    } else if !password::verify(given, phc).await? {
        return Err(Error::invalid(field, "is not your current password"));
    }
    Ok(attempt)
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
    passwords_allowed(&state)?;
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
    passwords_allowed(state)?;
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
