//! What cashkeeper computes from a user's records for the pages, the REST
//! API, the jobs and the command line alike: each number in one place.
//! Every report is a plain function over a connection, the user, the rates
//! and the day; [`read`] runs one for a door.

pub mod budgets;
pub mod dashboard;
pub mod forecasts;
pub mod net_worth;
pub mod payments;
pub mod reserves;
pub mod subscriptions;
pub mod summary;

use crate::domain::rates::Rates;
use crate::error::Result;
use crate::state::AppState;
use crate::store::users::User;
use chrono::NaiveDate;
use rusqlite::Connection;

/// Runs `report` for `user` on a pooled connection, with the current rates
/// and the service's day.
pub async fn read<T, F>(state: &AppState, user: &User, report: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&Connection, &User, &Rates, NaiveDate) -> Result<T> + Send + 'static,
{
    let (user, rates, today) = (user.clone(), state.rates.current(), state.clock.today());
    state.db.run(move |c| report(c, &user, &rates, today)).await
}
