//! The upcoming-payments job: finds the recurring expenses due tomorrow
//! (the next UTC day) and reminds their owners by web push; and tells users
//! by web push when a category is over its budget, once per category and
//! month (`docs/budgets.md`).

use crate::state::AppState;
use crate::store::users::UserId;
use crate::store::{expenses, push_subscriptions, users};
use chrono::Duration;
use serde::Serialize;

/// The reply of `GET /api/cron/upcoming-payments`.
#[derive(Serialize, Debug, Default)]
pub struct Summary {
    pub success: bool,
    /// Notifications a push service accepted.
    pub notified: usize,
    /// Recurring expenses due tomorrow, over all users.
    pub total: usize,
}

/// A recurring expense due tomorrow, with its owner.
pub struct Due {
    pub user_id: UserId,
    pub expense_id: String,
    pub name: String,
    pub amount: rust_decimal::Decimal,
    pub currency: String,
    pub locale: crate::i18n::Locale,
}

/// Every recurring expense of every user due on `day`.
pub fn due_on(c: &rusqlite::Connection, day: chrono::NaiveDate) -> crate::Result<Vec<Due>> {
    let mut out = Vec::new();
    for user in users::all(c)? {
        for e in expenses::list(c, &user.id, false)? {
            if e.plan.schedule().due_dates(day, day).is_empty() {
                continue;
            }
            out.push(Due {
                amount: e.prices().on(day),
                user_id: user.id.clone(),
                expense_id: e.id,
                name: e.name,
                currency: e.plan.currency,
                locale: user.locale,
            });
        }
    }
    Ok(out)
}

pub async fn run(state: &AppState) -> Summary {
    let _running = state.jobs.upcoming.lock().await;
    let tomorrow = state.clock.today() + Duration::days(1);
    let due = match state.db.run(move |c| due_on(c, tomorrow)).await {
        Ok(d) => d,
        Err(e) => {
            e.log();
            return Summary::default();
        }
    };
    let notified = push_reminders(state, &due).await;
    let over_budget = push_over_budget(state).await;
    tracing::info!(
        total = due.len(),
        notified,
        over_budget,
        "upcoming-payments job"
    );
    Summary {
        success: true,
        notified,
        total: due.len(),
    }
}

/// Sends the reminders for `due`: one message per due expense to each of
/// its owner's subscriptions; subscriptions the push service says are gone
/// (404, 410) are deleted. Answers how many messages were accepted.
/// Without the VAPID configuration there is nothing to send.
pub async fn push_reminders(state: &AppState, due: &[Due]) -> usize {
    use crate::services::push::{notify_payload, PushService};
    let Some(push) = PushService::from_config(&state.config) else {
        return 0;
    };
    let mut delivered = 0;
    for d in due {
        let amount = crate::i18n::format::money(d.amount, &d.currency, d.locale);
        let (title, body) = crate::i18n::mail::due_tomorrow(d.locale, &d.name, &amount);
        let message = notify_payload(&title, &body, "/expenses");
        delivered += send(state, &push, &d.user_id, &message).await;
    }
    delivered
}

/// Sends `message` to each of the user's subscriptions; subscriptions the
/// push service says are gone (404, 410) are deleted. Answers how many
/// messages were accepted.
async fn send(
    state: &AppState,
    push: &crate::services::push::PushService,
    user: &UserId,
    message: &[u8],
) -> usize {
    let user = user.clone();
    match state
        .db
        .run(move |c| push_subscriptions::list_for_user(c, &user))
        .await
    {
        Ok(subs) => deliver(state, push, &subs, message).await,
        Err(e) => {
            e.log();
            0
        }
    }
}

/// Sends `message` to each of `subs`; those the push service says are gone
/// are deleted. Answers how many messages were accepted.
async fn deliver(
    state: &AppState,
    push: &crate::services::push::PushService,
    subs: &[push_subscriptions::Subscription],
    message: &[u8],
) -> usize {
    use crate::services::push::Outcome;
    let mut delivered = 0;
    for sub in subs {
        match push.send(sub, message).await {
            Outcome::Delivered => delivered += 1,
            Outcome::Gone => {
                let id = sub.id.clone();
                if let Err(e) = state
                    .db
                    .run(move |c| push_subscriptions::delete_by_id(c, &id))
                    .await
                {
                    e.log();
                }
                tracing::info!(user_id = %sub.user_id, "push subscription gone; removed");
            }
            Outcome::Failed(why) => tracing::warn!(user_id = %sub.user_id, %why, "push failed"),
        }
    }
    delivered
}

/// A category over its budget this month, with its owner and where to
/// tell them.
struct Over {
    user: crate::store::users::User,
    subs: Vec<push_subscriptions::Subscription>,
    budget: crate::app::reports::budgets::Budget,
}

/// The categories over budget this month of the users with a push
/// subscription.
fn over_budget(
    c: &rusqlite::Connection,
    rates: &crate::domain::rates::Rates,
    today: chrono::NaiveDate,
) -> crate::Result<Vec<Over>> {
    use crate::app::reports::budgets::budgets;
    use crate::domain::budgets::Status;
    let first = crate::domain::recurrence::month_start(today);
    let with_budgets = crate::store::budgets::users_with_budgets(c, first)?;
    let mut out = Vec::new();
    for user in users::all(c)?
        .into_iter()
        .filter(|u| with_budgets.contains(&u.id))
    {
        let subs = push_subscriptions::list_for_user(c, &user.id)?;
        if subs.is_empty() {
            continue;
        }
        for budget in budgets(c, &user, rates, first, today)?.budgets {
            if budget.status == Status::Over {
                out.push(Over {
                    user: user.clone(),
                    subs: subs.clone(),
                    budget,
                });
            }
        }
    }
    Ok(out)
}

/// Pushes "over budget" for each category over its budget this month that
/// was not pushed this month yet; a push that reached no browser is tried
/// again on the next run. Answers how many messages were accepted.
async fn push_over_budget(state: &AppState) -> usize {
    use crate::services::push::{notify_payload, PushService};
    let Some(push) = PushService::from_config(&state.config) else {
        return 0;
    };
    let (rates, today) = (state.rates.current(), state.clock.today());
    let found = match state.db.run(move |c| over_budget(c, &rates, today)).await {
        Ok(found) => found,
        Err(e) => {
            e.log();
            return 0;
        }
    };
    let first = crate::domain::recurrence::month_start(today);
    let mut delivered = 0;
    for Over { user, subs, budget } in found {
        let (id, category) = (user.id.clone(), budget.category_id.clone());
        let sent = state
            .db
            .run(move |c| crate::store::budgets::alert_sent(c, &id, &category, first))
            .await;
        if !matches!(sent, Ok(false)) {
            continue;
        }
        let l = user.locale;
        let money = |a| crate::i18n::format::money(a, &user.base_currency, l);
        let (title, body) = crate::i18n::mail::over_budget(
            l,
            &budget.name,
            &money(budget.spent),
            &money(budget.available),
        );
        let message = notify_payload(&title, &body, "/budgets");
        let accepted = deliver(state, &push, &subs, &message).await;
        if accepted > 0 {
            let (id, category) = (user.id.clone(), budget.category_id.clone());
            let now = crate::clock::timestamp(state.clock.now());
            if let Err(e) = state
                .db
                .transaction(move |tx| {
                    crate::store::budgets::mark_alert(tx, &id, &category, first, &now).map(|_| ())
                })
                .await
            {
                e.log();
            }
        }
        delivered += accepted;
    }
    delivered
}

/// Keeps the browser's push subscription of the user's session
/// `session_id` (one per endpoint; [`push_subscriptions::MAX_PER_USER`] at
/// most), keys as base64url.
pub async fn subscribe(
    state: &AppState,
    user: &UserId,
    session_id: &str,
    endpoint: String,
    p256dh: String,
    auth: String,
) -> crate::Result<push_subscriptions::Saved> {
    let (user, session_id) = (user.clone(), session_id.to_string());
    let now = crate::clock::timestamp(state.clock.now());
    state
        .db
        .run(move |c| {
            push_subscriptions::save(c, &user, &session_id, &endpoint, &p256dh, &auth, &now)
        })
        .await
}

/// Forgets the user's subscription of `endpoint`, if there is one.
pub async fn unsubscribe(state: &AppState, user: &UserId, endpoint: String) -> crate::Result<()> {
    let user = user.clone();
    state
        .db
        .run(move |c| push_subscriptions::delete_endpoint(c, &user, &endpoint))
        .await?;
    Ok(())
}
