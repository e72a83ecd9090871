//! Sign-in pages: `/login`, `/register`, `/forgot-password`, `/reset-password`.

use crate::app::sign_in;
use crate::http::session::Viewer;
use crate::state::AppState;
use crate::web::components::{checkbox, form_error, form_success, Field};
use crate::web::layout::bare;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde::Deserialize;

/// Whether the register form is offered right now.

#[derive(Deserialize)]
pub struct LoginQuery {
    /// Why a sign-in through the provider ended here (`auth::oidc::Refusal`).
    sso: Option<String>,
    /// `code`: the provider signed the user in, the second factor is next.
    step: Option<String>,
}

/// The single sign-on button, when configured: a plain link, so it works
/// without JavaScript.
fn sso_button(state: &AppState, t: &crate::i18n::Texts) -> maud::Markup {
    html! {
        @if let Some(o) = &state.config.oidc {
            a.button.primary.sso href="/api/auth/oidc/start" {
                (o.label(t.sso_button))
            }
        }
    }
}

fn sso_message(t: &crate::i18n::Texts, code: Option<&str>) -> Option<&'static str> {
    use crate::auth::oidc::Refusal;
    Some(match Refusal::from_code(code?)? {
        Refusal::State => t.sso_state,
        Refusal::Provider => t.sso_provider,
        Refusal::Unavailable => t.sso_unavailable,
        Refusal::Token => t.sso_token,
        Refusal::EmailUnverified => t.sso_email_unverified,
        Refusal::NoAccount => t.sso_no_account,
        Refusal::Disabled => t.sso_disabled,
        Refusal::Linked => t.sso_linked,
    })
}

pub async fn login(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: axum::http::HeaderMap,
    Query(q): Query<LoginQuery>,
) -> Response {
    if viewer.session.is_some() {
        return Redirect::to("/").into_response();
    }
    let t = viewer.t();
    let open = sign_in::registration_open(&state).await;
    let passwords = !state.config.oidc_only();
    // After the provider, for an account with two-factor sign-in: the code
    // form comes first, holding the challenge the callback left in a cookie.
    let challenge = (q.step.as_deref() == Some("code"))
        .then(|| {
            crate::auth::session::cookie_value(&headers, crate::auth::session::CHALLENGE_COOKIE)
        })
        .flatten()
        .filter(|c| c.len() == 64 && c.bytes().all(|b| b.is_ascii_hexdigit()));
    bare(
        &viewer,
        t.login_title,
        html! {
            h1 { (t.login_title) }
            @if let Some(message) = sso_message(t, q.sso.as_deref()) {
                p.form-error role="alert" { (message) }
            }
            @if challenge.is_none() {
                (sso_button(&state, t))
            }
            @if passwords && challenge.is_none() {
                @if state.config.oidc.is_some() {
                    p.hint.or data-first-step { (t.sso_or) }
                }
                form.stack data-action="login" data-redirect="/" data-second-step="#login-code" novalidate {
                    (Field::new(t.email, "email", "email").autocomplete("username").required().autofocus().render())
                    (Field::new(t.password, "password", "password").autocomplete("current-password").required().render())
                    (form_error())
                    button.primary type="submit" { (t.login_button) }
                    noscript { p.form-error { (t.script_required) } }
                }
            }
            // The second step for accounts with two-factor sign-in.
            form.stack #login-code data-action="loginTotp" data-redirect="/" hidden[challenge.is_none()] novalidate {
                h2 { (t.two_factor) }
                p.hint { (t.login_code_hint) }
                input type="hidden" name="challenge" value=(challenge.unwrap_or(""));
                (Field::new(t.totp_code_or_recovery, "code", "text").id("f-login-code")
                    .autocomplete("one-time-code").required().render())
                (form_error())
                button.primary type="submit" { (t.login_button) }
                p.links { a href="/login" { (t.back_to_sign_in) } }
            }
            @if passwords && challenge.is_none() {
                p.links data-first-step {
                    a href="/forgot-password" { (t.forgot_link) }
                    @if open {
                        " · " (t.no_account) " " a href="/register" { (t.register_title) }
                    }
                }
            }
        },
    )
    .into_response()
}

pub async fn register(State(state): State<AppState>, viewer: Viewer) -> Response {
    if viewer.session.is_some() {
        return Redirect::to("/").into_response();
    }
    let t = viewer.t();
    let open = sign_in::registration_open(&state).await;
    bare(
        &viewer,
        t.register_title,
        html! {
            h1 { (t.register_title) }
            @if state.config.oidc_only() {
                p.notice { (t.sso_only_register) }
                (sso_button(&state, t))
            } @else if open {
                form.stack data-action="register" data-redirect="/" novalidate {
                    (Field::new(t.name, "name", "text").autocomplete("name").autofocus().render())
                    (Field::new(t.email, "email", "email").autocomplete("email").required().render())
                    (Field::new(t.password, "password", "password").autocomplete("new-password")
                        .required().hint(t.password_hint).render())
                    (form_error())
                    button.primary type="submit" { (t.register_button) }
                    noscript { p.form-error { (t.script_required) } }
                }
            } @else {
                p.notice { (t.register_closed) }
            }
            p.links { (t.have_account) " " a href="/login" { (t.login_title) } }
        },
    )
    .into_response()
}

pub async fn forgot(viewer: Viewer) -> Response {
    let t = viewer.t();
    bare(
        &viewer,
        t.forgot_title,
        html! {
            h1 { (t.forgot_title) }
            p { (t.forgot_intro) }
            form.stack data-action="forgotPassword" data-done="hide" novalidate {
                (Field::new(t.email, "email", "email").autocomplete("email").required().render())
                (form_error())
                button.primary type="submit" { (t.forgot_button) }
            }
            (form_success(t.forgot_sent))
            p.links { a href="/login" { (t.login_title) } }
        },
    )
    .into_response()
}

#[derive(Deserialize)]
pub struct ResetQuery {
    token: Option<String>,
}

pub async fn reset(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(q): Query<ResetQuery>,
) -> Response {
    let t = viewer.t();
    let token = q.token.unwrap_or_default();
    let usable = sign_in::reset_link_usable(&state, &token).await;
    bare(
        &viewer,
        t.reset_title,
        html! {
            h1 { (t.reset_title) }
            @if usable {
                form.stack data-action="resetPassword" data-done="hide" novalidate {
                    input type="hidden" name="token" value=(token);
                    (Field::new(t.new_password, "password", "password").autocomplete("new-password")
                        .required().hint(t.password_hint).render())
                    (checkbox(t.revoke_tokens_too, "revokeApiTokens", true))
                    (form_error())
                    button.primary type="submit" { (t.reset_button) }
                }
                (form_success(t.reset_done))
            } @else {
                p.notice.error role="alert" { (t.reset_invalid) }
                p.links { a href="/forgot-password" { (t.forgot_title) } }
            }
            p.links { a href="/login" { (t.login_title) } }
        },
    )
    .into_response()
}
