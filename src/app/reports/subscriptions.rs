//! Subscriptions: the recurring expenses marked as such, with what each
//! costs a month (at today's price) and in the next twelve months (each payment
//! at the price of its day), and the totals in the base currency.

use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::monthly_equivalent;
use crate::error::Result;
use crate::store::expenses::{self, Expense};
use crate::store::users::User;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

/// The subscriptions with their monthly cost and the cost of the next twelve
/// months in their own currency, and the totals in the base currency.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscriptions {
    pub currency: String,
    pub monthly_total: Money,
    /// What the active subscriptions cost in the next twelve months, each
    /// payment at the amount of its day (a scheduled price change included).
    pub yearly_total: Money,
    pub subscriptions: Vec<Subscription>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    #[serde(flatten)]
    pub expense: Expense,
    pub monthly_amount: Money,
    /// What its payments due in the next twelve months cost, each at the
    /// amount of its day.
    pub yearly_amount: Money,
    /// Monthly amount in the base currency.
    pub monthly_in_base: Money,
    pub active: bool,
}

/// The subscriptions of `user`; the totals count those active on `today`.
pub fn subscriptions(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
) -> Result<Subscriptions> {
    let list = expenses::list(c, &user.id, true)?
        .into_iter()
        .map(|e| e.on(today));
    let (mut monthly_total, mut yearly_total) = (Decimal::ZERO, Decimal::ZERO);
    let subscriptions = list
        .into_iter()
        .map(|e| {
            // A month at the price of today; the next twelve months at the
            // price of each payment's day, so a raise announced for later
            // counts from then.
            let prices = e.prices();
            let monthly = monthly_equivalent(prices.on(today), e.plan.frequency);
            let monthly_in_base = rates.to_base(monthly, &e.plan.currency, &user.base_currency);
            let yearly = prices.next_twelve_months(&e.plan.schedule(), today);
            let active =
                e.plan.start_date <= today && e.plan.end_date.is_none_or(|end| end >= today);
            if active {
                monthly_total += monthly_in_base;
                yearly_total += rates.to_base(yearly, &e.plan.currency, &user.base_currency);
            }
            Subscription {
                monthly_amount: monthly.into(),
                yearly_amount: yearly.into(),
                monthly_in_base: monthly_in_base.into(),
                active,
                expense: e,
            }
        })
        .collect();
    Ok(Subscriptions {
        currency: user.base_currency.clone(),
        monthly_total: monthly_total.into(),
        yearly_total: yearly_total.into(),
        subscriptions,
    })
}
