//! Data written through the store, past the actions: a demo household or a
//! long history in a moment.

use super::{TestApp, TestUser};

/// Rows per transaction of [`TestApp::daily_expenses_on`].
const SEED_CHUNK: u32 = 10_000;

impl TestApp {
    /// Fills `user`'s data with the demo household's year (`cashkeeper demo`).
    pub async fn demo_household(&self, user: &TestUser) {
        let (uid, now) = (self.user_id(user).await, self.state.clock.now());
        self.state
            .db
            .transaction(move |tx| {
                cashkeeper::demo::fill_household(tx, &uid, now.date_naive(), now)?;
                Ok(())
            })
            .await
            .unwrap();
    }

    /// Gives `user` `n` one-time expenses "Einkauf 0" to "Einkauf {n-1}" of
    /// `cents` cents each on `account` (EUR), spread over the days of
    /// `month` ("2026-03"), written through the store in one transaction: a
    /// long history in a moment.
    pub async fn many_daily_expenses(
        &self,
        user: &TestUser,
        account: &str,
        month: &str,
        n: u32,
        cents: i64,
    ) {
        let month = month.to_string();
        let day = move |i: u32| format!("{month}-{:02}", 1 + i % 28).parse().unwrap();
        self.daily_expenses_on(user, account, n, cents, day).await
    }

    /// Gives `user` `n` one-time expenses "Einkauf 0" to "Einkauf {n-1}" of
    /// `cents` cents each on `account` (EUR), the `i`th on `day(i)`, in
    /// transactions of [`SEED_CHUNK`] rows: each one well inside the write
    /// budget also on a busy machine, where 100,000 rows in one ran out of
    /// it.
    pub async fn daily_expenses_on(
        &self,
        user: &TestUser,
        account: &str,
        n: u32,
        cents: i64,
        day: impl Fn(u32) -> chrono::NaiveDate + Send + Sync + 'static,
    ) {
        use cashkeeper::store::daily_expenses::{DailyEntry, DailyExpense};
        let (uid, now) = (self.user_id(user).await, self.state.clock.now());
        let day = std::sync::Arc::new(day);
        for start in (0..n).step_by(SEED_CHUNK as usize) {
            let (uid, day, account) = (uid.clone(), day.clone(), account.to_string());
            self.state
                .db
                .transaction(move |tx| {
                    let now = now.to_rfc3339();
                    for i in start..n.min(start + SEED_CHUNK) {
                        let new = DailyEntry {
                            name: format!("Einkauf {i}"),
                            amount: cashkeeper::domain::money::Money::from_cents(cents),
                            currency: "EUR".into(),
                            date: day(i),
                            account_id: account.clone(),
                            category_id: None,
                            merchant: String::new(),
                            notes: String::new(),
                        };
                        cashkeeper::store::table::insert::<DailyExpense>(tx, &uid, &new, &now)?;
                    }
                    Ok(())
                })
                .await
                .unwrap();
        }
    }
}
