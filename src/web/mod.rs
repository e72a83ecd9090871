//! Pages: maud-rendered HTML, the layout and its components, and the
//! embedded assets. Page handlers read through the store or the actions'
//! read functions; every write goes through `POST /actions/{name}`.

pub mod assets;
pub mod charts;
pub mod components;
pub mod layout;
pub mod pages;

use crate::auth::session::Session;
use crate::i18n::{Locale, Texts};
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect};
use axum::routing::get;
use axum::Router;
use std::convert::Infallible;
use tower_http::catch_panic::CatchPanicLayer;

/// Who is looking at a page, and in which language.
pub struct Viewer {
    pub session: Option<Session>,
    pub locale: Locale,
}

impl Viewer {
    pub fn t(&self) -> &'static Texts {
        self.locale.texts()
    }
}

/// A signed-in visitor of a page. A page handler that takes it is never
/// called without a session: everyone else is redirected to `/login`.
pub struct SignedIn {
    pub viewer: Viewer,
    pub session: Session,
}

impl<S: Send + Sync> FromRequestParts<S> for SignedIn {
    type Rejection = Redirect;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Ok(viewer) = Viewer::from_request_parts(parts, state).await;
        match viewer.session.clone() {
            Some(session) => Ok(SignedIn { viewer, session }),
            None => Err(Redirect::to("/login")),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let session = parts.extensions.get::<Session>().cloned();
        let locale = match &session {
            Some(s) => s.user.locale,
            None => Locale::from_accept_language(
                parts
                    .headers
                    .get(header::ACCEPT_LANGUAGE)
                    .and_then(|v| v.to_str().ok()),
            ),
        };
        Ok(Viewer { session, locale })
    }
}

pub fn router(panic_routes: bool) -> Router<AppState> {
    let mut r = Router::new()
        .route("/", get(pages::dashboard::show))
        .route("/login", get(pages::auth::login))
        .route("/register", get(pages::auth::register))
        .route("/forgot-password", get(pages::auth::forgot))
        .route("/reset-password", get(pages::auth::reset))
        .route("/settings", get(pages::settings::show))
        .route("/accounts", get(pages::accounts::show))
        .route("/categories", get(pages::categories::show))
        .route("/budgets", get(pages::budgets::show))
        .route("/expenses", get(pages::expenses::show))
        .route("/subscriptions", get(pages::expenses::subscriptions_page))
        .route("/daily-expenses", get(pages::daily_expenses::show))
        .route("/incomes", get(pages::incomes::show))
        .route("/transfers", get(pages::transfers::show))
        .route("/search", get(pages::search::show))
        .route("/documents", get(pages::documents::show))
        .route("/forecasts", get(pages::forecasts::show))
        .route("/reserves", get(pages::reserves::show))
        .route("/insights", get(pages::insights::show))
        .route("/import", get(pages::import::show))
        .route("/assistant", get(pages::assistant::show))
        .route("/assets/{*path}", get(assets::serve))
        .route("/sw.js", get(assets::service_worker))
        .fallback(pages::errors::not_found);
    if panic_routes {
        r = r.route(
            "/__panic",
            get(|| async {
                if true {
                    panic!("deliberate panic for the tests");
                }
            }),
        );
    }
    r.layer(CatchPanicLayer::custom(
        |_: Box<dyn std::any::Any + Send>| {
            tracing::error!("panic in a page handler");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Html(pages::errors::panic_page()),
            )
                .into_response()
        },
    ))
}
