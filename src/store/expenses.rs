//! Recurring expenses; subscriptions are those flagged `is_subscription`.

use super::prices;
use super::recurring::{ContractTerms, NewRecurring, Planned};
use super::table::{earlier_amounts, read_columns, written_columns, Table};
use super::users::UserId;
use crate::domain::contracts::Deadline;
use crate::domain::money::Money;
use crate::domain::prices::{Earlier, Prices};
use crate::error::Result;
use chrono::NaiveDate;
use rusqlite::{params, Connection};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expense {
    pub id: String,
    pub name: String,
    #[serde(flatten)]
    pub plan: Planned,
    pub account_id: String,
    pub category_id: Option<String>,
    pub is_subscription: bool,
    pub notes: String,
    pub created_at: String,
    pub updated_at: String,
    /// The amount before the last change of it, and when it changed.
    pub previous_amount: Option<Money>,
    pub amount_changed_at: Option<String>,
    /// The amounts before the latest one, oldest first (`docs/actions.md`,
    /// Price changes).
    pub earlier_amounts: Vec<Earlier>,
    /// The contract's terms (`docs/planning.md`, Cancellation deadlines):
    /// the end of the current term on the day [`Expense::on`] was given
    /// (as stored until then), the renewal, the notice, the last day to
    /// cancel (`None` until [`Expense::on`], or without terms, or once
    /// cancelled) and the end a recorded cancellation reaches.
    pub term_end: Option<NaiveDate>,
    pub renewal_months: u32,
    pub notice_months: Option<u32>,
    pub notice_days: Option<u32>,
    pub cancel_by: Option<NaiveDate>,
    pub cancelled_to: Option<NaiveDate>,
    /// The term's end as stored, which the current one follows from.
    #[serde(skip)]
    pub given_term_end: Option<NaiveDate>,
    #[serde(skip)]
    pub end_date_before_cancel: Option<NaiveDate>,
}

impl Expense {
    /// The amount over time.
    pub fn prices(&self) -> Prices {
        self.plan.prices(&self.earlier_amounts)
    }

    /// The contract terms as stored.
    pub fn terms(&self) -> ContractTerms {
        ContractTerms {
            term_end: self.given_term_end,
            renewal_months: self.renewal_months,
            notice_months: self.notice_months,
            notice_days: self.notice_days,
            cancelled_to: self.cancelled_to,
            end_date_before_cancel: self.end_date_before_cancel,
        }
    }

    /// The contract's current term and deadline on `today`, when it has
    /// terms and no cancellation is recorded.
    pub fn deadline(&self, today: NaiveDate) -> Option<Deadline> {
        if self.cancelled_to.is_some() {
            return None;
        }
        self.terms().terms().map(|t| t.on(today))
    }

    /// The record as it is shown on `today`: `termEnd` the end of the
    /// current term (or the end a cancellation reaches) and `cancelBy` its
    /// deadline.
    pub fn on(mut self, today: NaiveDate) -> Expense {
        if let Some(to) = self.cancelled_to {
            self.term_end = Some(to);
            self.cancel_by = None;
        } else if let Some(d) = self.deadline(today) {
            self.term_end = Some(d.term_end);
            self.cancel_by = Some(d.cancel_by);
        } else {
            self.term_end = self.given_term_end;
            self.cancel_by = None;
        }
        self
    }
}

impl Table for Expense {
    type New = NewRecurring;
    const NAME: &'static str = "expenses";
    const ORDER: &'static str = "name COLLATE NOCASE, id";

    read_columns! {
        name, account_id, category_id, is_subscription, notes, created_at, updated_at,
        previous_amount: "previous_amount_cents" => Money::from_cents_or_none, amount_changed_at,
        earlier_amounts: earlier_amounts!("expense_id", "expenses") => prices::parse,
        term_end, renewal_months, notice_months, notice_days, cancel_by: "NULL", cancelled_to,
        given_term_end: "term_end", end_date_before_cancel;
        plan
    }

    fn shown_on(self, today: NaiveDate) -> Self {
        self.on(today)
    }

    written_columns! { e;
        "name" => e.name, "account_id" => e.account_id, "category_id" => e.category_id,
        "is_subscription" => e.is_subscription, "notes" => e.notes,
        "term_end" => e.terms.term_end, "renewal_months" => e.terms.renewal_months,
        "notice_months" => e.terms.notice_months, "notice_days" => e.terms.notice_days,
        "cancelled_to" => e.terms.cancelled_to,
        "end_date_before_cancel" => e.terms.end_date_before_cancel;
        plan: e.plan,
    }
}

/// The user's recurring expenses; only subscriptions with `subscriptions_only`.
pub fn list(c: &Connection, user_id: &UserId, subscriptions_only: bool) -> Result<Vec<Expense>> {
    let mut s = c.prepare_cached(&format!(
        "SELECT {} FROM expenses WHERE user_id = ?1 AND (?2 = 0 OR is_subscription = 1)
         ORDER BY {}",
        Expense::COLUMNS,
        Expense::ORDER
    ))?;
    let rows = s
        .query_map(params![user_id, subscriptions_only], Expense::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    Ok(rows)
}

/// Records the cancellation of the user's expense `id`: the contract ends
/// on `to`, and so does the item (its end date before kept, for taking the
/// cancellation back). `false` when there is no such expense.
pub fn cancel(
    c: &Connection,
    user_id: &UserId,
    id: &str,
    to: NaiveDate,
    end: NaiveDate,
    now: &str,
) -> Result<bool> {
    let changed = c
        .prepare_cached(
            "UPDATE expenses SET cancelled_to = ?1, end_date_before_cancel = end_date,
               end_date = ?2, updated_at = ?3
             WHERE id = ?4 AND user_id = ?5",
        )?
        .execute(params![to, end, now, id, user_id])?;
    Ok(changed == 1)
}

/// Whether the "cancel by" push `days_before` the deadline `cancel_by` of
/// the user's expense was sent.
pub fn reminder_sent(
    c: &Connection,
    user_id: &UserId,
    expense_id: &str,
    cancel_by: NaiveDate,
    days_before: i64,
) -> Result<bool> {
    Ok(c.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM contract_reminders WHERE user_id = ?1 AND expense_id = ?2
           AND cancel_by = ?3 AND days_before = ?4)",
    )?
    .query_row(params![user_id, expense_id, cancel_by, days_before], |r| {
        r.get(0)
    })?)
}

/// Notes the "cancel by" push `days_before` the deadline `cancel_by` as sent.
pub fn mark_reminder(
    c: &Connection,
    user_id: &UserId,
    expense_id: &str,
    cancel_by: NaiveDate,
    days_before: i64,
    now: &str,
) -> Result<()> {
    c.prepare_cached(
        "INSERT OR IGNORE INTO contract_reminders (user_id, expense_id, cancel_by, days_before, sent_at)
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM expenses WHERE id = ?2 AND user_id = ?1)",
    )?
    .execute(params![user_id, expense_id, cancel_by, days_before, now])?;
    Ok(())
}
