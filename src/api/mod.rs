//! HTTP routes under `/api`: session routes under `/api/auth`, push, cron,
//! exchange rates, the receipt scan, and the REST API under `/api/v1` (its
//! own module). Every answer here is JSON, errors
//! and unknown paths included.

pub mod ai_turn;
pub mod auth;
pub mod chat;
pub mod cron;
pub mod documents;
pub mod error;
pub mod exchange_rates;
pub mod export;
pub mod import_data;
pub mod imports;
pub mod oidc;
pub mod push;
pub mod receipts;
pub mod v1;

use crate::http::guard::{guard, Door};
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodFilter};
use axum::Router;

/// Middleware of every `/api` route: a request that may change something
/// (any method but GET, HEAD and OPTIONS) gets the same cross-site check as
/// the actions (`auth::origin`), accepting a multipart upload besides JSON.
async fn same_site_writes(
    axum::extract::State(state): axum::extract::State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    use axum::http::Method;
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    use crate::auth::origin::{write_refusal, Body};
    if let Some(why) = write_refusal(&state.config, req.headers(), Body::JsonOrUpload) {
        return error(StatusCode::FORBIDDEN, why);
    }
    next.run(req).await
}

pub use error::ApiError;

/// A failure of the layers below as every `/api` route answers it ([`ApiError`]).
pub fn failure(e: crate::Error) -> Response {
    ApiError::from(e).into_response()
}

/// A failure of the layers below for the person signed in, in their
/// language ([`ApiError::worded`]).
pub fn refusal(e: crate::Error, locale: crate::domain::locale::Locale) -> Response {
    ApiError::worded(e, locale).into_response()
}

/// A route handler's error body: `{"error": "…"}` with `status` ([`ApiError`]).
pub fn error(status: StatusCode, message: impl Into<String>) -> Response {
    ApiError::new(status, message).into_response()
}

pub fn router(state: AppState, panic_routes: bool) -> Router<AppState> {
    let r = Router::new()
        .route("/auth/session", get(auth::session))
        .route("/auth/oidc/start", get(oidc::start))
        .route("/auth/oidc/callback", get(oidc::callback))
        .route("/exchange-rates", get(exchange_rates::get))
        // Only GET: anything else is a 405 (`docs/planning.md`).
        .route("/cron/upcoming-payments", get(cron::upcoming_payments))
        .route("/cron/insights", get(cron::insights))
        .route("/push/vapid-public-key", get(push::public_key))
        .route(
            "/push/subscribe",
            axum::routing::post(push::subscribe)
                .delete(push::unsubscribe)
                .layer(axum::extract::DefaultBodyLimit::max(16 * 1024)),
        )
        .route(
            "/documents",
            get(documents::list).post(documents::upload).layer(
                axum::extract::DefaultBodyLimit::max(documents::UPLOAD_BODY_LIMIT),
            ),
        )
        .route(
            "/documents/{id}",
            get(documents::get).delete(documents::delete),
        )
        .route(
            "/imports",
            axum::routing::post(imports::upload)
                .layer(axum::extract::DefaultBodyLimit::max(imports::BODY_LIMIT)),
        )
        .route("/export", get(export::download))
        .route("/export/daily-expenses", get(export::daily_expenses))
        .route("/export/search", get(export::search))
        .route(
            "/import-data",
            axum::routing::post(import_data::upload).layer(axum::extract::DefaultBodyLimit::max(
                import_data::body_limit(state.config.document_quota),
            )),
        )
        .route("/chat", axum::routing::post(chat::chat))
        .route(
            "/receipt-scan",
            axum::routing::post(receipts::scan)
                .layer(axum::extract::DefaultBodyLimit::max(receipts::BODY_LIMIT)),
        )
        .fallback(|| async { error(StatusCode::NOT_FOUND, "not found") });
    let door = Door {
        name: "an /api handler",
        test_route: "/__panic",
        test_method: MethodFilter::GET,
        reply: || error(StatusCode::INTERNAL_SERVER_ERROR, "internal error"),
    };
    guard(r, door, panic_routes)
        .layer(axum::middleware::from_fn_with_state(
            state,
            same_site_writes,
        ))
        // Nested after the layer: /api/v1 has its own error shape and panic handler.
        .nest("/v1", v1::router(panic_routes))
}
