//! Payments: every due date of recurring expenses and incomes, and the
//! one-time expenses, in a date range, in the base currency. The payment
//! type is the one the dashboard's "next payments", the REST summary and
//! `/api/v1/payments` all answer.

use crate::domain::money;
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::error::Result;
use crate::store::categories::Category;
use crate::store::daily_expenses::{self, Filter};
use crate::store::expenses;
use crate::store::incomes::Income;
use crate::store::table;
use crate::store::users::User;
use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

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
    #[serde(serialize_with = "money::json::serialize")]
    pub amount: Decimal,
    #[serde(serialize_with = "money::json::serialize")]
    pub original_amount: Decimal,
    pub original_currency: String,
    pub account_id: String,
    pub category: Option<CategoryRef>,
    pub is_subscription: bool,
}

/// A recurring item: its payment (the date filled in per due date) and
/// its schedule.
struct Recurring {
    payment: Payment,
    schedule: Schedule,
}

/// What the payments of a user need besides the one-time expenses: loaded
/// once per request, and small (at most `store::Cap::Recurring` items).
pub struct Source {
    user_id: String,
    base: String,
    rates: Arc<crate::domain::rates::Rates>,
    categories: HashMap<String, CategoryRef>,
    recurring: Vec<Recurring>,
}

impl Source {
    pub fn load(c: &rusqlite::Connection, user: &User, rates: &Arc<Rates>) -> Result<Source> {
        let mut source = Source {
            user_id: user.id.clone(),
            base: user.base_currency.clone(),
            rates: rates.clone(),
            categories: table::all::<Category>(c, &user.id)?
                .iter()
                .map(|k| (k.id.clone(), CategoryRef::from(k)))
                .collect(),
            recurring: Vec::new(),
        };
        for e in expenses::list(c, &user.id, false)? {
            let payment = Payment {
                id: e.id.clone(),
                kind: "expense",
                amount: source.convert(e.amount, &e.currency),
                category: source.category(e.category_id.as_deref()),
                name: e.name.clone(),
                date: e.start_date,
                original_amount: e.amount,
                original_currency: e.currency.clone(),
                account_id: e.account_id.clone(),
                is_subscription: e.is_subscription,
            };
            source.recurring.push(Recurring {
                schedule: e.schedule(),
                payment,
            });
        }
        for i in table::all::<Income>(c, &user.id)? {
            let payment = Payment {
                id: i.id.clone(),
                kind: "income",
                amount: source.convert(i.amount, &i.currency),
                category: None,
                name: i.name.clone(),
                date: i.start_date,
                original_amount: i.amount,
                original_currency: i.currency.clone(),
                account_id: i.account_id.clone(),
                is_subscription: false,
            };
            source.recurring.push(Recurring {
                schedule: i.schedule(),
                payment,
            });
        }
        Ok(source)
    }

    /// The base currency every `amount` is in.
    pub fn currency(&self) -> &str {
        &self.base
    }

    fn convert(&self, amount: Decimal, currency: &str) -> Decimal {
        self.rates.to_base(amount, currency, &self.base)
    }

    fn category(&self, id: Option<&str>) -> Option<CategoryRef> {
        id.and_then(|i| self.categories.get(i)).cloned()
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
        for r in &self.recurring {
            for date in r.schedule.due_dates(from, to) {
                out.push(Payment {
                    date,
                    ..r.payment.clone()
                });
            }
        }
        let range = Filter {
            from: Some(from),
            to: Some(to),
            ..Filter::default()
        };
        for d in daily_expenses::list(c, &self.user_id, &range)? {
            out.push(Payment {
                amount: self.convert(d.amount, &d.currency),
                category: self.category(d.category_id.as_deref()),
                id: d.id,
                kind: "daily_expense",
                name: d.name,
                date: d.date,
                original_amount: d.amount,
                original_currency: d.currency,
                account_id: d.account_id,
                is_subscription: false,
            });
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
