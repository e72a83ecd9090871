//! The upcoming-payments job: finds the recurring expenses due tomorrow
//! (the next UTC day) and reminds their owners by web push.

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
            if e.schedule().due_dates(day, day).is_empty() {
                continue;
            }
            out.push(Due {
                amount: e.prices().on(day),
                user_id: user.id.clone(),
                expense_id: e.id,
                name: e.name,
                currency: e.currency,
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
    tracing::info!(total = due.len(), notified, "upcoming-payments job");
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
    use crate::services::push::{notify_payload, Outcome, PushService};
    let Some(push) = PushService::from_config(&state.config) else {
        return 0;
    };
    let mut delivered = 0;
    for d in due {
        let user = d.user_id.clone();
        let subs = match state
            .db
            .run(move |c| push_subscriptions::list_for_user(c, &user))
            .await
        {
            Ok(s) => s,
            Err(e) => {
                e.log();
                continue;
            }
        };
        let amount = crate::i18n::format::money(d.amount, &d.currency, d.locale);
        let (title, body) = crate::i18n::mail::due_tomorrow(d.locale, &d.name, &amount);
        let message = notify_payload(&title, &body, "/expenses");
        for sub in subs {
            match push.send(&sub, &message).await {
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
