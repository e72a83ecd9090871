//! Subscriptions: the recurring expenses marked as such, with what each
//! costs a month and a year, and the totals in the base currency.

use crate::domain::rates::Rates;
use crate::domain::recurrence::{monthly_equivalent, Frequency};
use crate::error::Result;
use crate::store::expenses::{self, Expense};
use crate::store::users::User;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

/// The subscriptions with their monthly and yearly cost in their own
/// currency, and the totals in the base currency.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscriptions {
    pub currency: String,
    #[serde(serialize_with = "crate::domain::money::json::serialize")]
    pub monthly_total: Decimal,
    #[serde(serialize_with = "crate::domain::money::json::serialize")]
    pub yearly_total: Decimal,
    pub subscriptions: Vec<Subscription>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    #[serde(flatten)]
    pub expense: Expense,
    #[serde(serialize_with = "crate::domain::money::json::serialize")]
    pub monthly_amount: Decimal,
    #[serde(serialize_with = "crate::domain::money::json::serialize")]
    pub yearly_amount: Decimal,
    /// Monthly amount in the base currency.
    #[serde(serialize_with = "crate::domain::money::json::serialize")]
    pub monthly_in_base: Decimal,
    pub active: bool,
}

/// The subscriptions of `user`; the totals count those active on `today`.
pub fn subscriptions(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
) -> Result<Subscriptions> {
    let list = expenses::list(c, &user.id, true)?;
    let mut monthly_total = Decimal::ZERO;
    let subscriptions = list
        .into_iter()
        .map(|e| {
            // The price of today; a raise announced for later counts from then.
            let amount = e.prices().on(today);
            let monthly = monthly_equivalent(amount, e.frequency);
            let monthly_in_base = rates.to_base(monthly, &e.currency, &user.base_currency);
            let active = e.start_date <= today && e.end_date.is_none_or(|end| end >= today);
            if active {
                monthly_total += monthly_in_base;
            }
            Subscription {
                monthly_amount: monthly,
                yearly_amount: yearly_amount(amount, e.frequency),
                monthly_in_base,
                active,
                expense: e,
            }
        })
        .collect();
    Ok(Subscriptions {
        currency: user.base_currency.clone(),
        monthly_total,
        yearly_total: monthly_total * Decimal::from(12),
        subscriptions,
    })
}

/// What a recurring expense costs in a year: the amount times its due dates per year.
fn yearly_amount(amount: Decimal, frequency: Frequency) -> Decimal {
    let per_year = match frequency {
        Frequency::Weekly => 52,
        Frequency::Monthly => 12,
        Frequency::Quarterly => 4,
        Frequency::HalfYearly => 2,
        Frequency::Yearly | Frequency::Once => 1,
    };
    amount * Decimal::from(per_year)
}
