//! Payments: every due date of recurring expenses and incomes, and the
//! one-time expenses, in a date range, in the base currency. The payment
//! type is the one the dashboard's "next payments", the REST summary and
//! `/api/v1/payments` all answer.

use crate::domain::money::Money;
use crate::domain::prices::Prices;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::Result;
use crate::store::categories::Category;
use crate::store::daily_expenses::{self, DailyExpense, Filter};
use crate::store::expenses::{self, Expense};
use crate::store::incomes::Income;
use crate::store::table;
use crate::store::users::{User, UserId};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// The longest range of payments asked for at once: its end may be at most
/// this many days after its start (`/api/v1/payments`, the assistant).
pub const MAX_SPAN_DAYS: i64 = 365;

#[derive(Serialize, Clone)]
pub struct CategoryRef {
    pub name: String,
    pub icon: String,
    pub color: String,
}

impl From<&Category> for CategoryRef {
    fn from(c: &Category) -> Self {
        CategoryRef {
            name: c.name.clone(),
            icon: c.icon.clone(),
            color: c.color.clone(),
        }
    }
}

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct Payment {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub name: String,
    pub date: NaiveDate,
    /// In the base currency.
    pub amount: Money,
    pub original_amount: Money,
    pub original_currency: String,
    pub account_id: String,
    pub category: Option<CategoryRef>,
    pub is_subscription: bool,
}

/// Makes the payment of a stored entry: its amount converted to the base
/// currency, its category named. The one place a [`Payment`] is built; the
/// date is the entry's first (a recurring one's due dates replace it).
pub struct Builder<'a> {
    pub base: &'a str,
    pub rates: &'a Rates,
    pub categories: &'a HashMap<String, CategoryRef>,
}

impl Builder<'_> {
    fn payment(&self, kind: &'static str, id: String, name: String, date: NaiveDate) -> Payment {
        Payment {
            id,
            kind,
            name,
            date,
            amount: Money::from(Decimal::ZERO),
            original_amount: Money::from(Decimal::ZERO),
            original_currency: String::new(),
            account_id: String::new(),
            category: None,
            is_subscription: false,
        }
    }

    fn priced(&self, p: Payment, amount: Decimal, currency: String, account_id: String) -> Payment {
        Payment {
            amount: self.rates.to_base(amount, &currency, self.base).into(),
            original_amount: amount.into(),
            original_currency: currency,
            account_id,
            ..p
        }
    }

    fn category(&self, id: Option<&str>) -> Option<CategoryRef> {
        id.and_then(|i| self.categories.get(i)).cloned()
    }

    pub fn expense(&self, e: &Expense) -> Payment {
        let p = Payment {
            category: self.category(e.category_id.as_deref()),
            is_subscription: e.is_subscription,
            ..self.payment("expense", e.id.clone(), e.name.clone(), e.plan.start_date)
        };
        self.priced(
            p,
            *e.plan.amount,
            e.plan.currency.clone(),
            e.account_id.clone(),
        )
    }

    pub fn income(&self, i: &Income) -> Payment {
        let p = self.payment("income", i.id.clone(), i.name.clone(), i.plan.start_date);
        self.priced(
            p,
            *i.plan.amount,
            i.plan.currency.clone(),
            i.account_id.clone(),
        )
    }

    /// A recurring expense's payments, each at the amount of its day.
    pub fn recurring_expense(&self, e: &Expense) -> Dated {
        self.dated(self.expense(e), e.prices())
    }

    /// A recurring income's payments, each at the amount of its day.
    pub fn recurring_income(&self, i: &Income) -> Dated {
        self.dated(self.income(i), i.prices())
    }

    fn dated(&self, payment: Payment, own: Prices) -> Dated {
        let base = own.map(|a| self.rates.to_base(a, &payment.original_currency, self.base));
        Dated { payment, own, base }
    }

    pub fn daily_expense(&self, d: DailyExpense) -> Payment {
        let p = Payment {
            category: self.category(d.entry.category_id.as_deref()),
            ..self.payment("daily_expense", d.id, d.entry.name, d.entry.date)
        };
        self.priced(p, *d.entry.amount, d.entry.currency, d.entry.account_id)
    }
}

/// The payments of one entry on whichever day it is due: a recurring
/// entry's amount depends on the day (its price history).
#[derive(Clone)]
pub struct Dated {
    payment: Payment,
    /// In the entry's currency.
    own: Prices,
    /// In the base currency.
    base: Prices,
}

impl Dated {
    /// A one-time payment: the same amount on any day.
    pub fn once(payment: Payment) -> Dated {
        Dated {
            own: payment.original_amount.0.into(),
            base: payment.amount.0.into(),
            payment,
        }
    }

    /// The payment due on `date`.
    pub fn on(&self, date: NaiveDate) -> Payment {
        Payment {
            date,
            amount: self.base.on(date).into(),
            original_amount: self.own.on(date).into(),
            ..self.payment.clone()
        }
    }
}

/// The user's categories as payments name them, by id.
pub fn category_refs(
    c: &rusqlite::Connection,
    user: &User,
) -> Result<HashMap<String, CategoryRef>> {
    Ok(table::all::<Category>(c, &user.id)?
        .iter()
        .map(|k| (k.id.clone(), CategoryRef::from(k)))
        .collect())
}

/// What the payments of a user need besides the one-time expenses: loaded
/// once per request, and small (at most `store::Cap::Recurring` items):
/// each recurring item's payment and its schedule.
pub struct Source {
    user_id: UserId,
    base: String,
    rates: Arc<Rates>,
    categories: HashMap<String, CategoryRef>,
    recurring: Vec<(Dated, Schedule)>,
}

impl Source {
    pub fn load(c: &rusqlite::Connection, user: &User, rates: &Arc<Rates>) -> Result<Source> {
        let categories = category_refs(c, user)?;
        let build = Builder {
            base: &user.base_currency,
            rates,
            categories: &categories,
        };
        let mut recurring = Vec::new();
        for e in expenses::list(c, &user.id, false)? {
            recurring.push((build.recurring_expense(&e), e.plan.schedule()));
        }
        for i in table::all::<Income>(c, &user.id)? {
            recurring.push((build.recurring_income(&i), i.plan.schedule()));
        }
        Ok(Source {
            user_id: user.id.clone(),
            base: user.base_currency.clone(),
            rates: rates.clone(),
            categories,
            recurring,
        })
    }

    /// The base currency every `amount` is in.
    pub fn currency(&self) -> &str {
        &self.base
    }

    /// The payments from `from` through `to`, in the reply's order (date,
    /// type, name, id); `c` gives the one-time expenses of those days.
    pub fn between(
        &self,
        c: &rusqlite::Connection,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<Payment>> {
        let mut out = Vec::new();
        for (payments, schedule) in &self.recurring {
            for date in schedule.due_dates(from, to) {
                out.push(payments.on(date));
            }
        }
        let range = Filter {
            from: Some(from),
            to: Some(to),
            ..Filter::default()
        };
        let build = Builder {
            base: &self.base,
            rates: &self.rates,
            categories: &self.categories,
        };
        for d in daily_expenses::list(c, &self.user_id, &range)? {
            out.push(build.daily_expense(d));
        }
        out.sort_by(|a, b| {
            a.date
                .cmp(&b.date)
                .then_with(|| a.kind.cmp(b.kind))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(out)
    }
}

/// The calendar months that `start..=end` touches, each cut to the range.
pub fn months(start: NaiveDate, end: NaiveDate) -> impl Iterator<Item = (NaiveDate, NaiveDate)> {
    let mut first = month_start(start);
    std::iter::from_fn(move || {
        if first > end {
            return None;
        }
        let span = (first.max(start), month_end(first).min(end));
        first = add_months(first, 1);
        Some(span)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn months_cover_the_range_once_cut_at_both_ends() {
        let spans: Vec<_> = months(d("2026-01-15"), d("2026-03-02")).collect();
        assert_eq!(
            spans,
            vec![
                (d("2026-01-15"), d("2026-01-31")),
                (d("2026-02-01"), d("2026-02-28")),
                (d("2026-03-01"), d("2026-03-02")),
            ]
        );
        let one: Vec<_> = months(d("2026-05-07"), d("2026-05-07")).collect();
        assert_eq!(one, vec![(d("2026-05-07"), d("2026-05-07"))]);
        let year: Vec<_> = months(d("2025-12-31"), d("2026-12-31")).collect();
        assert_eq!(year.len(), 13);
        assert_eq!(year[12], (d("2026-12-01"), d("2026-12-31")));
    }
}
