//! Signing up and signing in with a password.

use super::{end, parse_name, start, Client, Ending, SignedIn};
use crate::auth::{password, session};
use crate::clock::timestamp;
use crate::config::Registration;
use crate::domain::email::Email;
use crate::domain::locale::Locale;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::users;

/// Refuses password sign-in, sign-up and reset when
/// `CASHKEEPER_OIDC_ONLY=true`: people sign in through the provider.
pub fn passwords_allowed(state: &AppState) -> Result<()> {
    match &state.config.oidc {
        Some(o) if o.only => Err(Error::refused(Reason::PasswordSignInOff(
            o.button_label.clone(),
        ))),
        _ => Ok(()),
    }
}

/// A new account, signed in at once: its email, password and display
/// name as given, its language the browser's.
pub async fn register(
    state: &AppState,
    client: &Client<'_>,
    locale: Locale,
    email: &str,
    given_password: String,
    name: &str,
) -> Result<SignedIn> {
    passwords_allowed(state)?;
    if state.config.registration == Registration::Closed {
        return Err(Error::refused(Reason::RegistrationClosed));
    }
    let email = Email::parse("email", email)?;
    email.require_one_alphabet("email")?;
    let twin = email.latin_twin();
    password::check_rule("password", &given_password)?;
    let name = parse_name("name", name)?;
    admit_registration(state, client.address)?;
    let hash = password::hash(given_password).await?;
    let registration = state.config.registration;
    let now = timestamp(state.clock.now());
    let user = state
        .db
        .transaction(move |tx| {
            // Checked inside the insert's transaction, so two sign-ups racing
            // for the first account cannot both win.
            if !registration.admits(|| users::count(tx))? {
                return Err(Error::refused(Reason::RegistrationClosed));
            }
            // An address in Cyrillic or Greek letters that reads as a
            // registered Latin one is that account.
            if let Some(twin) = &twin {
                if users::find_by_email(tx, twin)?.is_some() {
                    return Err(Error::invalid("email", Reason::AlreadyRegistered));
                }
            }
            crate::app::users::open(
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
    start(state, user, session::Via::Password, client).await
}

/// Counts a sign-up against the per-client and the service-wide limit
/// (`CASHKEEPER_REGISTRATION_LIMIT`), before its password is hashed. An
/// IPv6 client counts by its /64 network, which one machine usually holds
/// whole.
fn admit_registration(state: &AppState, address: Option<std::net::IpAddr>) -> Result<()> {
    let limit = state.config.registration_limit;
    if limit == 0 {
        return Ok(());
    }
    let now = state.clock.now();
    if let Some(ip) = address {
        let network = match ip {
            std::net::IpAddr::V4(v4) => v4.to_string(),
            std::net::IpAddr::V6(v6) => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        };
        if let Err(seconds) = state.registrations.admit(&network, limit, now) {
            tracing::warn!(client = %ip, "registration refused: too many from this client");
            return Err(Error::refused(Reason::TooManyRegistrations {
                network: true,
                seconds,
            }));
        }
    }
    if let Err(seconds) = state
        .registrations
        .admit("*", limit.saturating_mul(10), now)
    {
        tracing::warn!("registration refused: too many in the last minute");
        return Err(Error::refused(Reason::TooManyRegistrations {
            network: false,
            seconds,
        }));
    }
    Ok(())
}

/// The first step with a password: a session, or the second factor asked.
/// Wrong passwords count against the per-account and per-client limits.
pub async fn login(
    state: &AppState,
    client: &Client<'_>,
    email: &str,
    given_password: String,
) -> Result<Ending> {
    passwords_allowed(state)?;
    let email = Email::parse("email", email)?;
    let key = email.key();
    let attempt = state
        .sign_in
        .begin(&key, client.limited_as(state, &key), state.clock.now())
        .map_err(|r| Error::refused(r.reason()))?;
    let found = state
        .db
        .run(move |c| users::password_hash_by_email(c, &key))
        .await?;
    let (user, phc) = match found {
        Some((u, h)) => (Some(u), Some(h)),
        None => (None, None),
    };
    let ok = password::verify(given_password, phc).await?;
    let user = match (ok, user) {
        (true, Some(user)) => user,
        // The attempt stays counted.
        _ => return Err(Error::refused(Reason::BadCredentials)),
    };
    let id = user.id.clone();
    if state.db.run(move |c| users::is_disabled(c, &id)).await? {
        // Only the right password learns this; the attempt stays counted.
        return Err(Error::refused(Reason::AccountDisabled));
    }
    let ending = end(state, user, session::Via::Password, client).await?;
    // No session before the second factor: the attempt stays counted
    // until the code is right, so guessing codes is limited too.
    if let Ending::SignedIn(_) = ending {
        attempt.succeeded();
    }
    Ok(ending)
}

/// Whether the sign-up form is offered: by the configured rule (open, the
/// first account only, closed).
pub async fn registration_open(state: &AppState) -> bool {
    let registration = state.config.registration;
    state
        .db
        .run(move |c| registration.admits(|| users::count(c)))
        .await
        .unwrap_or(false)
}
