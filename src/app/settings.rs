//! A user's own settings: name, base currency and language, and the
//! password changed with the current one.

use super::sign_in::{self, parse_name, Client};
use crate::auth::password;
use crate::clock::timestamp;
use crate::domain::currency::Currency;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::users::{self, SettingsChange, User, UserId};

/// A change of settings as given: what is `None` stays as it is.
#[derive(Default)]
pub struct Given {
    pub name: Option<String>,
    pub base_currency: Option<String>,
    pub locale: Option<String>,
}

/// Checks and stores a change of the user's settings; answers the user.
pub async fn update(state: &AppState, user: &UserId, given: Given) -> Result<User> {
    let change = SettingsChange {
        name: given
            .name
            .as_deref()
            .map(|n| parse_name("name", n))
            .transpose()?,
        base_currency: given
            .base_currency
            .as_deref()
            .map(|c| Currency::parse("baseCurrency", c).map(|c| c.code().to_string()))
            .transpose()?,
        locale: given
            .locale
            .as_deref()
            .map(|l| {
                Locale::from_code(l.trim()).ok_or_else(|| Error::invalid("locale", Reason::DeOrEn))
            })
            .transpose()?,
    };
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    let updated = state
        .db
        .run(move |c| users::update_settings(c, &user, &change, &now))
        .await?;
    // The API's token cache holds the user's base currency and name.
    state.token_cache.clear();
    Ok(updated)
}

/// A new password, after the current one is checked: every other session
/// and every outstanding reset link of the user ends, the session of
/// `keep_session` (a token hash) stays, and the API tokens are revoked when
/// `revoke_api_tokens`.
pub async fn change_password(
    state: &AppState,
    client: &Client<'_>,
    user: &UserId,
    keep_session: Option<String>,
    current: String,
    new: String,
    revoke_api_tokens: bool,
) -> Result<()> {
    password::check_rule("newPassword", &new)?;
    sign_in::confirm_password(state, client, "currentPassword", current).await?;
    let hash = password::hash(new).await?;
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| {
            crate::app::users::new_password(tx, &user, &hash, &now)?;
            sign_in::end_old_credentials(
                tx,
                &user,
                keep_session.as_deref(),
                revoke_api_tokens,
                &now,
            )
        })
        .await?;
    state.token_cache.clear();
    Ok(())
}

/// The dashboard's next steps after the first account: what the user has
/// done of them (an income, a recurring expense, a bank import) and
/// whether they hid the card.
pub async fn next_steps(state: &AppState, user: &UserId) -> Result<users::NextSteps> {
    let user = user.clone();
    state.db.run(move |c| users::next_steps(c, &user)).await
}

/// Whether the dashboard shows the next steps: after the first account,
/// until the user has a recurring income and a recurring expense, or hid
/// them. A bank import ticks its step but ends none: the salary and the
/// rent it brings are one-time entries, offered to be made recurring.
pub fn next_steps_open(s: &users::NextSteps) -> bool {
    s.account && !s.dismissed && !(s.income && s.recurring_expense)
}

/// Hides the dashboard's next steps for this user, in every browser.
pub async fn dismiss_next_steps(state: &AppState, user: &UserId) -> Result<()> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    state
        .db
        .run(move |c| users::dismiss_next_steps(c, &user, &now))
        .await
}
