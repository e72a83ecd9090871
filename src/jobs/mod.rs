//! The two recurring jobs: insight generation and upcoming-payment
//! reminders. The cron routes and the bundled scheduler both run them, and
//! each job holds a lock while it runs, so it never runs twice at once.

pub mod insights;
pub mod scheduler;
pub mod upcoming;

use tokio::sync::Mutex;

/// One lock per job.
#[derive(Default)]
pub struct JobLocks {
    pub insights: Mutex<()>,
    pub upcoming: Mutex<()>,
}

/// Sends the reminders for `due`: one message per due expense to each of
/// its owner's subscriptions; subscriptions the push service says are gone
/// (404, 410) are deleted. Answers how many messages were accepted.
/// Without the VAPID configuration there is nothing to send.
pub async fn push_reminders(state: &crate::app::AppState, due: &[upcoming::Due]) -> usize {
    use crate::services::push::{notify_payload, Outcome, PushService};
    use crate::store::push_subscriptions;
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
        let amount = crate::web::format::money(d.amount, &d.currency, d.locale);
        let (title, body) = match d.locale {
            crate::i18n::Locale::De => (
                format!("Morgen fällig: {}", d.name),
                format!("{} wird morgen abgebucht.", amount),
            ),
            crate::i18n::Locale::En => (
                format!("Due tomorrow: {}", d.name),
                format!("{amount} will be paid tomorrow."),
            ),
        };
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
