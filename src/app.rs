//! The shared state and the router: everything `serve` runs and the tests
//! start on `127.0.0.1:0`.

use crate::actions::{self, Registry};
use crate::auth::login_limit::SignInGuard;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::Result;
use crate::services::mail::Mailer;
use crate::services::rates::RateStore;
use crate::store::Db;
use crate::{api, auth, web};
use axum::extract::Request;
use axum::http::{header, HeaderName, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use std::ops::Deref;
use std::sync::Arc;
use tower_http::set_header::SetResponseHeaderLayer;

/// Cheap to clone: every handler gets one.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub db: Db,
    pub clock: Clock,
    pub mailer: Mailer,
    /// Limits of password checks, per address and per client.
    pub sign_in: SignInGuard,
    /// Rate limit and "last used" bookkeeping of API tokens.
    pub api_guard: crate::auth::api_tokens::ApiGuard,
    /// Known API tokens while the database is unchanged.
    pub token_cache: crate::api::v1::auth::TokenCache,
    /// Computed `/api/v1` replies, by user data version.
    pub summary_cache:
        crate::api::v1::cache::ReplyCache<crate::api::v1::cache::Until<axum::body::Bytes>>,
    pub accounts_cache: crate::api::v1::cache::ReplyCache<axum::body::Bytes>,
    pub actions: Registry,
    /// One lock per recurring job.
    pub jobs: crate::jobs::JobLocks,
    /// The current exchange-rate table (`services::rates`).
    pub rates: RateStore,
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// Opens (and migrates) the database and prepares the outbound services.
    pub fn new(config: Config) -> Result<AppState> {
        AppState::with_clock(config, Clock::default())
    }

    pub fn with_clock(config: Config, clock: Clock) -> Result<AppState> {
        let db = Db::open(&config.data_dir)?;
        let mailer = Mailer::from_config(&config)?;
        let rates = RateStore::load(&db)?;
        let sign_in = SignInGuard::new(config.signin_limit);
        Ok(AppState(Arc::new(Inner {
            config,
            db,
            clock,
            mailer,
            sign_in,
            api_guard: Default::default(),
            token_cache: Default::default(),
            summary_cache: Default::default(),
            accounts_cache: Default::default(),
            actions: actions::registry(),
            jobs: Default::default(),
            rates,
        })))
    }
}

/// The Content-Security-Policy of every response: no inline script or style,
/// nothing from elsewhere, never framed.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; \
    base-uri 'self'; form-action 'self'; frame-ancestors 'none'; manifest-src 'self'; \
    worker-src 'self'";

/// The whole service.
pub fn router(state: AppState) -> Router {
    let panic_routes = state.config.panic_routes;
    let headers = [
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
    let mut app = Router::new()
        .merge(actions::router(panic_routes))
        .nest("/api", api::router(state.clone(), panic_routes))
        .merge(web::router(panic_routes))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            auth::session::layer,
        ));
    for (name, value) in headers {
        app = app.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    app.layer(middleware::from_fn(log_request))
        .with_state(state)
}

/// One log line per request: method, path (never the query, which may hold a
/// reset token), status and time. Headers and bodies are not logged.
async fn log_request(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let started = std::time::Instant::now();
    let res = next.run(req).await;
    let status = res.status().as_u16();
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    if status >= 500 {
        tracing::warn!(%method, %path, status, ms, "request");
    } else {
        tracing::debug!(%method, %path, status, ms, "request");
    }
    res
}
