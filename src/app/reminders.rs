//! The upcoming-payments job: finds the recurring expenses due tomorrow
//! (the next UTC day) and reminds their owners by web push; and tells users
//! by web push when a category is over its budget, once per category and
//! month (`docs/budgets.md`); and reminds them of a contract's last day to
//! cancel 14 and 3 days before it, once each (`docs/planning.md`).

use crate::state::AppState;
use crate::store::users::UserId;
use crate::store::{expenses, push_subscriptions, users};
use chrono::Duration;
use serde::Serialize;

/// What a run of the job did (`GET /api/cron/upcoming-payments` answers
/// it).
#[derive(Serialize, Debug, Default)]
pub struct Summary {
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
    pub locale: crate::domain::locale::Locale,
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

/// Runs the job; `None` when it could not read what is due (logged).
pub async fn run(state: &AppState) -> Option<Summary> {
    let _running = state.jobs.upcoming.lock().await;
    let tomorrow = state.clock.today() + Duration::days(1);
    let due = match state.db.run(move |c| due_on(c, tomorrow)).await {
        Ok(d) => d,
        Err(e) => {
            e.log();
            return None;
        }
    };
    let notified = push_reminders(state, &due).await;
    let over_budget = push_over_budget(state).await;
    let cancel_by = push_cancel_by(state).await;
    tracing::info!(
        total = due.len(),
        notified,
        over_budget,
        cancel_by,
        "upcoming-payments job"
    );
    Some(Summary {
        notified,
        total: due.len(),
    })
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
/// messages were accepted. The one way a job pushes to a user (the morning
/// bank sync too).
pub(crate) async fn send(
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

/// The reminders before a contract's last day to cancel: 14 days before
/// and 3 days before, each once per deadline (`docs/planning.md`,
/// Cancellation deadlines). A reminder missed (the job did not run that
/// day, the item was entered later) is sent on the next run while its
/// deadline is still ahead; within 3 days only the later one is.
pub const CANCEL_BY_REMINDERS: [i64; 2] = [14, 3];

/// Which reminder is due `days` before a deadline: the nearest of
/// [`CANCEL_BY_REMINDERS`] not before it.
fn cancel_by_reminder(days: i64) -> Option<i64> {
    CANCEL_BY_REMINDERS
        .iter()
        .copied()
        .filter(|&r| days <= r && days >= 0)
        .min()
}

/// A contract deadline to push, with its owner and where to tell them.
struct CancelBy {
    user: crate::store::users::User,
    subs: Vec<push_subscriptions::Subscription>,
    expense: crate::store::expenses::Expense,
    deadline: crate::domain::contracts::Deadline,
    reminder: i64,
}

/// The contract deadlines of users with a push subscription whose
/// reminder is due on `today` and was not sent.
fn deadlines(c: &rusqlite::Connection, today: chrono::NaiveDate) -> crate::Result<Vec<CancelBy>> {
    let mut out = Vec::new();
    for user in users::all(c)? {
        let mut subs = None;
        for e in expenses::list(c, &user.id, false)? {
            if e.plan.end_date.is_some_and(|end| end < today) {
                continue;
            }
            let Some(deadline) = e.deadline(today).filter(|d| !d.runs_on) else {
                continue;
            };
            let Some(reminder) = cancel_by_reminder((deadline.cancel_by - today).num_days()) else {
                continue;
            };
            if expenses::reminder_sent(c, &user.id, &e.id, deadline.cancel_by, reminder)? {
                continue;
            }
            let subs = match &subs {
                Some(s) => s,
                None => subs.insert(push_subscriptions::list_for_user(c, &user.id)?),
            };
            if subs.is_empty() {
                break;
            }
            out.push(CancelBy {
                user: user.clone(),
                subs: subs.clone(),
                expense: e,
                deadline,
                reminder,
            });
        }
    }
    Ok(out)
}

/// Pushes "cancel by …" for each contract deadline whose reminder is due;
/// a push that reached no browser is tried again on the next run. Answers
/// how many messages were accepted.
async fn push_cancel_by(state: &AppState) -> usize {
    use crate::services::push::{notify_payload, PushService};
    let Some(push) = PushService::from_config(&state.config) else {
        return 0;
    };
    let today = state.clock.today();
    let found = match state.db.run(move |c| deadlines(c, today)).await {
        Ok(found) => found,
        Err(e) => {
            e.log();
            return 0;
        }
    };
    let mut delivered = 0;
    for CancelBy {
        user,
        subs,
        expense,
        deadline,
        reminder,
    } in found
    {
        let days = (deadline.cancel_by - today).num_days();
        let (title, body) = crate::i18n::mail::cancel_by(
            user.locale,
            &expense.name,
            days,
            deadline.cancel_by,
            deadline.term_end,
        );
        let page = if expense.is_subscription {
            "/subscriptions"
        } else {
            "/expenses"
        };
        let message = notify_payload(&title, &body, page);
        let accepted = deliver(state, &push, &subs, &message).await;
        if accepted > 0 {
            let (id, now) = (user.id.clone(), crate::clock::timestamp(state.clock.now()));
            if let Err(e) = state
                .db
                .transaction(move |tx| {
                    expenses::mark_reminder(
                        tx,
                        &id,
                        &expense.id,
                        deadline.cancel_by,
                        reminder,
                        &now,
                    )
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

#[cfg(test)]
mod tests {
    use super::cancel_by_reminder;

    /// 14 days before a deadline the first reminder is due, and stays due
    /// until sent; from 3 days before, the second.
    #[test]
    fn the_reminder_due_before_a_deadline() {
        let due: Vec<Option<i64>> = [20, 15, 14, 10, 4, 3, 1, 0, -1]
            .into_iter()
            .map(cancel_by_reminder)
            .collect();
        assert_eq!(
            due,
            [
                None,
                None,
                Some(14),
                Some(14),
                Some(14),
                Some(3),
                Some(3),
                Some(3),
                None
            ]
        );
    }
}
