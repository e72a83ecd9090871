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
use super::{ApiError, Params};
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::Result;
use crate::reports::dashboard::{CategoryRef, Payment};
use crate::state::AppState;
use crate::store::daily_expenses::{self, Filter};
use crate::store::users::User;
use crate::store::{categories, expenses, incomes, Db};
use axum::body::{Body, Bytes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use std::collections::HashMap;
use std::sync::Arc;

/// `end` may be at most this many days after `start`.
pub const MAX_SPAN_DAYS: i64 = 365;
/// Bytes gathered before a chunk goes to the client.
const CHUNK: usize = 64 * 1024;
/// Chunks that may wait for a slow client.
const CHUNKS_IN_FLIGHT: usize = 4;

/// A recurring item: its payment (the date filled in per due date) and
/// its schedule.
struct Recurring {
    payment: Payment,
    schedule: Schedule,
}

/// What the payments of a user need besides the one-time expenses: loaded
/// once per request, and small (at most `store::Cap::Recurring` items).
pub struct Source {
    user_id: String,
    base: String,
    rates: Arc<crate::domain::rates::Rates>,
    categories: HashMap<String, CategoryRef>,
    recurring: Vec<Recurring>,
}

impl Source {
    pub fn load(
        c: &rusqlite::Connection,
        user: &User,
        rates: &crate::services::rates::RateStore,
    ) -> Result<Source> {
        let mut source = Source {
            user_id: user.id.clone(),
            base: user.base_currency.clone(),
            rates: rates.current(),
            categories: categories::list(c, &user.id)?
                .iter()
                .map(|k| (k.id.clone(), CategoryRef::from(k)))
                .collect(),
            recurring: Vec::new(),
        };
        for e in expenses::list(c, &user.id, false)? {
            let payment = Payment {
                id: e.id.clone(),
                kind: "expense",
                amount: source.convert(e.amount, &e.currency),
                category: source.category(e.category_id.as_deref()),
                name: e.name.clone(),
                date: e.start_date,
                original_amount: e.amount,
                original_currency: e.currency.clone(),
                account_id: e.account_id.clone(),
                is_subscription: e.is_subscription,
            };
            source.recurring.push(Recurring {
                schedule: e.schedule(),
                payment,
            });
        }
        for i in incomes::list(c, &user.id)? {
            let payment = Payment {
                id: i.id.clone(),
                kind: "income",
                amount: source.convert(i.amount, &i.currency),
                category: None,
                name: i.name.clone(),
                date: i.start_date,
                original_amount: i.amount,
                original_currency: i.currency.clone(),
                account_id: i.account_id.clone(),
                is_subscription: false,
            };
            source.recurring.push(Recurring {
                schedule: i.schedule(),
                payment,
            });
        }
        Ok(source)
    }

    fn convert(&self, amount: Decimal, currency: &str) -> Decimal {
        self.rates
            .convert(amount, currency, &self.base)
            .unwrap_or(amount)
    }

    fn category(&self, id: Option<&str>) -> Option<CategoryRef> {
        id.and_then(|i| self.categories.get(i)).cloned()
    }

    /// The payments from `from` through `to`, in the reply's order (date,
    /// type, name, id); `c` gives the one-time expenses of those days.
    pub fn between(
        &self,
        c: &rusqlite::Connection,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<Payment>> {
        let mut out = Vec::new();
        for r in &self.recurring {
            for date in r.schedule.due_dates(from, to) {
                out.push(Payment {
                    date,
                    ..r.payment.clone()
                });
            }
        }
        let range = Filter {
            from: Some(from),
            to: Some(to),
            ..Filter::default()
        };
        for d in daily_expenses::list(c, &self.user_id, &range)? {
            out.push(Payment {
                amount: self.convert(d.amount, &d.currency),
                category: self.category(d.category_id.as_deref()),
                id: d.id,
                kind: "daily_expense",
                name: d.name,
                date: d.date,
                original_amount: d.amount,
                original_currency: d.currency,
                account_id: d.account_id,
                is_subscription: false,
            });
        }
        out.sort_by(|a, b| {
            a.date
                .cmp(&b.date)
                .then_with(|| a.kind.cmp(b.kind))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(out)
    }
}

/// Every payment from `start` through `end`, in one list (for callers
/// that need them all; the route streams them instead).
pub fn payments(
    c: &rusqlite::Connection,
    user: &User,
    rates: &crate::services::rates::RateStore,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Vec<Payment>> {
    Source::load(c, user, rates)?.between(c, start, end)
}

/// The calendar months that `start..=end` touches, each cut to the range.
fn months(start: NaiveDate, end: NaiveDate) -> impl Iterator<Item = (NaiveDate, NaiveDate)> {
    let mut first = month_start(start);
    std::iter::from_fn(move || {
        if first > end {
            return None;
        }
        let span = (first.max(start), month_end(first).min(end));
        first = add_months(first, 1);
        Some(span)
    })
}

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
        "currency": source.base,
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
) -> Result<Response, ApiError> {
    let params = Params::from_query(query)?;
    let start = params.date("start")?;
    let end = params.date("end")?;
    if end < start {
        return Err(ApiError::invalid("end", "must not be before start"));
    }
    if (end - start).num_days() > MAX_SPAN_DAYS {
        return Err(ApiError::invalid(
            "end",
            "must be less than 366 days after start",
        ));
    }
    let st = state.clone();
    let user = api.user;
    let source = state
        .db
        .run(move |c| Source::load(c, &user, &st.rates))
        .await
        .map_err(ApiError::internal)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn months_cover_the_range_once_cut_at_both_ends() {
        let spans: Vec<_> = months(d("2026-01-15"), d("2026-03-02")).collect();
        assert_eq!(
            spans,
            vec![
                (d("2026-01-15"), d("2026-01-31")),
                (d("2026-02-01"), d("2026-02-28")),
                (d("2026-03-01"), d("2026-03-02")),
            ]
        );
        let one: Vec<_> = months(d("2026-05-07"), d("2026-05-07")).collect();
        assert_eq!(one, vec![(d("2026-05-07"), d("2026-05-07"))]);
        let year: Vec<_> = months(d("2025-12-31"), d("2026-12-31")).collect();
        assert_eq!(year.len(), 13);
        assert_eq!(year[12], (d("2026-12-01"), d("2026-12-31")));
    }
}
