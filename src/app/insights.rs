//! Insight generation, run by the scheduler and `/api/cron/insights`: for every user, gather the facts, find the insights
//! (`domain::insights`) and store those not already current, with their
//! German text (`i18n::insights`). The budget insights are also worked out
//! when an expense is saved (`app::budget_insights`).

use crate::app::budget_insights::{basis, store, Basis};
use crate::clock::timestamp;
use crate::domain::insights::{find, Facts, SubscriptionFacts};
use crate::domain::locale::Locale;
use crate::domain::recurrence::{month_start, monthly_equivalent};
use crate::domain::views::{self, View};
use crate::error::{Error, Result};
use crate::i18n::insights::text;
use crate::services::rates::RateStore;
use crate::state::AppState;
use crate::store::users::{User, UserId};
use crate::store::{expenses, insights};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::Serialize;

/// What a run of the job did (`GET /api/cron/insights` answers it).
#[derive(Serialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub total_generated: usize,
    pub users: usize,
    pub failed: usize,
}

/// The facts about `user` on `today`.
pub fn facts(
    c: &rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    now: DateTime<Utc>,
) -> Result<Facts> {
    let Basis {
        today,
        from,
        ledger,
        categories,
    } = basis(c, user, rates, now)?;
    let first = month_start(today);
    let totals = views::monthly_totals(&ledger.items, from, 4, View::Cashflow);
    let table = rates.current();
    let base = user.base_currency.as_str();
    let in_base = |a: Decimal, cur: &str| table.to_base(a, cur, base);
    let subscriptions = expenses::list(c, &user.id, true)?
        .into_iter()
        .filter(|e| {
            e.plan.schedule().active_in_month(first)
                && e.plan.end_date.is_none_or(|end| end >= today)
        })
        .map(|e| {
            let prices = e.prices();
            let next_due = e.plan.schedule().next_due(today);
            SubscriptionFacts {
                monthly: monthly_equivalent(
                    in_base(prices.on(today), &e.plan.currency),
                    e.plan.frequency,
                ),
                // The amount of the next payment: a raise set for a later
                // day counts from then.
                amount: in_base(prices.on(next_due.unwrap_or(today)), &e.plan.currency),
                next_due,
                // The latest change of the price history and the amount before it.
                previous_amount: prices.latest_from().map(|from| {
                    let before = prices.on(from.pred_opt().unwrap_or(from));
                    (in_base(before, &e.plan.currency), from)
                }),
                id: e.id,
                name: e.name,
                category_id: e.category_id,
            }
        })
        .collect();
    Ok(Facts {
        today,
        currency: user.base_currency.clone(),
        income: [
            totals[0].income,
            totals[1].income,
            totals[2].income,
            totals[3].income,
        ],
        expenses: [
            totals[0].expenses,
            totals[1].expenses,
            totals[2].expenses,
            totals[3].expenses,
        ],
        categories,
        subscriptions,
        contracts: crate::app::records::expenses::deadlines(c, &user.id, today)?,
    })
}

/// Finds and stores the insights of one user in one transaction; answers
/// how many are new.
pub fn run_for_user(
    c: &mut rusqlite::Connection,
    user: &User,
    rates: &RateStore,
    now: DateTime<Utc>,
) -> Result<usize> {
    let found = find(&facts(c, user, rates, now)?);
    store(c, user, &found, now)
}

/// Runs the job for every user; one user's failure is counted and the
/// others go on. `None` when it could not read the users (logged).
pub async fn run(state: &AppState) -> Option<Summary> {
    let _running = state.jobs.insights.lock().await;
    let now = state.clock.now();
    let users = match state.db.run(|c| crate::store::users::all(c)).await {
        Ok(u) => u,
        Err(e) => {
            e.log();
            return None;
        }
    };
    let mut summary = Summary {
        users: users.len(),
        ..Summary::default()
    };
    for user in users {
        let st = state.clone();
        let id = user.id.clone();
        match state
            .db
            .run(move |c| run_for_user(c, &user, &st.rates, now))
            .await
        {
            Ok(n) => summary.total_generated += n,
            Err(e) => {
                let error = e.cause().unwrap_or_else(|| e.to_string());
                tracing::warn!(user_id = %id, %error, "insights failed for a user");
                summary.failed += 1;
            }
        }
    }
    tracing::info!(
        generated = summary.total_generated,
        users = summary.users,
        failed = summary.failed,
        "insights job"
    );
    Some(summary)
}

/// An insight's title and message in `locale`: stored in German (the
/// stored words are the German ones); in English written from the finding,
/// or (for metadata not of its type) as stored.
pub fn words(insight: &insights::Insight, locale: Locale) -> (String, String) {
    if locale == Locale::STORED {
        return (insight.title.clone(), insight.message.clone());
    }
    match insight.finding() {
        Some(finding) => text(&finding, locale),
        None => {
            tracing::warn!(insight_id = %insight.id, kind = %insight.kind, "insight metadata is not a finding of its type: shown as stored");
            (insight.title.clone(), insight.message.clone())
        }
    }
}

/// The user's unread, unexpired insights, newest first, at most
/// [`insights::UNREAD_MAX`].
pub async fn unread(state: &AppState, user: &UserId) -> Result<Vec<insights::Insight>> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    state
        .db
        .run(move |c| insights::unread(c, &user, &now, insights::UNREAD_MAX))
        .await
}

/// The user's current insights (not dismissed, unexpired), newest first.
pub async fn current(state: &AppState, user: &UserId) -> Result<Vec<insights::Listed>> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    state
        .db
        .run(move |c| insights::current(c, &user, &now, insights::LIMIT))
        .await
}

/// Marks the user's insight `id` read; another user's is [`Error::NotFound`].
pub async fn mark_read(state: &AppState, user: &UserId, id: String) -> Result<()> {
    let user = user.clone();
    found(
        state
            .db
            .run(move |c| insights::mark_read(c, &user, &id))
            .await?,
    )
}

/// Dismisses the user's insight `id`: it is not shown again.
pub async fn dismiss(state: &AppState, user: &UserId, id: String) -> Result<()> {
    let (user, now) = (user.clone(), timestamp(state.clock.now()));
    found(
        state
            .db
            .run(move |c| insights::dismiss(c, &user, &id, &now))
            .await?,
    )
}

fn found(changed: bool) -> Result<()> {
    if changed {
        Ok(())
    } else {
        Err(Error::NotFound)
    }
}
