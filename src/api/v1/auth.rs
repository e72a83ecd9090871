//! Authenticating `/api/v1` requests by personal API token, and the
//! per-token rate limit.

use super::RestError;
use crate::app::api_tokens;
use crate::auth::api_tokens::is_well_formed;
use crate::auth::secrets::{constant_time_eq, sha256_hex};
use crate::clock::parse_timestamp;
use crate::state::AppState;
use crate::store::users::User;
use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};

/// The owner of a valid token, admitted by the rate limit.
pub struct ApiUser {
    pub user: User,
    pub token_id: String,
    /// The user's data version: cached replies are valid while it stands.
    pub data_version: i64,
}

impl FromRequestParts<AppState> for ApiUser {
    type Rejection = RestError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, RestError> {
        let header = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| RestError::unauthorized("missing Authorization: Bearer token"))?;
        let (scheme, token) = header.trim().split_once(' ').unwrap_or((header, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(RestError::unauthorized(
                "expected Authorization: Bearer csk_…",
            ));
        }
        let token = token.trim();
        if !is_well_formed(token) {
            return Err(RestError::unauthorized("malformed token"));
        }
        let hash = sha256_hex(token);
        let presented = api_tokens::presented(state, &hash)
            .await?
            .ok_or_else(|| RestError::unauthorized("unknown token"))?;
        if !constant_time_eq(&presented.token_hash, &hash) {
            return Err(RestError::unauthorized("unknown token"));
        }
        if presented.revoked {
            return Err(RestError::unauthorized("token revoked"));
        }
        let now = state.clock.now();
        if let Some(exp) = presented.expires_at.as_deref().and_then(parse_timestamp) {
            if exp <= now {
                return Err(RestError::unauthorized("token expired"));
            }
        }
        let user = presented
            .user
            .ok_or_else(|| RestError::not_found("the token's user no longer exists"))?;
        if let Err(retry_after) =
            state
                .api_guard
                .admit(&presented.id, state.config.api_rate_limit, now)
        {
            return Err(RestError::rate_limited(retry_after));
        }
        if state.api_guard.touch_due(&presented.id, now) {
            api_tokens::mark_used(state, presented.id.clone(), now);
        }
        Ok(ApiUser {
            user,
            token_id: presented.id,
            data_version: presented.data_version,
        })
    }
}
