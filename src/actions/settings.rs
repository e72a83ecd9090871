//! User settings: `getSettings`, `updateSettings`, `changePassword`, and
//! `deleteUser`, which removes the signed-in user and everything of theirs.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::sign_in::{self, parse_name};
use crate::auth::password;
use crate::clock::timestamp;
use crate::domain::currency::Currency;
use crate::error::Reason;
use crate::error::{Error, Result};
use crate::i18n::Locale;
use crate::store::users;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("getSettings", get_settings);
    r.session("updateSettings", update_settings);
    r.session("changePassword", change_password);
    r.session("deleteUser", delete_user);
    r.session("exportData", export_data);
}

/// `exportData {}`: where the signed-in user's archive is downloaded
/// (`GET /api/export`, for the session's owner only).
async fn export_data(ctx: Ctx, _: NoInput) -> Result<Reply> {
    ctx.user()?;
    Reply::data(serde_json::json!({ "downloadUrl": "/api/export" }))
}

/// The user's settings, with the state of their two-factor sign-in.
async fn get_settings(ctx: Ctx, _: NoInput) -> Result<Reply> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct View<'a> {
        #[serde(flatten)]
        user: &'a crate::store::users::User,
        two_factor: sign_in::TwoFactorStatus,
    }
    let user = ctx.user()?;
    let two_factor = sign_in::two_factor_status(&ctx.state, &user.id).await?;
    Reply::data(View { user, two_factor })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateInput {
    name: Option<String>,
    base_currency: Option<String>,
    locale: Option<String>,
}

async fn update_settings(ctx: Ctx, input: UpdateInput) -> Result<Reply> {
    let change = users::SettingsChange {
        name: input
            .name
            .as_deref()
            .map(|n| parse_name("name", n))
            .transpose()?,
        base_currency: input
            .base_currency
            .as_deref()
            .map(|c| Currency::parse("baseCurrency", c).map(|c| c.code().to_string()))
            .transpose()?,
        locale: input
            .locale
            .as_deref()
            .map(|l| {
                Locale::from_code(l.trim()).ok_or_else(|| Error::invalid("locale", Reason::DeOrEn))
            })
            .transpose()?,
    };
    let user_id = ctx.user_id()?;
    let now = timestamp(ctx.state.clock.now());
    let user = ctx
        .state
        .db
        .run(move |c| users::update_settings(c, &user_id, &change, &now))
        .await?;
    // The API's token cache holds the user's base currency and name.
    ctx.state.token_cache.clear();
    Reply::data(user)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChangePasswordInput {
    current_password: String,
    new_password: String,
    /// Also revoke the API tokens (the settings page asks; default yes).
    #[serde(default = "crate::app::input::default_true")]
    revoke_api_tokens: bool,
}

/// Changes the password after checking the current one; every other
/// session and every outstanding reset link of the user ends, this session
/// stays, and the API tokens are revoked unless the user keeps them.
async fn change_password(ctx: Ctx, input: ChangePasswordInput) -> Result<Reply> {
    password::check_rule("newPassword", &input.new_password)?;
    sign_in::confirm_password(
        &ctx.state,
        &ctx.client(),
        "currentPassword",
        input.current_password,
    )
    .await?;
    let user_id = ctx.user_id()?;
    let keep = ctx.session.as_ref().map(|s| s.token_hash.clone());
    let state = &ctx.state;
    let hash = password::hash(input.new_password).await?;
    let now = timestamp(state.clock.now());
    let revoke_tokens = input.revoke_api_tokens;
    state
        .db
        .transaction(move |tx| {
            users::set_password(tx, &user_id, &hash, &now)?;
            sign_in::end_old_credentials(tx, &user_id, keep.as_deref(), revoke_tokens, &now)
        })
        .await?;
    state.token_cache.clear();
    Reply::data(())
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DeleteUserInput {
    password: String,
}

/// `deleteUser {password}`: the user, every record, document file,
/// session and token of theirs, in one transaction (the files after it);
/// the session cookie is cleared.
async fn delete_user(ctx: Ctx, input: DeleteUserInput) -> Result<Reply> {
    sign_in::confirm_password(&ctx.state, &ctx.client(), "password", input.password).await?;
    let state = &ctx.state;
    crate::app::accounts::delete(&state.db, &state.files, &ctx.user_id()?).await?;
    state.token_cache.clear();
    Ok(Reply::data(())?.with_cookie(crate::auth::session::clear_cookie(&state.config)))
}
