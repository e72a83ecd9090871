//! `GET /api/v1/me`: who the token belongs to.

use super::auth::ApiUser;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

pub async fn get(api: ApiUser) -> impl IntoResponse {
    let u = api.user;
    Json(json!({
        "userId": u.id,
        "name": u.name,
        "email": u.email,
        "baseCurrency": u.base_currency,
        "locale": u.locale.code(),
        "version": crate::VERSION,
        "apiVersion": crate::API_VERSION,
    }))
}
