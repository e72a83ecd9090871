//! The one error of the plain `/api` routes (`docs/api.md`, Errors): a
//! status and the body `{"error": "…"}`, with `Retry-After` on a 429. A
//! failure of the layers below maps the same way on every route: an
//! unknown or another user's id is 404, a refused field 400, a missing
//! session 401, a busy service 503 with `Retry-After`, anything internal a logged 500 that says only "internal
//! error". The receipt scan answers the same in its own envelope
//! (`{"success": false, "error"}`, [`ApiError::enveloped`]).

use crate::domain::locale::Locale;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// Seconds to wait, sent as `Retry-After` (429, 503).
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
            retry_after: None,
        }
    }

    /// 400 naming what was wrong ("file: is required").
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 429 with `Retry-After`.
    pub fn too_many(message: impl Into<String>, wait_seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(wait_seconds),
            ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, message)
        }
    }

    /// The body `{"error", <key>: value}`: a refusal that brings what the
    /// page offers next, so that no page reads it out of the words.
    pub fn offering(self, key: &str, value: serde_json::Value) -> Response {
        let mut body = serde_json::Map::new();
        body.insert("error".into(), self.message.clone().into());
        body.insert(key.into(), value);
        self.respond(body.into())
    }

    /// The same refusal in the envelope of `POST /api/receipt-scan`.
    pub fn enveloped(self) -> Response {
        self.respond(json!({ "success": false, "error": self.message }))
    }

    fn respond(&self, body: serde_json::Value) -> Response {
        crate::error::note(|| self.message.clone());
        let mut res = (self.status, Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait));
        }
        res
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.respond(json!({ "error": self.message }))
    }
}

impl ApiError {
    /// A failure of the layers below for a person, worded in `locale`
    /// (the session routes the pages call); an internal one is logged and
    /// reads only "internal error".
    pub fn worded(e: crate::Error, locale: Locale) -> ApiError {
        let status = status_of(&e);
        e.log();
        ApiError {
            retry_after: retry_of(&e),
            ..ApiError::new(status, e.text(locale))
        }
    }
}

fn status_of(e: &crate::Error) -> StatusCode {
    match e {
        crate::Error::NotFound | crate::Error::UnknownId(_) => StatusCode::NOT_FOUND,
        crate::Error::Invalid { .. } | crate::Error::Several(_) | crate::Error::Refused(_) => {
            StatusCode::BAD_REQUEST
        }
        crate::Error::Unauthorized => StatusCode::UNAUTHORIZED,
        crate::Error::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
        crate::Error::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// `Retry-After` of a failure: [`crate::error::RETRY_AFTER_BUSY`] for busy.
fn retry_of(e: &crate::Error) -> Option<u64> {
    e.is_busy().then_some(crate::error::RETRY_AFTER_BUSY)
}

/// A failure of the layers below as every plain `/api` route answers it,
/// in English (the log's and the API clients' words).
impl From<crate::Error> for ApiError {
    fn from(e: crate::Error) -> ApiError {
        e.log();
        ApiError {
            retry_after: retry_of(&e),
            ..ApiError::new(status_of(&e), e.text(Locale::En))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Reason;

    #[test]
    fn failures_below_map_to_one_status_each() {
        let status = |e: crate::Error| ApiError::from(e).status;
        assert_eq!(status(crate::Error::NotFound), StatusCode::NOT_FOUND);
        assert_eq!(
            status(crate::Error::unknown("accountId")),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            ApiError::from(crate::Error::unknown("accountId")).message,
            "accountId: not found"
        );
        assert_eq!(
            status(crate::Error::invalid("file", Reason::Required)),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status(crate::Error::refused(Reason::RegistrationClosed)),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status(crate::Error::Unauthorized), StatusCode::UNAUTHORIZED);
        let internal = ApiError::from(crate::Error::Internal(anyhow::anyhow!("disk on fire")));
        assert_eq!(internal.status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(internal.message, "internal error");
    }

    #[test]
    fn a_429_says_when_to_come_back_in_both_shapes() {
        for res in [
            ApiError::too_many("slow down", 7).into_response(),
            ApiError::too_many("slow down", 7).enveloped(),
        ] {
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
            assert_eq!(res.headers()[header::RETRY_AFTER], "7");
        }
    }
}
