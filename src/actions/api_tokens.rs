//! Personal API tokens: `createApiToken`, `listApiTokens`, `revokeApiToken`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::api_tokens;
use crate::app::input::{self, IdInput};
use crate::auth::api_tokens::LIFETIMES;
use crate::error::{Error, Reason, Result};
use serde::Deserialize;
use serde_json::Value;

pub fn register(r: &mut Registry) {
    r.session("createApiToken", create);
    r.session("listApiTokens", list);
    r.session("revokeApiToken", revoke);
}

/// Reads `expiresInDays`: 30, 90, 365 or null.
pub fn parse_lifetime(field: &'static str, value: &Value) -> Result<Option<u32>> {
    match value {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_u64() {
            Some(d) if LIFETIMES.contains(&(d as u32)) && d <= 365 => Ok(Some(d as u32)),
            _ => Err(Error::invalid(field, Reason::TokenLifetime)),
        },
        Value::String(s) if s.trim().is_empty() || s == "never" => Ok(None),
        Value::String(s) => match s.trim().parse::<u32>() {
            Ok(d) if LIFETIMES.contains(&d) => Ok(Some(d)),
            _ => Err(Error::invalid(field, Reason::TokenLifetime)),
        },
        _ => Err(Error::invalid(field, Reason::TokenLifetime)),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateInput {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    expires_in_days: Value,
    /// The user's password, asked again: a session alone does not mint a
    /// credential that outlives it.
    #[serde(default)]
    password: Option<String>,
}

async fn create(ctx: Ctx, input: CreateInput) -> Result<Reply> {
    let name = input::text("name", input.name, 100)?;
    let days = parse_lifetime("expiresInDays", &input.expires_in_days)?;
    let password = input.password.unwrap_or_default();
    let user = ctx.user_id()?;
    Reply::data(api_tokens::create(&ctx.state, &ctx.client(), &user, name, days, password).await?)
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    Reply::data(api_tokens::list(&ctx.state, &ctx.user_id()?).await?)
}

async fn revoke(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    api_tokens::revoke(&ctx.state, &ctx.user_id()?, id).await?;
    Reply::data(())
}
