//! The reserve plan: what to set aside each month for the quarterly,
//! half-yearly and yearly expenses, and what should be in each pot by today.

use crate::domain::money::Money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{monthly_equivalent, Frequency};
use crate::domain::reserves::{needs_reserve, set_aside_by, standing};
use crate::error::Result;
use crate::store::users::User;
use crate::store::{expenses, reserve_pots};
use chrono::NaiveDate;
use serde::Serialize;

/// One non-monthly recurring expense in the plan; amounts in the base currency.
#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReserveEntry {
    pub expense_id: String,
    pub name: String,
    pub frequency: Frequency,
    pub amount: Money,
    pub currency: String,
    pub amount_in_base: Money,
    pub next_due_date: NaiveDate,
    /// What to set aside each month for it (reserve view).
    pub monthly_amount: Money,
    /// What should be in its pot by today for the next due date.
    pub target_today: Money,
    pub pot: Money,
    /// Still missing by today (never negative).
    pub gap: Money,
    /// What the pot holds beyond its target by today (never negative):
    /// `target_today - pot == gap - ahead`.
    pub ahead: Money,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservePlan {
    pub currency: String,
    /// The total to set aside each month.
    pub monthly_total: Money,
    pub target_total: Money,
    pub pots_total: Money,
    /// What the pots short of their target miss together.
    pub gap_total: Money,
    /// What the other pots hold beyond their target together; it fills no
    /// other pot, so `target_total - pots_total == gap_total - ahead_total`.
    pub ahead_total: Money,
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
                monthly_amount: monthly_equivalent(in_base, e.plan.frequency).into(),
                gap: gap.into(),
                ahead: ahead.into(),
                expense_id: e.id,
                name: e.name,
                frequency: e.plan.frequency,
                amount: amount.into(),
                currency: e.plan.currency,
                amount_in_base: in_base.into(),
                next_due_date: next,
                target_today: target.into(),
                pot: pot.into(),
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
