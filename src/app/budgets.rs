//! Setting and ending budgets (`setBudget`, `deleteBudget`; the rules in
//! [`crate::domain::budgets`], the month's figures in
//! [`crate::app::reports::budgets`]).

use crate::app::input;
use crate::domain::budgets;
use crate::domain::money::Money;
use crate::domain::money::Sign;
use crate::domain::recurrence::{month_or_current, month_start};
use crate::error::{Error, Reason, Result};
use crate::state::AppState;
use crate::store;
use crate::store::users::UserId;
use chrono::NaiveDate;
use rusqlite::Connection;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SetInput {
    pub category_id: Option<String>,
    pub amount: Option<Value>,
    pub rollover: Option<bool>,
    pub from: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct DeleteInput {
    pub category_id: Option<String>,
    pub from: Option<String>,
}

/// What a change wrote: the category's budget from `from` on (`amount`
/// null when it ended).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Set {
    pub category_id: String,
    pub from: String,
    pub amount: Option<Money>,
    pub rollover: bool,
}

/// The category a budget is for, required.
fn category(id: Option<String>) -> Result<String> {
    input::optional_id(id).ok_or_else(|| Error::invalid("categoryId", Reason::Required))
}

/// Sets the budget of `category_id` to `amount` from the month of `from`
/// on, in the caller's write transaction; months before keep theirs.
pub fn set_in(
    tx: &Connection,
    user: &UserId,
    category_id: &str,
    amount: Option<Decimal>,
    rollover: bool,
    from: NaiveDate,
    now: &str,
) -> Result<Set> {
    store::require_owned_field::<store::categories::Category>(tx, user, "categoryId", category_id)?;
    let changes = store::budgets::of(tx, user, category_id)?;
    let from = month_start(from);
    let changed = budgets::apply(&changes, from, amount, rollover);
    store::budgets::replace(tx, user, category_id, from, &changed, now)?;
    Ok(Set {
        category_id: category_id.to_string(),
        from: from.format("%Y-%m").to_string(),
        amount: amount.map(Money),
        rollover: amount.is_some() && rollover,
    })
}

/// `setBudget {categoryId, amount, rollover?, from?}`.
pub async fn set(state: &AppState, user: &UserId, input: SetInput) -> Result<Set> {
    let mut checks = input::Checks::default();
    let category_id = checks.take(category(input.category_id))?;
    let amount = checks.take(input::amount("amount", input.amount, Sign::Positive))?;
    let today = state.clock.today();
    let from = checks.take(month_or_current("from", input.from.as_deref(), today))?;
    let (category_id, amount, from) = checks.finish(|| Some((category_id?, amount?, from?)))?;
    let rollover = input.rollover.unwrap_or(false);
    let (user, now) = (user.clone(), crate::clock::timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| set_in(tx, &user, &category_id, Some(amount), rollover, from, &now))
        .await
}

/// `deleteBudget {categoryId, from?}`: no budget from that month on.
pub async fn delete(state: &AppState, user: &UserId, input: DeleteInput) -> Result<Set> {
    let mut checks = input::Checks::default();
    let category_id = checks.take(category(input.category_id))?;
    let from = checks.take(month_or_current(
        "from",
        input.from.as_deref(),
        state.clock.today(),
    ))?;
    let (category_id, from) = checks.finish(|| Some((category_id?, from?)))?;
    let (user, now) = (user.clone(), crate::clock::timestamp(state.clock.now()));
    state
        .db
        .transaction(move |tx| set_in(tx, &user, &category_id, None, false, from, &now))
        .await
}

/// Whether any of the user's categories has a budget in any month.
pub async fn any(state: &AppState, user: &UserId) -> Result<bool> {
    let user = user.clone();
    state.db.run(move |c| store::budgets::any(c, &user)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::records::{self, CategoryInput};
    use crate::app::testing::{fields, Fixture};
    use crate::store::table::Table;
    use serde_json::json;

    fn input(json: Value) -> SetInput {
        serde_json::from_value(json).unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    async fn first_category(f: &Fixture, user: &UserId) -> String {
        let all = records::list::<CategoryInput>(&f.state, user)
            .await
            .unwrap();
        all[0].id().to_string()
    }

    async fn changes(f: &Fixture, user: &UserId, category: &str) -> Vec<budgets::Change> {
        let (user, category) = (user.clone(), category.to_string());
        f.state
            .db
            .run(move |c| store::budgets::of(c, &user, &category))
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_budget_names_every_wrong_field_at_once() {
        let f = Fixture::on("2026-03-15");
        let user = f.user("anna@example.org").await;
        let e = set(
            &f.state,
            &user,
            input(json!({"amount": "-5", "from": "2026-13"})),
        )
        .await
        .unwrap_err();
        let named: Vec<String> = fields(&e).into_iter().map(|(f, _)| f).collect();
        assert_eq!(named, ["categoryId", "amount", "from"], "{e:?}");
        assert_eq!(fields(&e)[0].1, Reason::Required);
        assert!(!any(&f.state, &user).await.unwrap(), "nothing written");
    }

    #[tokio::test]
    async fn another_users_category_takes_no_budget() {
        let f = Fixture::on("2026-03-15");
        let (anna, bob) = (
            f.user("anna@example.org").await,
            f.user("bob@example.org").await,
        );
        let annas = first_category(&f, &anna).await;
        let e = set(
            &f.state,
            &bob,
            input(json!({"categoryId": annas, "amount": "100"})),
        )
        .await
        .unwrap_err();
        assert!(
            matches!(&e, Error::UnknownId(field) if field == "categoryId"),
            "{e:?}"
        );
        assert!(!any(&f.state, &anna).await.unwrap());
        assert!(!any(&f.state, &bob).await.unwrap());
    }

    #[tokio::test]
    async fn a_change_holds_from_its_month_on_and_the_months_before_keep_theirs() {
        let f = Fixture::on("2026-03-15");
        let user = f.user("anna@example.org").await;
        let food = first_category(&f, &user).await;
        // Without `from`: the current month, whatever the day.
        let made = set(
            &f.state,
            &user,
            input(json!({"categoryId": food, "amount": "300"})),
        )
        .await
        .unwrap();
        assert_eq!(made.from, "2026-03");
        assert!(!made.rollover, "rollover is off unless asked");
        set(
            &f.state,
            &user,
            input(json!({"categoryId": food, "amount": "250.50", "rollover": true, "from": "2026-05"})),
        )
        .await
        .unwrap();
        let ended = delete(
            &f.state,
            &user,
            serde_json::from_value(json!({"categoryId": food, "from": "2026-08"})).unwrap(),
        )
        .await
        .unwrap();
        assert_eq!((ended.amount, ended.rollover), (None, false));

        let all = changes(&f, &user, &food).await;
        let in_force = |d: &str| budgets::in_force(&all, day(d)).map(|c| (c.amount, c.rollover));
        assert_eq!(in_force("2026-02-01"), None, "before the first budget");
        assert_eq!(
            in_force("2026-04-01"),
            Some((Some(Decimal::new(300, 0)), false))
        );
        assert_eq!(
            in_force("2026-05-01"),
            Some((Some(Decimal::new(25050, 2)), true))
        );
        assert_eq!(
            in_force("2026-07-01"),
            Some((Some(Decimal::new(25050, 2)), true))
        );
        assert_eq!(in_force("2026-08-01").map(|c| c.0), Some(None), "ended");
        assert!(any(&f.state, &user).await.unwrap());

        // Setting March again replaces every later change: one budget from
        // March on, the months before still without.
        set(
            &f.state,
            &user,
            input(json!({"categoryId": food, "amount": "320", "from": "2026-03"})),
        )
        .await
        .unwrap();
        let all = changes(&f, &user, &food).await;
        let amount = |d: &str| budgets::in_force(&all, day(d)).and_then(|c| c.amount);
        assert_eq!(amount("2026-02-01"), None);
        for month in ["2026-03-01", "2026-05-01", "2026-09-01"] {
            assert_eq!(amount(month), Some(Decimal::new(320, 0)), "{month}");
        }
    }
}
