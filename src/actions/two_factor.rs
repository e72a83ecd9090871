//! Two-factor sign-in with an authenticator app (docs/sign-in.md):
//! `beginTotpSetup`, `enableTotp`, `disableTotp`, and `loginTotp`, the
//! second step of `login` for users who turned it on.

use super::{Ctx, Registry, Reply};
use crate::app::sign_in::{self, authenticator};
use crate::error::Result;
use serde::Deserialize;
use serde_json::json;

pub fn register(r: &mut Registry) {
    r.session("beginTotpSetup", begin_setup);
    r.session("enableTotp", enable);
    r.session("disableTotp", disable);
    r.public("loginTotp", login_totp);
}

#[derive(Deserialize)]
struct BeginInput {
    #[serde(default)]
    password: String,
}

/// `beginTotpSetup {password}`: a new secret for the signed-in user.
async fn begin_setup(ctx: Ctx, input: BeginInput) -> Result<Reply> {
    Reply::data(authenticator::begin_setup(&ctx.state, &ctx.client(), input.password).await?)
}

#[derive(Deserialize)]
struct CodeInput {
    code: String,
}

/// `enableTotp {code}`: on, with ten recovery codes answered once.
async fn enable(ctx: Ctx, input: CodeInput) -> Result<Reply> {
    let codes = authenticator::enable(&ctx.state, &ctx.client(), &input.code).await?;
    Reply::data(json!({ "recoveryCodes": codes }))
}

#[derive(Deserialize)]
struct DisableInput {
    password: String,
    code: String,
}

/// `disableTotp {password, code}`: off again.
async fn disable(ctx: Ctx, input: DisableInput) -> Result<Reply> {
    authenticator::disable(&ctx.state, &ctx.client(), input.password, &input.code).await?;
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
    super::auth::reply(&ctx.state, signed)
}
