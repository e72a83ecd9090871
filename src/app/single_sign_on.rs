//! Single sign-on through the configured OpenID provider
//! (`docs/sign-in.md`): the provider's callback checked in order, then the
//! account it names found, linked or made, and the sign-in ended as any
//! other ([`sign_in::end`]). The door (`api::oidc`) reads the request and
//! answers with redirects.

use crate::app;
use crate::app::sign_in::{self, Client, Ending};
use crate::auth::oidc::{self, Pending, Refusal};
use crate::auth::session;
use crate::clock::timestamp;
use crate::domain::email::Email;
use crate::domain::locale::Locale;
use crate::state::AppState;
use crate::store;
use crate::store::users::{self, User};

/// Longer `code` or `state` values than this are not a provider's.
const MAX_PARAM: usize = 4096;

/// What the provider's callback brought: its query, the started sign-in's
/// sealed cookie, and the session cookie this browser had before.
#[derive(Default)]
pub struct Callback {
    pub pending: Option<String>,
    pub state: Option<String>,
    pub code: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
    pub old_session: Option<String>,
}

/// How a callback that passed every check goes on.
pub enum Outcome {
    SignedIn {
        token: String,
        return_to: String,
    },
    /// Two-factor sign-in is on: the code is asked next (`loginTotp`).
    SecondFactor {
        challenge: String,
    },
}

/// The checks of a callback in order, then a session or the second step.
pub async fn finish(
    state: &AppState,
    q: Callback,
    client: &Client<'_>,
    locale: Locale,
) -> Result<Outcome, Refusal> {
    let provider = state.oidc.as_ref().ok_or(Refusal::Unavailable)?;
    let pending = q
        .pending
        .as_deref()
        .and_then(|c| Pending::open(&state.sealer, c, state.clock.now().timestamp()))
        .ok_or(Refusal::State)?;
    let given_state = q.state.as_deref().unwrap_or("");
    if given_state.len() > MAX_PARAM || !pending.state_matches(given_state) {
        return Err(Refusal::State);
    }
    if let Some(error) = q.error {
        let detail: String = q
            .error_description
            .unwrap_or_default()
            .chars()
            .take(200)
            .collect();
        let error: String = error.chars().take(100).collect();
        tracing::info!(%error, %detail, "the OpenID provider did not sign the user in");
        return Err(Refusal::Provider);
    }
    let code = q.code.filter(|c| !c.is_empty() && c.len() <= MAX_PARAM);
    let code = code.ok_or(Refusal::Token)?;
    let return_to = pending.return_to().to_string();
    let identity = provider.finish(pending, &code).await?;

    let email = match identity.email.as_deref().map(|e| Email::parse("email", e)) {
        Some(Ok(e)) => Some(e),
        // An address cashkeeper would not accept cannot match or create one.
        Some(Err(_)) | None => None,
    };
    let email_key = email.as_ref().map(|e| e.key());
    let name: String = identity
        .name
        .as_deref()
        .unwrap_or("")
        .trim()
        .chars()
        .take(100)
        .collect();
    let registration = state.config.registration;
    let now = timestamp(state.clock.now());

    // First without a new account's password hash (hashing is slow and
    // rarely needed); again with one when the user is new and may join.
    let mut password_hash: Option<String> = None;
    let user = loop {
        let (id, key, hash, name, now) = (
            identity.clone(),
            email_key.clone(),
            password_hash.clone(),
            name.clone(),
            now.clone(),
        );
        let address = email.as_ref().map(|e| e.as_str().to_string());
        let found = state
            .db
            .transaction(move |tx| {
                let newcomer = match (&hash, &address) {
                    (Some(h), Some(a)) => Some(Newcomer {
                        email: a,
                        name: &name,
                        password_hash: h,
                        locale,
                    }),
                    _ => None,
                };
                let found = user_for(tx, &id, key.as_deref(), registration, newcomer, &now)?;
                // A password hash for a new account is worth making only
                // when one may be made.
                let may_join = matches!(found, Err(Refusal::NoAccount))
                    && registration.admits(|| users::count(tx))?;
                Ok((found, may_join))
            })
            .await
            .map_err(|e| {
                tracing::error!("single sign-on: {e}");
                Refusal::Unavailable
            })?;
        match found {
            (Err(Refusal::NoAccount), true) if password_hash.is_none() => {
                // Nobody knows this password: the account signs in through
                // the provider (or sets a password with "forgot password").
                let random = crate::auth::secrets::random_hex(32);
                password_hash = Some(crate::auth::password::hash(random).await.map_err(|e| {
                    tracing::error!("single sign-on: {e}");
                    Refusal::Unavailable
                })?);
            }
            (other, _) => break other?,
        }
    };
    if password_hash.is_some() {
        tracing::info!(user_id = %user.id, "user registered through single sign-on");
    }
    let fail = |e: crate::Error| {
        tracing::error!("single sign-on: {e}");
        Refusal::Unavailable
    };
    // The provider vouched for who it is; cashkeeper's own second factor
    // is still asked, as after a password.
    let user_id = user.id.clone();
    let token = match sign_in::end(state, user, session::Via::Provider, client)
        .await
        .map_err(fail)?
    {
        Ending::SecondFactor { challenge } => return Ok(Outcome::SecondFactor { challenge }),
        Ending::SignedIn(signed) => signed.token,
    };
    tracing::info!(%user_id, "signed in through single sign-on");
    // A session this browser had before ends (its reminders move over when
    // it was the same user's): one browser, one session.
    if let Some(old) = q.old_session.as_deref() {
        let (old, new) = (
            crate::auth::secrets::sha256_hex(old),
            crate::auth::secrets::sha256_hex(&token),
        );
        state
            .db
            .transaction(move |tx| crate::store::sessions::hand_over(tx, &old, &new))
            .await
            .map_err(fail)?;
    }
    Ok(Outcome::SignedIn { token, return_to })
}

/// A new account's details when the provider's user has none yet.
struct Newcomer<'a> {
    pub email: &'a str,
    pub name: &'a str,
    pub password_hash: &'a str,
    pub locale: Locale,
}

/// The cashkeeper user of a verified identity, inside the caller's write
/// transaction: the one linked to it before; else the one with the
/// provider-verified email, linked now; else a new account when
/// `registration` admits one (`newcomer` says who). The email key must be
/// normalised as sign-in normalises it.
fn user_for(
    tx: &rusqlite::Transaction<'_>,
    id: &oidc::Identity,
    email_key: Option<&str>,
    registration: crate::config::Registration,
    newcomer: Option<Newcomer<'_>>,
    now: &str,
) -> crate::Result<Result<User, Refusal>> {
    if let Some(user) = store::oidc::user_of(tx, &id.issuer, &id.subject)? {
        if users::is_disabled(tx, &user.id)? {
            return Ok(Err(Refusal::Disabled));
        }
        store::oidc::touch(tx, &id.issuer, &id.subject, now)?;
        return Ok(Ok(user));
    }
    let Some(key) = email_key else {
        return Ok(Err(Refusal::EmailUnverified));
    };
    if !id.email_verified {
        return Ok(Err(Refusal::EmailUnverified));
    }
    let user = match users::find_by_email(tx, key)? {
        Some(user) => {
            if users::is_disabled(tx, &user.id)? {
                return Ok(Err(Refusal::Disabled));
            }
            // One provider account per user: an address handed on at the
            // provider must not open the first owner's account.
            if store::oidc::linked_at(tx, &user.id, &id.issuer)? {
                return Ok(Err(Refusal::Linked));
            }
            user
        }
        None => {
            let admitted = registration.admits(|| users::count(tx))?;
            let (true, Some(n)) = (admitted, newcomer) else {
                return Ok(Err(Refusal::NoAccount));
            };
            let user = app::users::open(
                tx,
                &users::NewUser {
                    email: n.email,
                    name: n.name,
                    password_hash: n.password_hash,
                    locale: n.locale,
                    now,
                },
            )?;
            users::mark_without_password(tx, &user.id)?;
            user
        }
    };
    store::oidc::link(tx, &id.issuer, &id.subject, &user.id, now)?;
    Ok(Ok(user))
}
