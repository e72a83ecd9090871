//! `/settings`: profile, language, base currency, password.

use crate::domain::currency::KNOWN;
use crate::web::components::{form_error, form_success, Field};
use crate::web::layout::page;
use crate::web::Viewer;
use axum::response::{IntoResponse, Response};
use maud::html;

pub async fn show(viewer: Viewer) -> Response {
    let session = match viewer.require() {
        Ok(s) => s,
        Err(redirect) => return redirect.into_response(),
    };
    let t = viewer.t();
    let user = &session.user;
    page(
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
                    (form_error())
                    (form_success(t.saved))
                    button.primary type="submit" { (t.change_password) }
                }
            }
        },
    )
    .into_response()
}
