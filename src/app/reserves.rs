//! The reserve pots of non-monthly recurring expenses: what is put aside
//! (the plan itself is [`reports::reserves`](super::reports::reserves)).

use super::reports::reserves::{plan, ReserveEntry};
use crate::clock::timestamp;
use crate::domain::reserves::needs_reserve;
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store::expenses::Expense;
use crate::store::users::User;
use crate::store::{reserve_pots, table};
use rust_decimal::Decimal;

/// Records what is in the pot of the user's expense `expense_id` (in the
/// base currency) and answers its entry of the plan afterwards.
pub async fn set_pot(
    state: &AppState,
    user: &User,
    expense_id: String,
    amount: Decimal,
) -> Result<Option<ReserveEntry>> {
    let (user, rates) = (user.clone(), state.rates.current());
    let (today, now) = (state.clock.today(), timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| {
            let expense = table::find::<Expense>(tx, &user.id, &expense_id)?
                .ok_or_else(|| Error::unknown("expenseId"))?;
            if !needs_reserve(expense.plan.frequency) {
                return Err(Error::invalid("expenseId", Reason::NoReservePot));
            }
            reserve_pots::set(tx, &user.id, &expense_id, amount, &now)?;
            Ok(plan(tx, &user, &rates, today)?
                .entries
                .into_iter()
                .find(|e| e.expense_id == expense_id))
        })
        .await
}
