//! The 404 page, the page a panic turns into, and the busy page.

use crate::http::session::Viewer;
use crate::web::layout::bare;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, DOCTYPE};

/// Fallback of every path no route knows.
pub async fn not_found(viewer: Viewer) -> Response {
    let t = viewer.t();
    let content = html! {
        h1 { (t.not_found_title) }
        p { (t.not_found_text) }
        p { a.button href="/" { (t.back_home) } }
    };
    // Signed in, the page keeps the navigation, so every page is a click away.
    let body = if viewer.session.is_some() {
        crate::web::layout::page(&viewer, "", t.not_found_title, content)
    } else {
        bare(&viewer, t.not_found_title, content)
    };
    (StatusCode::NOT_FOUND, body).into_response()
}

/// The body of a 500 after a panic. It knows nothing of the request, so it
/// speaks both languages and needs no assets.
pub fn panic_page() -> String {
    let (en, de) = (&crate::i18n::EN, &crate::i18n::DE);
    html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { (en.error_title) } }
            body {
                main {
                    h1 { (en.error_title) } p { (en.error_text) }
                    h1 lang="de" { (de.error_title) } p lang="de" { (de.error_text) }
                    p { a href="/" { "cashkeeper" } }
                }
            }
        }
    }
    .into_string()
}

/// The body of a 503 when the work behind a page could not run now (no
/// database connection came free, a read passed its time budget): the
/// visitor is still signed in and is asked to reload. Like [`panic_page`],
/// in both languages and without assets, since it may stand for a session
/// that could not be looked up.
pub fn busy_page() -> String {
    let (en, de) = (&crate::i18n::EN, &crate::i18n::DE);
    html! {
        (DOCTYPE)
        html lang="en" {
            head { meta charset="utf-8"; title { (en.busy_title) } }
            body {
                main {
                    h1 { (en.busy_title) } p { (en.busy_text) }
                    h1 lang="de" { (de.busy_title) } p lang="de" { (de.busy_text) }
                    p { a href="" { "cashkeeper" } }
                }
            }
        }
    }
    .into_string()
}

/// The whole 503 reply of [`busy_page`], with `Retry-After`.
pub fn busy() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(
            axum::http::header::RETRY_AFTER,
            crate::error::RETRY_AFTER_BUSY.to_string(),
        )],
        axum::response::Html(busy_page()),
    )
        .into_response()
}
