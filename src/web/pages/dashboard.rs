//! `/`: the dashboard.

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
    let greeting = if user.name.is_empty() {
        &user.email
    } else {
        &user.name
    };
    page(
        &viewer,
        "/",
        t.dashboard_title,
        html! {
            h1 { (t.dashboard_title) }
            section.panel {
                h2 { (t.dashboard_welcome) ", " (greeting) }
                p.muted { (t.dashboard_empty) }
                p { a.button href="/accounts" { (t.nav_accounts) } }
            }
        },
    )
    .into_response()
}
