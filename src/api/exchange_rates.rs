//! `GET /api/exchange-rates`: the current EUR-based table for the pages'
//! scripts, as a flat object `{"EUR":1.0,"USD":1.1607,…}`.

use crate::http::session::SessionUser;
use crate::state::AppState;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Number, Value};

/// The table changes once a day; an hour in the browser's private cache
/// spares the requests without showing stale rates for long.
const CACHE_CONTROL: &str = "private, max-age=3600";

/// Every known currency with its units per euro, or 401 without a session.
/// Rates become JSON numbers only here, at the edge: the callers are
/// scripts that multiply for display, while money math stays in `Decimal`.
pub async fn get(State(state): State<AppState>, _: SessionUser) -> Response {
    let rates = state.rates.current();
    let body: Map<String, Value> = rates
        .iter()
        .filter_map(|(code, rate)| {
            let number = rate.to_f64().and_then(Number::from_f64)?;
            Some((code.to_string(), Value::Number(number)))
        })
        .collect();
    ([(header::CACHE_CONTROL, CACHE_CONTROL)], Json(body)).into_response()
}
