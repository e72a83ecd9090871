//! `GET /api/v1/summary?upcomingDays=7&forecastMonths=3`: the month in both
//! views, recurring costs, what is due, the forecast and the insight counts.

use super::auth::ApiUser;
use super::{json_bytes, ApiError, Params};
use crate::app::reports::summary::{insights_at, summary, InsightCounts, Summary};
use crate::cache::{Stamp, Until};
use crate::clock::timestamp;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::Response;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body<'a> {
    #[serde(flatten)]
    summary: &'a Summary,
    insights: InsightCounts,
}

/// The reply for `now` from a cached body: `generatedAt` goes in front.
fn with_generated_at(body: &Bytes, now: &str) -> Bytes {
    let mut out = Vec::with_capacity(body.len() + 40);
    out.extend_from_slice(b"{\"generatedAt\":\"");
    out.extend_from_slice(now.as_bytes());
    out.extend_from_slice(b"\",");
    out.extend_from_slice(&body[1..]);
    Bytes::from(out)
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, ApiError> {
    let params = Params::from_query(query)?;
    let days = params.int("upcomingDays", 7, 1..=90)?;
    let months = params.int("forecastMonths", 3, 1..=24)?;
    let now = state.clock.now();
    let now_s = timestamp(now);
    let today = now.date_naive();
    // The body depends on the user's data (insights included: their table
    // moves the data version too), the rates and the day; and on the clock
    // only when an insight expires, which bounds the entry's life.
    let stamp = Stamp {
        data_version: api.data_version,
        rates_generation: state.rates.generation(),
        today,
    };
    let key = format!("{}:{days}:{months}", api.user.id);
    if let Some(hit) = state
        .summary_cache
        .get(&key, stamp)
        .filter(|c| c.valid_at(now))
    {
        return Ok(json_bytes(with_generated_at(&hit.value, &now_s)));
    }
    let st = state.clone();
    let user = api.user;
    let at = now_s.clone();
    let cached = state
        .db
        .run(move |c| {
            let summary = summary(c, &user, &st.rates.current(), today, days, months)?;
            let (insights, until) = insights_at(c, &user.id, &at)?;
            let body = serde_json::to_vec(&Body {
                summary: &summary,
                insights,
            })
            .map_err(|e| crate::Error::Internal(e.into()))?;
            Ok(Until {
                value: Bytes::from(body),
                until,
            })
        })
        .await?;
    let reply = with_generated_at(&cached.value, &now_s);
    state.summary_cache.put(key, stamp, cached);
    Ok(json_bytes(reply))
}
