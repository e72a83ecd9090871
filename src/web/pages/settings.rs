//! `/settings`: profile, language, base currency, password, two-factor
//! sign-in, signed-in browsers, API tokens, reminders, export, deletion.

use crate::app::{api_tokens, sessions, sign_in};
use crate::auth::api_tokens::LIFETIMES;
use crate::domain::currency::KNOWN;
use crate::domain::user_agent;
use crate::http::session::SignedIn;
use crate::state::AppState;
use crate::web::components::{
    checkbox, delete_button, form_error, form_success, local_time, select, Field,
};
use crate::web::layout::page;
use crate::web::pages::common::PageResult;
use axum::extract::State;
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let uid = &session.user.id;
    let tokens = api_tokens::list(&state, uid).await?;
    let two_factor = sign_in::two_factor_status(&state, uid).await?;
    let browsers = sessions::list(&state, uid).await?;
    let has_password = sign_in::has_password(&state, uid).await?;
    let now = crate::clock::timestamp(state.clock.now());
    let t = viewer.t();
    let user = &session.user;
    // A password field that confirms a change: optional for an account that
    // signs in through the provider and has no password.
    let confirm = |f: Field<'_>| {
        if has_password {
            f.required().render()
        } else {
            f.hint(t.sso_password_hint).render()
        }
    };
    let provider = state.config.oidc.as_ref().map(|o| o.label(t.sso_button));
    let mut lifetimes: Vec<(String, String)> = LIFETIMES
        .iter()
        .map(|d| (d.to_string(), t.after_days.replace("{}", &d.to_string())))
        .collect();
    lifetimes.push((String::new(), t.never.to_string()));
    let when = |ts: &Option<String>, none: &str| match ts {
        Some(v) => local_time(v, viewer.locale),
        None => html! { (none) },
    };
    Ok(page(
        &viewer,
        "/settings",
        t.settings_title,
        html! {
            h1 { (t.settings_title) }
            @if !has_password {
                p.notice {
                    (t.sso_no_password) " "
                    @if let Some(label) = provider {
                        a href="/api/auth/oidc/start?return=/settings" { (label) }
                    }
                }
            }
            section.panel {
                h2 { (t.settings_profile) }
                form.stack data-action="updateSettings" data-reload="" novalidate {
                    (Field::new(t.name, "name", "text").value(&user.name).autocomplete("name").render())
                    div.field {
                        label for="f-locale" { (t.language) }
                        select #f-locale name="locale" aria-describedby="f-locale-error" {
                            option value="de" selected[user.locale.code() == "de"] { "Deutsch" }
                            option value="en" selected[user.locale.code() == "en"] { "English" }
                        }
                        span.field-error #f-locale-error data-error-for="locale" aria-live="polite" {}
                    }
                    div.field {
                        label for="f-baseCurrency" { (t.base_currency) }
                        select #f-baseCurrency name="baseCurrency" aria-describedby="f-baseCurrency-error" {
                            @for code in KNOWN {
                                option value=(code) selected[*code == user.base_currency] { (code) }
                            }
                        }
                        span.field-error #f-baseCurrency-error data-error-for="baseCurrency" aria-live="polite" {}
                    }
                    (form_error())
                    button.primary type="submit" { (t.save) }
                }
            }
            section.panel {
                h2 { (t.change_password) }
                form.stack data-action="changePassword" data-done="reset" novalidate {
                    (confirm(Field::new(t.current_password, "currentPassword", "password")
                        .autocomplete("current-password")))
                    (Field::new(t.new_password, "newPassword", "password")
                        .autocomplete("new-password").required().hint(t.password_hint).render())
                    (checkbox(t.revoke_tokens_too, "revokeApiTokens", true))
                    (form_error())
                    (form_success(t.saved))
                    button.primary type="submit" { (t.change_password) }
                }
            }
            section.panel #reminders {
                h2 { (t.reminders) }
                p.hint { (t.reminders_intro) }
                div.push-toggle data-push-toggle
                    data-text-active=(t.reminders_active) data-text-inactive=(t.reminders_inactive)
                    data-text-unsupported=(t.reminders_unsupported) data-text-denied=(t.reminders_denied)
                    data-text-unconfigured=(t.reminders_unconfigured) data-text-failed=(t.reminders_failed)
                    data-label-on=(t.reminders_on) data-label-off=(t.reminders_off) {
                    p.push-state role="status" aria-live="polite" { (t.reminders_inactive) }
                    button.primary type="button" hidden { (t.reminders_on) }
                }
            }
            section.panel #two-factor {
                h2 { (t.two_factor) }
                p.hint { (t.two_factor_intro) }
                @if two_factor.enabled {
                    @let on = t.two_factor_on.replace("{left}", &two_factor.recovery_codes_left.to_string());
                    @let (before, after) = on.split_once("{date}").unwrap_or((&on, ""));
                    p.status-on {
                        (before)
                        @if let Some(at) = &two_factor.enabled_at { (local_time(at, viewer.locale)) }
                        (after)
                    }
                    form.stack data-action="disableTotp" data-reload="" novalidate {
                        (confirm(Field::new(t.current_password, "password", "password").id("f-totp-password")
                            .autocomplete("current-password")))
                        (Field::new(t.totp_code_or_recovery, "code", "text").id("f-totp-off-code")
                            .autocomplete("one-time-code").required().render())
                        (form_error())
                        button.danger type="submit" { (t.two_factor_disable) }
                    }
                } @else {
                    p.status-off { (t.two_factor_off) }
                    div.totp-setup data-totp-setup {
                        form.stack data-action="beginTotpSetup" data-totp-begin novalidate {
                            (confirm(Field::new(t.current_password, "password", "password").id("f-totp-begin-password")
                                .autocomplete("current-password")))
                            (form_error())
                            button.primary type="submit" { (t.two_factor_setup) }
                        }
                        div.totp-steps hidden {
                            p.hint { (t.two_factor_scan) }
                            img.totp-qr alt=(t.two_factor_qr) width="200" height="200";
                            p { (t.two_factor_key) ": " code.totp-key {} }
                            // The QR code can't be scanned by the phone that
                            // shows it: its `otpauth://` address opens the app.
                            p { a.totp-link href="#" { (t.two_factor_open_app) } }
                            form.stack data-action="enableTotp" data-totp-enable novalidate {
                                (Field::new(t.totp_code, "code", "text").id("f-totp-code").inputmode("numeric")
                                    .autocomplete("one-time-code").required().render())
                                (form_error())
                                button.primary type="submit" { (t.two_factor_enable) }
                            }
                        }
                        div.notice.totp-recovery hidden tabindex="-1" {
                            h3 { (t.recovery_codes_title) }
                            p { (t.recovery_codes_intro) }
                            ol.recovery-codes {}
                            p.buttons {
                                button type="button" data-copy=".recovery-codes" data-copied=(t.copied) { (t.copy) }
                                " "
                                a.button.primary href="/settings#two-factor" data-totp-done { (t.recovery_codes_done) }
                            }
                        }
                    }
                }
            }
            section.panel #sessions {
                h2 { (t.sessions_title) }
                p.hint { (t.sessions_intro) }
                table.records {
                    thead { tr {
                        th { (t.session_browser) } th { (t.session_signed_in) } th { (t.session_last_seen) }
                        th { span.sr-only { (t.actions) } }
                    } }
                    tbody {
                        @for b in &browsers {
                            @let current = b.id == session.id;
                            @let name = user_agent::label(&b.user_agent, t.browser_on)
                                .unwrap_or_else(|| t.unknown_browser.to_string());
                            tr.current[current] {
                                td {
                                    span title=(b.user_agent) { (name) }
                                    @if current { " " span.badge { (t.this_browser) } }
                                }
                                td { (local_time(&b.created_at, viewer.locale)) }
                                td { (local_time(&b.last_seen_at, viewer.locale)) }
                                td.row-actions {
                                    @if current {
                                        form.inline data-action="logout" data-redirect="/login" {
                                            button.link type="submit" { (t.sign_out) }
                                        }
                                    } @else {
                                        (delete_button("revokeSession", &b.id, t.confirm_sign_out, t.sign_out))
                                    }
                                }
                            }
                        }
                    }
                }
                @if browsers.len() > 1 {
                    form.inline data-action="revokeOtherSessions" data-reload="" {
                        button type="submit" { (t.sign_out_others) }
                        (form_error())
                    }
                }
            }
            section.panel #api-tokens {
                h2 { (t.api_tokens) }
                p.hint { (t.api_tokens_intro) " " a href="/api/v1/openapi.json" { "OpenAPI" } }
                @if tokens.is_empty() {
                    p.muted { (t.no_tokens) }
                } @else {
                    table.records {
                        thead { tr { th { (t.name) } th { (t.created) } th { (t.expires) } th { (t.last_used) } th { span.sr-only { (t.actions) } } } }
                        tbody {
                            @for tok in &tokens {
                                @let expired = tok.expires_at.as_deref().is_some_and(|e| e <= now.as_str());
                                tr.inactive[expired] {
                                    td { (tok.name) }
                                    td { (when(&Some(tok.created_at.clone()), "")) }
                                    td { (when(&tok.expires_at, t.never)) @if expired { " " span.badge.muted { (t.expired) } } }
                                    td { (when(&tok.last_used_at, t.never_used)) }
                                    td.row-actions { (delete_button("revokeApiToken", &tok.id, t.confirm_revoke, t.revoke)) }
                                }
                            }
                        }
                    }
                }
                form.stack data-action="createApiToken" data-done="reset" data-token-output="#new-token" novalidate {
                    (Field::new(t.token_name, "name", "text").id("f-token-name").required().render())
                    (select(t.expires, "expiresInDays", &lifetimes, Some("365"), None))
                    (confirm(Field::new(t.confirm_with_password, "password", "password")
                        .autocomplete("current-password")))
                    (form_error())
                    button.primary type="submit" { (t.create_token) }
                }
                div #new-token.notice hidden {
                    p { strong { (t.token_once) } }
                    p.token-row {
                        code #new-token-value {}
                        button type="button" data-copy="#new-token-value" data-copied=(t.copied) { (t.copy) }
                    }
                }
            }
            (super::bank::panel(viewer.locale, crate::i18n::bank_pages::words(viewer.locale).title))
            section.panel #export {
                h2 { (t.export_my_data) }
                p.hint { (t.export_my_data_intro) }
                p { a.button href="/api/export" download { (t.export_my_data) } }
                h3 { (t.load_export) }
                p.hint { (t.load_export_intro) }
                form.stack.upload #load-export data-upload="/api/import-data" {
                    input #f-import-data type="file" name="file" accept=".zip,application/zip" required
                        aria-label=(t.load_export);
                    span.field-error data-error-for="file" aria-live="polite" {}
                    (form_error())
                    p.form-success role="status" hidden {}
                    div.buttons { button type="submit" { (t.load_export) } }
                }
            }
            section.panel #delete-account {
                h2 { (t.delete_my_account) }
                p.hint { (t.delete_my_account_intro) }
                form.stack data-action="deleteUser" data-redirect="/login"
                    data-confirm=(t.delete_my_account_confirm) novalidate {
                    (confirm(Field::new(t.current_password, "password", "password").id("f-delete-password")
                        .autocomplete("current-password")))
                    (form_error())
                    button.danger type="submit" { (t.delete_my_account) }
                }
            }
        },
    )
    .into_response())
}
