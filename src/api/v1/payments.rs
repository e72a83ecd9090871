//! `GET /api/v1/payments?start=YYYY-MM-DD&end=YYYY-MM-DD`: every due date of
//! recurring expenses, one-time expenses and incomes in the range.

use super::auth::ApiUser;
use super::{ApiError, Params};
use crate::actions::dashboard::{CategoryRef, Payment};
use crate::app::AppState;
use crate::error::Result;
use crate::store::daily_expenses::{self, Filter};
use crate::store::users::User;
use crate::store::{categories, expenses, incomes};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use axum::Json;
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::HashMap;

/// `end` may be at most this many days after `start`.
pub const MAX_SPAN_DAYS: i64 = 365;

pub fn payments(
    c: &rusqlite::Connection,
    user: &User,
    rates: &crate::services::rates::RateStore,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Vec<Payment>> {
    let rates = rates.current();
    let base = user.base_currency.as_str();
    let convert = |a, cur: &str| rates.convert(a, cur, base).unwrap_or(a);
    let cats: HashMap<String, CategoryRef> = categories::list(c, &user.id)?
        .iter()
        .map(|k| (k.id.clone(), CategoryRef::from(k)))
        .collect();
    let category = |id: &Option<String>| id.as_ref().and_then(|i| cats.get(i)).cloned();
    let mut out = Vec::new();
    for e in expenses::list(c, &user.id, false)? {
        let amount = convert(e.amount, &e.currency);
        for date in e.schedule().due_dates(start, end) {
            out.push(Payment {
                id: e.id.clone(),
                kind: "expense",
                name: e.name.clone(),
                date,
                amount,
                original_amount: e.amount,
                original_currency: e.currency.clone(),
                account_id: e.account_id.clone(),
                category: category(&e.category_id),
                is_subscription: e.is_subscription,
            });
        }
    }
    let range = Filter {
        from: Some(start),
        to: Some(end),
        ..Filter::default()
    };
    for d in daily_expenses::list(c, &user.id, &range)? {
        out.push(Payment {
            amount: convert(d.amount, &d.currency),
            category: category(&d.category_id),
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
    for i in incomes::list(c, &user.id)? {
        let amount = convert(i.amount, &i.currency);
        for date in i.schedule().due_dates(start, end) {
            out.push(Payment {
                id: i.id.clone(),
                kind: "income",
                name: i.name.clone(),
                date,
                amount,
                original_amount: i.amount,
                original_currency: i.currency.clone(),
                account_id: i.account_id.clone(),
                category: None,
                is_subscription: false,
            });
        }
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

#[derive(Serialize)]
struct Reply {
    currency: String,
    start: NaiveDate,
    end: NaiveDate,
    payments: Vec<Payment>,
}

pub async fn get(
    State(state): State<AppState>,
    api: ApiUser,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<impl IntoResponse, ApiError> {
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
    let currency = user.base_currency.clone();
    let list = state
        .db
        .run(move |c| payments(c, &user, &st.rates, start, end))
        .await
        .map_err(ApiError::internal)?;
    Ok(Json(Reply {
        currency,
        start,
        end,
        payments: list,
    }))
}
