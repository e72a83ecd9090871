//! What cashkeeper computes from a user's records for the pages, the REST
//! API, the jobs and the command line alike: each number in one place.
//! Every report is a plain function over a connection, the user, the rates
//! and the day; [`read`] runs one for a door, [`read_kept`] keeps its
//! answer while what it was computed from stands still.

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

/// [`read`], with the answer kept under `key` (in
/// [`AppState::report_cache`](crate::state::Inner::report_cache)) while
/// the user's data version (moved by every write to their records, from
/// any process), the rate table and the day stand still: a reload costs
/// one query instead of the report.
pub async fn read_kept<T, F>(
    state: &AppState,
    user: &User,
    key: &str,
    report: F,
) -> Result<std::sync::Arc<T>>
where
    T: Send + Sync + 'static,
    F: FnOnce(&Connection, &User, &Rates, NaiveDate) -> Result<T> + Send + 'static,
{
    let (st, user) = (state.clone(), user.clone());
    let key = format!("{}:{key}", user.id);
    state
        .db
        .read(move |c| {
            // The stamp is read before the data, so a write in between is
            // kept under the older stamp and computed again on the next read.
            let stamp = crate::cache::Stamp {
                data_version: crate::store::users::data_version(c, &user.id)?,
                rates_generation: st.rates.generation(),
                today: st.clock.today(),
            };
            if let Some(hit) = st.report_cache.get(&key, stamp) {
                if let Ok(hit) = hit.downcast::<T>() {
                    return Ok(hit);
                }
            }
            let value = std::sync::Arc::new(report(c, &user, &st.rates.current(), stamp.today)?);
            st.report_cache.put(key, stamp, value.clone());
            Ok(value)
        })
        .await
}
