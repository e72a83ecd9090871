//! Recurring expenses and subscriptions: their input and validation; a
//! changed amount follows the price history.

use super::recurring::{kept, Kept, Kind, RecurringInput};
use crate::app::reports::subscriptions::Subscriptions;
use crate::error::Result;
use crate::state::AppState;
use crate::store::documents::{self, Attached, Document};
use crate::store::expenses::Expense;
use crate::store::prices::Owner;
use crate::store::users::{User, UserId};

/// The input of a recurring expense or subscription; never once (that
/// is a one-time expense).
pub type ExpenseInput = RecurringInput<Expense>;

impl Kind for Expense {
    const NOUN: [&'static str; 2] = ["Expense", "Expenses"];
    const ONCE: bool = false;
    const OWNER: Owner = Owner::Expense;

    fn kept(&self) -> Kept<'_> {
        Kept {
            category_id: self.category_id.as_deref(),
            is_subscription: self.is_subscription,
            ..kept!(self)
        }
    }
}

/// The user's recurring expenses and the documents attached to any of them.
pub async fn with_documents(
    state: &AppState,
    user: &UserId,
) -> Result<(Vec<Expense>, Vec<Document>)> {
    let user = user.clone();
    state
        .db
        .run(move |c| {
            Ok((
                crate::store::expenses::list(c, &user, false)?,
                documents::attached(c, &user, Attached::Expenses)?,
            ))
        })
        .await
}

/// The user's subscriptions with what they cost a month and a year.
pub async fn subscriptions(state: &AppState, user: &User) -> Result<Subscriptions> {
    let (user, rates, today) = (user.clone(), state.rates.current(), state.clock.today());
    state
        .db
        .run(move |c| crate::app::reports::subscriptions::subscriptions(c, &user, &rates, today))
        .await
}
