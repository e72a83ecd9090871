//! The upcoming-payments job: finds the recurring expenses due tomorrow
//! (the next UTC day) and reminds their owners by web push.

use crate::app::AppState;
use crate::store::{expenses, users};
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
    pub user_id: String,
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
                user_id: user.id.clone(),
                expense_id: e.id,
                name: e.name,
                amount: e.amount,
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
    let notified = super::push_reminders(state, &due).await;
    tracing::info!(total = due.len(), notified, "upcoming-payments job");
    Summary {
        success: true,
        notified,
        total: due.len(),
    }
}
