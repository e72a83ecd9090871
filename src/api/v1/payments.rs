//! `GET /api/v1/payments?start=YYYY-MM-DD&end=YYYY-MM-DD`: every due date of
//! recurring expenses, one-time expenses and incomes in the range.
//!
//! A year of payments can be large (a user may keep up to 2,000 recurring
//! items, a weekly one is due 53 times), so the reply is never held whole:
//! a blocking thread computes it one calendar month at a time, serialises
//! that month and hands it to the response body through a small channel.
//! Memory per request is one month of payments plus a few chunks in
//! flight, the async workers only pass bytes on (so `/health` answers while
//! heavy replies are made), and a client that reads slowly slows only the
//! thread making its reply, which holds no database connection while it
//! waits.

use super::auth::ApiUser;
use super::{Params, RestError};
use crate::app::reports::payments::{months, Source};
use crate::error::Result;
use crate::state::AppState;
use crate::store::Db;
use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;

use crate::app::reports::payments::MAX_SPAN_DAYS;
/// Bytes gathered before a chunk goes to the client.
const CHUNK: usize = 64 * 1024;
/// Chunks that may wait for a slow client.
const CHUNKS_IN_FLIGHT: usize = 4;

/// Writes the reply `{"currency","start","end","payments":[…]}` through
/// `send`, a chunk at a time; stops early when `send` says the client is
/// gone. Runs on a blocking thread: it holds a database connection only
/// while it reads a month's one-time expenses.
fn write_reply(
    db: &Db,
    source: &Source,
    start: NaiveDate,
    end: NaiveDate,
    mut send: impl FnMut(Bytes) -> bool,
) -> Result<()> {
    let head = serde_json::json!({
        "currency": source.currency(),
        "start": start,
        "end": end,
    })
    .to_string();
    // `{"currency":…,"end":…,"start":…` and then the list.
    let mut buf = Vec::with_capacity(CHUNK + 4096);
    buf.extend_from_slice(&head.as_bytes()[..head.len() - 1]);
    buf.extend_from_slice(b",\"payments\":[");
    let mut first = true;
    for (from, to) in months(start, end) {
        let month = db.blocking(|c| source.between(c, from, to))?;
        for p in &month {
            if !first {
                buf.push(b',');
            }
            first = false;
            serde_json::to_writer(&mut buf, p).map_err(|e| crate::Error::Internal(e.into()))?;
            if buf.len() >= CHUNK && !send(Bytes::from(std::mem::take(&mut buf))) {
                return Ok(());
            }
        }
    }
    buf.extend_from_slice(b"]}");
    send(Bytes::from(buf));
    Ok(())
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, RestError> {
    let params = Params::from_query(query)?;
    let start = params.date("start")?;
    let end = params.date("end")?;
    if end < start {
        return Err(RestError::invalid("end", "must not be before start"));
    }
    if (end - start).num_days() > MAX_SPAN_DAYS {
        return Err(RestError::invalid(
            "end",
            "must be less than 366 days after start",
        ));
    }
    let st = state.clone();
    let user = api.user;
    let source = state
        .db
        .run(move |c| Source::load(c, &user, &st.rates.current()))
        .await?;
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Bytes>(CHUNKS_IN_FLIGHT);
    let db = state.db.clone();
    tokio::task::spawn_blocking(move || {
        let sent = write_reply(&db, &source, start, end, |chunk| {
            tx.blocking_send(chunk).is_ok()
        });
        if let Err(e) = sent {
            // The status line is gone already: the reply ends short, which
            // a client's JSON parser reports, and the cause is logged.
            e.log();
        }
    });
    let body = Body::from_stream(futures_util::stream::poll_fn(move |cx| {
        rx.poll_recv(cx)
            .map(|chunk| chunk.map(Ok::<_, std::io::Error>))
    }));
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}
