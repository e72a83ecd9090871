//! Sign-in actions: `register`, `login`, `logout`, `forgotPassword`,
//! `resetPassword`. The second step of `login` for users with two-factor
//! sign-in is in `two_factor`; how a sign-in ends is `app::sign_in`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::sign_in::{self, Ending, SignedIn};
use crate::auth::session;
use crate::error::Result;
use crate::state::AppState;
use serde::Deserialize;

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
    reply(&ctx.state, signed)
}

/// The reply of a session started: the user, and the cookies.
pub fn reply(state: &AppState, signed: SignedIn) -> Result<Reply> {
    let mut reply = Reply::data(&signed.user)?;
    reply.set_cookies = crate::http::session::cookies(state, &signed);
    Ok(reply)
}

#[derive(Deserialize)]
struct LoginInput {
    email: String,
    password: String,
}

async fn login(ctx: Ctx, input: LoginInput) -> Result<Reply> {
    match sign_in::login(&ctx.state, &ctx.client(), &input.email, input.password).await? {
        Ending::SignedIn(signed) => reply(&ctx.state, signed),
        Ending::SecondFactor { challenge } => {
            Reply::data(serde_json::json!({ "totpRequired": true, "challenge": challenge }))
        }
    }
}

async fn logout(ctx: Ctx, _: NoInput) -> Result<Reply> {
    if let Some(s) = &ctx.session {
        sign_in::sign_out(&ctx.state, &s.token_hash).await?;
    }
    Ok(Reply::data(())?.with_cookie(session::clear_cookie(&ctx.state.config)))
}

#[derive(Deserialize)]
struct ForgotInput {
    email: String,
}

/// `forgotPassword {email}`: the same answer, at once, for known and
/// unknown addresses.
async fn forgot_password(ctx: Ctx, input: ForgotInput) -> Result<Reply> {
    sign_in::forgot_password(&ctx.state, &input.email)?;
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

/// `resetPassword {token, password, revokeApiTokens}`.
async fn reset_password(ctx: Ctx, input: ResetInput) -> Result<Reply> {
    let client = ctx.client();
    let (token, revoke) = (&input.token, input.revoke_api_tokens);
    sign_in::reset_password(&ctx.state, &client, token, input.password, revoke).await?;
    Reply::data(())
}
