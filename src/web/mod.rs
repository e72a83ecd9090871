//! Pages: maud-rendered HTML, the layout and its components, and the
//! embedded assets. Every screen is a row of [`SCREENS`]; its handler reads
//! the typed values it shows from `app`, and every write goes through
//! `POST /actions/{name}`.

pub mod assets;
pub mod charts;
pub mod components;
pub mod layout;
pub mod pages;

use crate::http::guard::{guard, Door};
use crate::i18n::Texts;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse};
use axum::routing::{get, MethodFilter, MethodRouter};
use axum::Router;

/// One screen: its path, its label in the main navigation (`None`: not in
/// it) and its handler.
pub struct Screen {
    pub path: &'static str,
    pub nav: Option<fn(&Texts) -> &'static str>,
    handler: fn() -> MethodRouter<AppState>,
}

const fn screen(
    path: &'static str,
    nav: Option<fn(&Texts) -> &'static str>,
    handler: fn() -> MethodRouter<AppState>,
) -> Screen {
    Screen { path, nav, handler }
}

/// Every screen, routed by [`router`]; the main navigation lists those
/// with a label, in this order. A new page is one row here.
#[rustfmt::skip]
pub const SCREENS: &[Screen] = &[
    screen("/", Some(|t| t.nav_dashboard), || get(pages::dashboard::show)),
    screen("/accounts", Some(|t| t.nav_accounts), || get(pages::accounts::show)),
    screen("/expenses", Some(|t| t.nav_expenses), || get(pages::expenses::show)),
    screen("/daily-expenses", Some(|t| t.nav_daily_expenses), || get(pages::daily_expenses::show)),
    screen("/subscriptions", Some(|t| t.nav_subscriptions), || get(pages::expenses::subscriptions_page)),
    screen("/incomes", Some(|t| t.nav_incomes), || get(pages::incomes::show)),
    screen("/transfers", Some(|t| t.nav_transfers), || get(pages::transfers::show)),
    screen("/categories", Some(|t| t.nav_categories), || get(pages::categories::show)),
    screen("/budgets", Some(|t| t.nav_budgets), || get(pages::budgets::show)),
    screen("/documents", Some(|t| t.nav_documents), || get(pages::documents::show)),
    screen("/reserves", Some(|t| t.nav_reserves), || get(pages::reserves::show)),
    screen("/forecasts", Some(|t| t.nav_forecasts), || get(pages::forecasts::show)),
    screen("/insights", Some(|t| t.nav_insights), || get(pages::insights::show)),
    screen("/import", Some(|t| t.nav_import), || get(pages::import::show)),
    screen("/bank", None, || get(pages::bank::list)),
    screen("/bank/connect", None, || get(pages::bank::connect)),
    screen("/bank/{id}", None, || get(pages::bank::show)),
    screen("/search", Some(|t| t.nav_search), || get(pages::search::show)),
    screen("/assistant", Some(|t| t.nav_assistant), || get(pages::assistant::show)),
    screen("/settings", Some(|t| t.nav_settings), || get(pages::settings::show)),
    screen("/login", None, || get(pages::auth::login)),
    screen("/register", None, || get(pages::auth::register)),
    screen("/forgot-password", None, || get(pages::auth::forgot)),
    screen("/reset-password", None, || get(pages::auth::reset)),
];

pub fn router(panic_routes: bool) -> Router<AppState> {
    let routes = SCREENS
        .iter()
        .fold(Router::new(), |r, s| r.route(s.path, (s.handler)()))
        .route("/assets/{*path}", get(assets::serve))
        .route("/sw.js", get(assets::service_worker))
        .fallback(pages::errors::not_found);
    let door = Door {
        name: "a page handler",
        test_route: "/__panic",
        test_method: MethodFilter::GET,
        reply: || {
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Html(pages::errors::panic_page()),
            )
                .into_response()
        },
    };
    guard(routes, door, panic_routes)
}
