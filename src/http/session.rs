//! Who asks: the session the router's middleware found for a request
//! ([`of`]), the extractors that hand it to a handler ([`SignedIn`] and
//! [`Viewer`] for pages, [`SessionUser`] for the `/api` session routes),
//! and the cookies a started session sets ([`cookies`]).

use crate::app::sign_in::SignedIn as Started;
use crate::auth::session::{self, Session};
use crate::domain::locale::Locale;
use crate::i18n::Texts;
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Json;
use std::convert::Infallible;

/// The request's session, if it came with a valid one.
pub fn of(parts: &Parts) -> Option<Session> {
    parts.extensions.get::<Session>().cloned()
}

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
        let session = of(parts);
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

/// The signed-in user of a session route under `/api`. A handler that takes
/// it is never called without a session: the caller gets 401
/// `{"error":"unauthorized"}` instead (the JSON twin of [`SignedIn`]).
pub struct SessionUser(pub Session);

impl<S: Send + Sync> FromRequestParts<S> for SessionUser {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        of(parts).map(SessionUser).ok_or_else(|| {
            (
                StatusCode::UNAUTHORIZED,
                Json(serde_json::json!({ "error": "unauthorized" })),
            )
                .into_response()
        })
    }
}

/// The `Set-Cookie` values of a session started: the session's, and after
/// a password the cookie that marks this browser as known to the account
/// (`auth::session::KNOWN_COOKIE`).
pub fn cookies(state: &AppState, started: &Started) -> Vec<String> {
    let mut cookies = vec![session::set_cookie(&state.config, &started.token)];
    if started.via == session::Via::Password {
        // A right password: this browser is known to the account from now on.
        cookies.push(session::set_known_cookie(
            &state.config,
            &state.sealer,
            &started.user.email.to_lowercase(),
        ));
    }
    cookies
}
