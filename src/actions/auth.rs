//! Sign-in actions: `register`, `login`, `logout`, `forgotPassword`,
//! `resetPassword`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::auth::{password, secrets, session};
use crate::clock::timestamp;
use crate::config::Registration;
use crate::domain::email::Email;
use crate::error::{Error, Result};
use crate::store::{categories, password_resets, sessions, users};
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
    if state.config.registration == Registration::Closed {
        return Err(Error::refused("registration is closed"));
    }
    let email = Email::parse("email", &input.email)?;
    password::check_rule("password", &input.password)?;
    let name = parse_name("name", input.name.as_deref().unwrap_or(""))?;
    let hash = password::hash(input.password).await?;
    let first_user_only = state.config.registration == Registration::FirstUser;
    let locale = ctx.accept_locale;
    let now = timestamp(state.clock.now());
    let user = state
        .db
        .transaction(move |tx| {
            // Checked inside the insert's transaction, so two sign-ups racing
            // for the first account cannot both win.
            if first_user_only && users::count(tx)? > 0 {
                return Err(Error::refused("registration is closed"));
            }
            let user = users::insert(
                tx,
                &users::NewUser {
                    email: email.as_str(),
                    name: &name,
                    password_hash: &hash,
                    locale,
                    now: &now,
                },
            )?;
            categories::insert_defaults(tx, &user.id, locale, &now)?;
            Ok(user)
        })
        .await?;
    tracing::info!(user_id = %user.id, "user registered");
    let token = session::start(state, user.id.clone()).await?;
    Ok(Reply::data(&user)?.with_cookie(session::set_cookie(state, &token)))
}

#[derive(Deserialize)]
struct LoginInput {
    email: String,
    password: String,
}

async fn login(ctx: Ctx, input: LoginInput) -> Result<Reply> {
    let state = &ctx.state;
    let email = Email::parse("email", &input.email)?;
    let key = email.as_str().to_lowercase();
    if let Some(secs) = state.login_limiter.locked_for(&key, state.clock.now()) {
        let minutes = (secs + 59) / 60;
        return Err(Error::refused(format!(
            "too many failed sign-ins for this address; try again in {minutes} minute{}",
            if minutes == 1 { "" } else { "s" }
        )));
    }
    let lookup = key.clone();
    let found = state
        .db
        .run(move |c| users::password_hash_by_email(c, &lookup))
        .await?;
    let (user, phc) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    let ok = password::verify(input.password, phc).await?;
    let user = match (ok, user) {
        (true, Some(user)) => user,
        _ => {
            state.login_limiter.record_failure(&key, state.clock.now());
            return Err(Error::refused("invalid email or password"));
        }
    };
    state.login_limiter.record_success(&key);
    let token = session::start(state, user.id.clone()).await?;
    Ok(Reply::data(&user)?.with_cookie(session::set_cookie(state, &token)))
}

async fn logout(ctx: Ctx, _: NoInput) -> Result<Reply> {
    if let Some(s) = &ctx.session {
        let hash = s.token_hash.clone();
        ctx.state
            .db
            .run(move |c| sessions::delete(c, &hash))
            .await?;
    }
    Ok(Reply::data(())?.with_cookie(session::clear_cookie(&ctx.state)))
}

#[derive(Deserialize)]
struct ForgotInput {
    email: String,
}

/// Answers the same for known and unknown addresses; the mail (or log line)
/// goes out in the background so the answer's timing does not tell either.
async fn forgot_password(ctx: Ctx, input: ForgotInput) -> Result<Reply> {
    let state = ctx.state.clone();
    let email = Email::parse("email", &input.email)?;
    let token = secrets::random_hex(32);
    let hash = secrets::sha256_hex(&token);
    let now = state.clock.now();
    let (now_s, exp_s) = (timestamp(now), timestamp(now + RESET_LIFETIME));
    let hour_ago = timestamp(now - Duration::hours(1));
    let lookup = email.as_str().to_string();
    let user = state
        .db
        .transaction(move |tx| {
            let Some(user) = users::find_by_email(tx, &lookup)? else {
                return Ok(None);
            };
            let recent: i64 = tx.query_row(
                "SELECT COUNT(*) FROM password_resets WHERE user_id = ?1 AND created_at > ?2",
                [&user.id, &hour_ago],
                |r| r.get(0),
            )?;
            if recent >= RESETS_PER_HOUR {
                tracing::warn!(user_id = %user.id, "password reset requested too often; not sent");
                return Ok(None);
            }
            password_resets::delete_stale(tx, &now_s)?;
            password_resets::insert(tx, &hash, &user.id, &now_s, &exp_s)?;
            Ok(Some(user))
        })
        .await?;
    if let Some(user) = user {
        let link = format!("{}/reset-password?token={token}", state.config.base_url);
        tokio::spawn(async move {
            if let Err(e) = state.mailer.send_reset(&user, &link).await {
                tracing::error!(user_id = %user.id, error = %e, "password-reset mail failed");
            }
        });
    }
    Reply::data(())
}

#[derive(Deserialize)]
struct ResetInput {
    token: String,
    password: String,
}

/// Sets a new password from a reset link. The link is used up, and every
/// session of the user ends: whoever knew the old password is signed out.
async fn reset_password(ctx: Ctx, input: ResetInput) -> Result<Reply> {
    let state = &ctx.state;
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
    state
        .db
        .transaction(move |tx| {
            let user_id = password_resets::consume(tx, &token_hash, &now)?
                .ok_or_else(|| Error::invalid("token", "is invalid or expired"))?;
            users::set_password(tx, &user_id, &hash, &now)?;
            sessions::delete_all_for_user(tx, &user_id, None)?;
            tracing::info!(%user_id, "password reset");
            Ok(())
        })
        .await?;
    Reply::data(())
}
