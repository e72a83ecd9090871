//! The read-only REST API `/api/v1` (SPEC.md section 4.3). Every response,
//! errors included, is JSON with `Cache-Control: no-store`; errors are
//! `{"error":{"code","message"}}`.

use crate::app::AppState;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// A REST API error: `{"error":{"code","message"}}` with `status`.
pub fn error(status: StatusCode, code: &str, message: impl Into<String>) -> Response {
    (
        status,
        Json(json!({ "error": { "code": code, "message": message.into() } })),
    )
        .into_response()
}

pub fn router(panic_routes: bool) -> Router<AppState> {
    let mut r = Router::new()
        .route("/health", get(health))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "not_found", "no such endpoint") });
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
            tracing::error!("panic in an /api/v1 handler");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "internal error",
            )
        },
    ))
    .layer(SetResponseHeaderLayer::overriding(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    ))
}

/// `GET /api/v1/health`: the only endpoint without a token; any
/// `Authorization` header is ignored.
async fn health() -> impl IntoResponse {
    Json(json!({
        "status": "ok",
        "version": crate::VERSION,
        "apiVersion": crate::API_VERSION,
    }))
}
