//! The router: everything `serve` runs and the tests start on
//! `127.0.0.1:0`, with the middleware every request passes (the session,
//! security headers, one log line).

use crate::auth::session;
use crate::state::AppState;
use crate::{actions, api, web};
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// The Content-Security-Policy of every response: no inline script or style,
/// nothing from elsewhere, never framed.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; \
    base-uri 'self'; form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; \
    worker-src 'self'";

/// The security headers every answer carries, also those the HTTP layer
/// makes itself before any route is reached (a head too large, a URI too
/// long: `server`).
pub fn security_headers(config: &crate::config::Config) -> Vec<(HeaderName, &'static str)> {
    let mut headers = vec![
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=()",
        ),
        // Pages and replies carry someone's finances: no browser or proxy
        // keeps a copy. Assets and the few routes that may be cached set
        // their own policy, which this leaves alone.
        (header::CACHE_CONTROL, "no-store"),
    ];
    if config.secure_cookies() {
        // Served over https (its base URL says so): browsers use only https
        // for a year, so nobody on the way can downgrade the next visit.
        headers.push((header::STRICT_TRANSPORT_SECURITY, "max-age=31536000"));
    }
    headers
}

/// The whole service.
pub fn router(state: AppState) -> Router {
    let panic_routes = state.config.panic_routes;
    let headers = security_headers(&state.config);
    let mut app = Router::new()
        .merge(actions::router(panic_routes))
        .nest("/api", api::router(state.clone(), panic_routes))
        .merge(web::router(panic_routes))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            resolve_session,
        ));
    for (name, value) in headers {
        app = app.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    app.layer(middleware::from_fn(crate::memory::trim_after_large_replies))
        .layer(middleware::from_fn(log_request))
        .with_state(state)
}

/// Middleware: resolves the session cookie (if any) into a [`Session`]
/// extension and renews the cookie when the expiry slid forward.
async fn resolve_session(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path();
    // The REST API authenticates by token and assets need no user: no lookup.
    let skip = path.starts_with("/assets/") || path.starts_with("/api/v1/");
    let token = if skip {
        None
    } else {
        session::cookie_value(req.headers(), session::COOKIE)
            .filter(|t| t.len() == 64 && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_owned)
    };
    let mut renew = None;
    if let Some(token) = token {
        match session::resolve(&state.db, &state.clock, &token).await {
            Ok(Some((session, slid))) => {
                if slid {
                    renew = Some(token);
                }
                req.extensions_mut().insert(session);
            }
            Ok(None) => {}
            Err(e) => {
                // Not known to be signed out: never a redirect to /login or
                // a 401, but 503 busy in the shape the path answers.
                e.log();
                return busy(path_kind(req.uri().path()));
            }
        }
    }
    let mut res = next.run(req).await;
    if let Some(token) = renew {
        // An action that ended or replaced the session has set its own cookie.
        if !res.headers().contains_key(header::SET_COOKIE) {
            if let Ok(v) = HeaderValue::from_str(&session::set_cookie(&state.config, &token)) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
        }
    }
    res
}

/// What answers at a path, for the shape of a reply made before its handler.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PathKind {
    /// `POST /actions/{name}`: the envelope `{"success":false,"error"}`.
    Action,
    /// `/api/…`: `{"error":"…"}`.
    Api,
    Page,
}

fn path_kind(path: &str) -> PathKind {
    if path.starts_with("/actions/") {
        PathKind::Action
    } else if path.starts_with("/api/") {
        PathKind::Api
    } else {
        PathKind::Page
    }
}

/// 503 with `Retry-After` when the session could not be looked up
/// ([`crate::Error::Busy`]), worded in English and German since the
/// visitor's language is their session's.
fn busy(kind: PathKind) -> Response {
    use axum::response::IntoResponse;
    let e = crate::Error::busy(anyhow::anyhow!("session lookup"));
    let words = format!(
        "{} / {}",
        e.text(crate::domain::locale::Locale::En),
        e.text(crate::domain::locale::Locale::De)
    );
    match kind {
        PathKind::Page => web::pages::errors::busy(),
        PathKind::Action => {
            let mut res = actions::failure(axum::http::StatusCode::SERVICE_UNAVAILABLE, words);
            res.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(crate::error::RETRY_AFTER_BUSY),
            );
            res
        }
        PathKind::Api => api::ApiError {
            retry_after: Some(crate::error::RETRY_AFTER_BUSY),
            ..api::ApiError::new(axum::http::StatusCode::SERVICE_UNAVAILABLE, words)
        }
        .into_response(),
    }
}

/// One log line per request: method, path (never the query, which may hold a
/// reset token), status, time and, for a failed request, the error: an
/// internal one's causes, a refusal's English words. Headers and bodies
/// are not logged.
async fn log_request(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let started = std::time::Instant::now();
    let (res, failure) = crate::error::noting_failure(next.run(req)).await;
    let status = res.status().as_u16();
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    match (status >= 500, failure) {
        (true, Some(error)) => tracing::warn!(%method, %path, status, ms, %error, "request"),
        (true, None) => tracing::warn!(%method, %path, status, ms, "request"),
        (false, Some(error)) => tracing::debug!(%method, %path, status, ms, %error, "request"),
        (false, None) => tracing::debug!(%method, %path, status, ms, "request"),
    }
    res
}
