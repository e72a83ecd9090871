//! Personal API tokens: `createApiToken`, `listApiTokens`, `revokeApiToken`.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::input::{self, IdInput};
use crate::auth::api_tokens::{create_for, LIFETIMES};
use crate::clock::timestamp;
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::store::api_tokens as store;
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
    crate::app::sign_in::confirm_password(&ctx.state, &ctx.client(), "password", password).await?;
    let (user, now) = (ctx.user_id()?, ctx.state.clock.now());
    let created = ctx
        .state
        .db
        .transaction(move |tx| create_for(tx, &user, &name, days, now))
        .await?;
    tracing::info!(token_id = %created.record.id, "API token created");
    Reply::data(created)
}

async fn list(ctx: Ctx, _: NoInput) -> Result<Reply> {
    let user = ctx.user_id()?;
    Reply::data(ctx.state.db.run(move |c| store::list(c, &user)).await?)
}

async fn revoke(ctx: Ctx, input: IdInput) -> Result<Reply> {
    let id = input::required_id(input.id)?;
    let (user, now) = (ctx.user_id()?, timestamp(ctx.state.clock.now()));
    if !ctx
        .state
        .db
        .run(move |c| store::revoke(c, &user, &id, &now))
        .await?
    {
        return Err(Error::NotFound);
    }
    // Effective on the next request, whatever the file system's timestamps say.
    ctx.state.token_cache.clear();
    Reply::data(())
}
