//! The read-only REST API `/api/v1` (`docs/api.md`) for integrations
//! such as Home Assistant, authenticated by personal API token. Every
//! response, errors included, is JSON with `Cache-Control: no-store`; errors
//! are `{"error":{"code","message"}}`.

pub mod accounts;
pub mod auth;
pub mod budgets;
pub mod insights;
pub mod me;
pub mod net_worth;
pub mod payments;
pub mod summary;

use crate::http::guard::{guard, Door};
use crate::state::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodFilter};
use axum::{Json, Router};
use serde_json::json;
use std::ops::RangeInclusive;

use tower_http::set_header::SetResponseHeaderLayer;

/// The realm of `WWW-Authenticate` on 401s.
pub const REALM: &str = "cashkeeper";

/// A REST API error (`docs/api.md`, Errors).
#[derive(Debug)]
pub struct RestError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    retry_after: Option<i64>,
}

impl RestError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        RestError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }
    /// 400: a query parameter is missing or invalid; the message names it.
    pub fn invalid(field: &str, message: impl std::fmt::Display) -> Self {
        RestError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            format!("{field}: {message}"),
        )
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        RestError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        RestError::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    pub fn rate_limited(retry_after: i64) -> Self {
        RestError {
            retry_after: Some(retry_after),
            ..RestError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("too many requests for this token; retry in {retry_after} s"),
            )
        }
    }
    /// 503 `busy` with `Retry-After`: the work could not run now
    /// ([`crate::Error::Busy`]); the cause is logged, never sent.
    pub fn busy(e: crate::Error) -> Self {
        e.log();
        RestError {
            retry_after: Some(crate::error::RETRY_AFTER_BUSY as i64),
            ..RestError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy",
                e.text(crate::domain::locale::Locale::En),
            )
        }
    }
    /// 500; the cause is logged, never sent.
    fn internal(e: crate::Error) -> Self {
        e.log();
        RestError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal_error",
            "internal error",
        )
    }
}

/// A failure of the layers below as the REST API answers it: a field
/// error is a 400 naming the field, anything internal a logged 500.
impl From<crate::Error> for RestError {
    fn from(e: crate::Error) -> Self {
        e.note();
        match e {
            crate::Error::Invalid { .. }
            | crate::Error::UnknownId(_)
            | crate::Error::Several(_)
            | crate::Error::Refused(_) => {
                RestError::new(StatusCode::BAD_REQUEST, "invalid_request", e.to_string())
            }
            crate::Error::NotFound => RestError::not_found("not found"),
            crate::Error::Unauthorized => RestError::unauthorized("unauthorized"),
            crate::Error::Busy(_) => RestError::busy(e),
            crate::Error::Internal(_) => RestError::internal(e),
        }
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        crate::error::note(|| self.message.clone());
        let mut res = (
            self.status,
            Json(json!({ "error": { "code": self.code, "message": self.message } })),
        )
            .into_response();
        let h = res.headers_mut();
        if self.status == StatusCode::UNAUTHORIZED {
            h.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"cashkeeper\""),
            );
        }
        if let Some(secs) = self
            .retry_after
            .and_then(|s| HeaderValue::from_str(&s.to_string()).ok())
        {
            h.insert(header::RETRY_AFTER, secs);
        }
        res
    }
}

/// A REST API error response.
pub fn error(status: StatusCode, code: &'static str, message: impl Into<String>) -> Response {
    RestError::new(status, code, message).into_response()
}

/// The query parameters, in order; a query string that cannot be read is a 400.
pub struct Params(Vec<(String, String)>);

impl Params {
    pub fn from_query(
        q: Result<Query<Vec<(String, String)>>, QueryRejection>,
    ) -> Result<Params, RestError> {
        match q {
            Ok(Query(v)) => Ok(Params(v)),
            Err(e) => Err(RestError::invalid("query", e.body_text())),
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// A whole number in `range`, `default` when absent.
    pub fn int(
        &self,
        name: &str,
        default: u32,
        range: RangeInclusive<u32>,
    ) -> Result<u32, RestError> {
        let Some(raw) = self.get(name) else {
            return Ok(default);
        };
        let n: u32 = raw.trim().parse().map_err(|_| {
            RestError::invalid(
                name,
                format!(
                    "must be a whole number from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        })?;
        if !range.contains(&n) {
            return Err(RestError::invalid(
                name,
                format!("must be from {} to {}, got {n}", range.start(), range.end()),
            ));
        }
        Ok(n)
    }

    /// An optional month `YYYY-MM`, as its first day.
    pub fn month(&self, name: &str) -> Result<Option<chrono::NaiveDate>, RestError> {
        let Some(raw) = self.get(name) else {
            return Ok(None);
        };
        let valid = raw.len() == 7 && raw.as_bytes()[4] == b'-';
        match crate::domain::recurrence::parse_month("month", raw) {
            Ok((first, _)) if valid => Ok(Some(first)),
            _ => Err(RestError::invalid(
                name,
                format!("must be a month YYYY-MM, got {raw:?}"),
            )),
        }
    }

    /// A required day `YYYY-MM-DD`.
    pub fn date(&self, name: &str) -> Result<chrono::NaiveDate, RestError> {
        let raw = self
            .get(name)
            .ok_or_else(|| RestError::invalid(name, "is required (YYYY-MM-DD)"))?;
        crate::domain::recurrence::parse_date("date", raw).map_err(|_| {
            RestError::invalid(
                name,
                format!("must be a valid date YYYY-MM-DD, got {raw:?}"),
            )
        })
    }
}

/// A JSON reply from serialized bytes.
pub fn json_bytes(body: axum::body::Bytes) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

pub fn router(panic_routes: bool) -> Router<AppState> {
    let r = Router::new()
        .route("/health", get(health))
        .route("/me", get(me::get))
        .route("/summary", get(summary::get))
        .route("/accounts", get(accounts::get))
        .route("/payments", get(payments::get))
        .route("/insights", get(insights::get))
        .route("/budgets", get(budgets::get))
        .route("/net-worth", get(net_worth::get))
        .route("/openapi.json", get(openapi))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "not_found", "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            error(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "the REST API is read-only: use GET",
            )
        });
    let door = Door {
        name: "an /api/v1 handler",
        test_route: "/__panic",
        test_method: MethodFilter::GET,
        reply: || {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                "internal error",
            )
        },
    };
    guard(r, door, panic_routes).layer(SetResponseHeaderLayer::overriding(
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

/// `GET /api/v1/openapi.json`: the OpenAPI 3.1 description of this API.
async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        include_str!("openapi.json"),
    )
        .into_response()
}
