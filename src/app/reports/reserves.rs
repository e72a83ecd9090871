//! The reserve plan: what to set aside each month for the quarterly,
//! half-yearly and yearly expenses, and what should be in each pot by today.

use crate::domain::money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{monthly_equivalent, Frequency};
use crate::domain::reserves::{needs_reserve, set_aside_by, standing};
use crate::error::Result;
use crate::store::users::User;
use crate::store::{expenses, reserve_pots};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

/// One non-monthly recurring expense in the plan; amounts in the base currency.
#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReserveEntry {
    pub expense_id: String,
    pub name: String,
    pub frequency: Frequency,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    pub currency: String,
    #[serde(serialize_with = "money::json::serialize")]
    pub amount_in_base: Decimal,
    pub next_due_date: NaiveDate,
    /// What to set aside each month for it (reserve view).
    #[serde(serialize_with = "money::json::serialize")]
    pub monthly_amount: Decimal,
    /// What should be in its pot by today for the next due date.
    #[serde(serialize_with = "money::json::serialize")]
    pub target_today: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub pot: Decimal,
    /// Still missing by today (never negative).
    #[serde(serialize_with = "money::json::serialize")]
    pub gap: Decimal,
    /// What the pot holds beyond its target by today (never negative):
    /// `target_today - pot == gap - ahead`.
    #[serde(serialize_with = "money::json::serialize")]
    pub ahead: Decimal,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservePlan {
    pub currency: String,
    /// The total to set aside each month.
    #[serde(serialize_with = "money::json::serialize")]
    pub monthly_total: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub target_total: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub pots_total: Decimal,
    /// What the pots short of their target miss together.
    #[serde(serialize_with = "money::json::serialize")]
    pub gap_total: Decimal,
    /// What the other pots hold beyond their target together; it fills no
    /// other pot, so `target_total - pots_total == gap_total - ahead_total`.
    #[serde(serialize_with = "money::json::serialize")]
    pub ahead_total: Decimal,
    pub entries: Vec<ReserveEntry>,
}

/// The plan of `user` on `today`, soonest due first.
pub fn plan(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    today: NaiveDate,
) -> Result<ReservePlan> {
    let table = rates;
    let base = user.base_currency.as_str();
    let pots = reserve_pots::by_expense(c, &user.id)?;
    let mut entries: Vec<ReserveEntry> = expenses::list(c, &user.id, false)?
        .into_iter()
        .filter(|e| needs_reserve(e.plan.frequency))
        .filter_map(|e| {
            // The amount of the next payment (a later price may be set).
            let amount = e.prices().on(e.plan.schedule().next_due(today)?);
            let in_base = table.to_base(amount, &e.plan.currency, base);
            let (next, target) = set_aside_by(&e.plan.schedule(), in_base, today)?;
            let pot = pots.get(&e.id).copied().unwrap_or_default();
            let (gap, ahead) = standing(target, pot);
            Some(ReserveEntry {
                monthly_amount: monthly_equivalent(in_base, e.plan.frequency),
                gap,
                ahead,
                expense_id: e.id,
                name: e.name,
                frequency: e.plan.frequency,
                amount,
                currency: e.plan.currency,
                amount_in_base: in_base,
                next_due_date: next,
                target_today: target,
                pot,
            })
        })
        .collect();
    entries.sort_by(|a, b| {
        a.next_due_date
            .cmp(&b.next_due_date)
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(ReservePlan {
        currency: base.to_string(),
        monthly_total: entries.iter().map(|e| e.monthly_amount).sum(),
        target_total: entries.iter().map(|e| e.target_today).sum(),
        pots_total: entries.iter().map(|e| e.pot).sum(),
        gap_total: entries.iter().map(|e| e.gap).sum(),
        ahead_total: entries.iter().map(|e| e.ahead).sum(),
        entries,
    })
}
