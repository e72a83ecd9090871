//! `/settings`: profile, language, base currency, password.

use crate::auth::api_tokens::LIFETIMES;
use crate::domain::currency::KNOWN;
use crate::state::AppState;
use crate::store::api_tokens;
use crate::web::components::{checkbox, delete_button, form_error, form_success, select, Field};
use crate::web::layout::page;
use crate::web::pages::common::PageResult;
use crate::web::SignedIn;
use axum::extract::State;
use axum::response::IntoResponse;
use maud::html;

pub async fn show(
    State(state): State<AppState>,
    SignedIn { viewer, session }: SignedIn,
) -> PageResult {
    let uid = session.user.id.clone();
    let tokens = state.db.run(move |c| api_tokens::list(c, &uid)).await?;
    let now = crate::clock::timestamp(state.clock.now());
    let t = viewer.t();
    let user = &session.user;
    let mut lifetimes: Vec<(String, String)> = LIFETIMES
        .iter()
        .map(|d| (d.to_string(), t.after_days.replace("{}", &d.to_string())))
        .collect();
    lifetimes.push((String::new(), t.never.to_string()));
    let when = |ts: &Option<String>, none: &str| match ts {
        Some(v) => v.replace('T', " ").trim_end_matches('Z').to_string(),
        None => none.to_string(),
    };
    Ok(page(
        &viewer,
        "/settings",
        t.settings_title,
        html! {
            h1 { (t.settings_title) }
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
                    (Field::new(t.current_password, "currentPassword", "password")
                        .autocomplete("current-password").required().render())
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
                    data-text-unconfigured=(t.reminders_unconfigured)
                    data-label-on=(t.reminders_on) data-label-off=(t.reminders_off) {
                    p.push-state role="status" aria-live="polite" { (t.reminders_inactive) }
                    button.primary type="button" hidden { (t.reminders_on) }
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
                    (Field::new(t.token_name, "name", "text").required().render())
                    (select(t.expires, "expiresInDays", &lifetimes, Some("365"), None))
                    (Field::new(t.confirm_with_password, "password", "password")
                        .autocomplete("current-password").required().render())
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
            section.panel #export {
                h2 { (t.export_my_data) }
                p.hint { (t.export_my_data_intro) }
                p { a.button href="/api/export" download { (t.export_my_data) } }
                h3 { (t.load_export) }
                p.hint { (t.load_export_intro) }
                form.stack.upload data-upload="/api/import-data" {
                    input #f-import-data type="file" name="file" accept=".zip,application/zip" required
                        aria-label=(t.load_export);
                    span.field-error data-error-for="file" aria-live="polite" {}
                    (form_error())
                    div.buttons { button type="submit" { (t.load_export) } }
                }
            }
            section.panel #delete-account {
                h2 { (t.delete_my_account) }
                p.hint { (t.delete_my_account_intro) }
                form.stack data-action="deleteUser" data-redirect="/login"
                    data-confirm=(t.delete_my_account_confirm) novalidate {
                    (Field::new(t.current_password, "password", "password").id("f-delete-password")
                        .autocomplete("current-password").required().render())
                    (form_error())
                    button.danger type="submit" { (t.delete_my_account) }
                }
            }
        },
    )
    .into_response())
}
