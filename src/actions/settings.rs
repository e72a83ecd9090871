//! User settings: `getSettings`, `updateSettings`, `changePassword`,
//! `dismissNextSteps` (the dashboard's card for new users), `makeRecurring`
//! (its offer for one-time entries repeated monthly), and
//! `deleteUser`, which removes the signed-in user and everything of theirs.

use super::{Ctx, NoInput, Registry, Reply};
use crate::app::{settings, sign_in};
use crate::error::Result;
use serde::Deserialize;

pub fn register(r: &mut Registry) {
    r.session("getSettings", get_settings);
    r.session("updateSettings", update_settings);
    r.session("changePassword", change_password);
    r.session("deleteUser", delete_user);
    r.session("exportData", export_data);
    r.session("dismissNextSteps", dismiss_next_steps);
    r.session("makeRecurring", make_recurring);
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MakeRecurringInput {
    kind: Option<String>,
    id: Option<String>,
}

/// `makeRecurring {kind, id}`: one-time entries repeated monthly become a
/// recurring expense or income ([`crate::app::repeats::make_recurring`]).
async fn make_recurring(ctx: Ctx, input: MakeRecurringInput) -> Result<Reply> {
    let made =
        crate::app::repeats::make_recurring(&ctx.state, &ctx.user_id()?, input.kind, input.id)
            .await?;
    Reply::data(made)
}

/// `dismissNextSteps {}`: hides the dashboard's "next steps" card for the
/// signed-in user, in every browser.
async fn dismiss_next_steps(ctx: Ctx, _: NoInput) -> Result<Reply> {
    settings::dismiss_next_steps(&ctx.state, &ctx.user_id()?).await?;
    Reply::data(())
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
    let given = settings::Given {
        name: input.name,
        base_currency: input.base_currency,
        locale: input.locale,
    };
    Reply::data(settings::update(&ctx.state, &ctx.user_id()?, given).await?)
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
    settings::change_password(
        &ctx.state,
        &ctx.client(),
        &ctx.user_id()?,
        ctx.session.as_ref().map(|s| s.token_hash.clone()),
        input.current_password,
        input.new_password,
        input.revoke_api_tokens,
    )
    .await?;
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
    crate::app::users::delete(&state.db, &state.files, &ctx.user_id()?).await?;
    state.token_cache.clear();
    Ok(Reply::data(())?.with_cookie(crate::auth::session::clear_cookie(&state.config)))
}
