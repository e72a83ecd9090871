//! Recurring expenses and subscriptions: their input and validation; a
//! changed amount follows the price history.

use super::recurring::{kept, Kept, Kind, RecurringInput};
use crate::app::reports::subscriptions::Subscriptions;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::documents::{self, Attached, Document};
use crate::store::expenses::Expense;
use crate::store::prices::Owner;
use crate::store::table;
use crate::store::users::{User, UserId};
use chrono::NaiveDate;

/// The input of a recurring expense or subscription; never once (that
/// is a one-time expense).
pub type ExpenseInput = RecurringInput<Expense>;

impl Kind for Expense {
    const NOUN: [&'static str; 2] = ["Expense", "Expenses"];
    const ONCE: bool = false;
    const OWNER: Owner = Owner::Expense;
    const TERMS: bool = true;

    fn kept(&self) -> Kept<'_> {
        Kept {
            category_id: self.category_id.as_deref(),
            is_subscription: self.is_subscription,
            terms: self.terms(),
            ..kept!(self)
        }
    }
}

/// The user's recurring expenses and the documents attached to any of them.
pub async fn with_documents(
    state: &AppState,
    user: &UserId,
) -> Result<(Vec<Expense>, Vec<Document>)> {
    let (user, today) = (user.clone(), state.clock.today());
    state
        .db
        .run(move |c| {
            Ok((
                crate::store::expenses::list(c, &user, false)?
                    .into_iter()
                    .map(|e| e.on(today))
                    .collect(),
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

/// How many days ahead the dashboard lists contract deadlines.
pub const DEADLINES_AHEAD: i64 = 60;

/// The deadlines of the user's contracts not cancelled, on `today`.
pub fn deadlines(
    c: &rusqlite::Connection,
    user: &UserId,
    today: chrono::NaiveDate,
) -> Result<Vec<crate::domain::insights::ContractFacts>> {
    Ok(crate::store::expenses::list(c, user, false)?
        .into_iter()
        .filter(|e| e.plan.end_date.is_none_or(|end| end >= today))
        .filter_map(|e| {
            e.deadline(today)
                .map(|deadline| crate::domain::insights::ContractFacts {
                    id: e.id,
                    name: e.name,
                    deadline,
                })
        })
        .collect())
}

/// The user's contract deadlines from today through [`DEADLINES_AHEAD`]
/// days, nearest first, for the dashboard; contracts that can be ended
/// any day are left out.
pub async fn upcoming_deadlines(
    state: &AppState,
    user: &UserId,
) -> Result<Vec<crate::domain::insights::ContractFacts>> {
    let (user, today) = (user.clone(), state.clock.today());
    let mut all = state.db.run(move |c| deadlines(c, &user, today)).await?;
    all.retain(|f| {
        !f.deadline.runs_on && (f.deadline.cancel_by - today).num_days() <= DEADLINES_AHEAD
    });
    all.sort_by(|a, b| (a.deadline.cancel_by, &a.name).cmp(&(b.deadline.cancel_by, &b.name)));
    Ok(all)
}

/// `cancelContract`: records the cancellation of the item's contract made
/// on `on` (default today), refused naming `on` after the current term's
/// last day to cancel. The contract ends at the end of the term the
/// cancellation reaches (`cancelledTo`), and so does the item: payments
/// after it are no longer planned. An item already cancelled is answered
/// as it is.
pub async fn cancel_contract(
    state: &AppState,
    user: &UserId,
    id: String,
    on: Option<NaiveDate>,
) -> Result<Expense> {
    let (user, today) = (user.clone(), state.clock.today());
    let now = crate::clock::timestamp(state.clock.now());
    state
        .db
        .transaction(move |tx| {
            let stored = table::find::<Expense>(tx, &user, &id)?.ok_or(Error::NotFound)?;
            if stored.cancelled_to.is_some() {
                return Ok(stored.on(today));
            }
            let terms = stored
                .terms()
                .terms()
                .ok_or_else(|| Error::invalid("termEnd", Reason::NoContractTerms))?;
            let on = on.unwrap_or(today);
            let current = terms.on(today);
            if on > current.cancel_by {
                return Err(Error::invalid(
                    "on",
                    Reason::AfterCancelBy(current.cancel_by),
                ));
            }
            let to = terms.on(on).term_end;
            let end = stored
                .plan
                .end_date
                .map_or(to, |end| end.min(to))
                .max(stored.plan.start_date);
            crate::store::expenses::cancel(tx, &user, &id, to, end, &now)?;
            let record = table::find::<Expense>(tx, &user, &id)?.ok_or(Error::NotFound)?;
            Ok(record.on(today))
        })
        .await
}
