//! The dashboard of a month: the cashflow and reserve views, recurring
//! costs, what is due next, spending by category and the last twelve
//! months, all in the user's base currency. The `getDashboard` action, the
//! dashboard page and the REST summary read it from here.

use super::payments::{Builder, Dated};
pub use super::payments::{CategoryRef, Payment};
use crate::domain::money::Money;
use crate::domain::money::{self, change_pct};
use crate::domain::rates::Rates;
use crate::domain::recurrence::{add_months, month_end, month_start, Schedule};
use crate::domain::views::{self, Item, Kind, RecurringCosts, Totals, View};
use crate::error::Result;
use crate::store::accounts::Account;
use crate::store::categories::Category;
use crate::store::incomes::Income;
use crate::store::table;
use crate::store::users::User;
use crate::store::{daily_expenses, expenses};
use chrono::{Datelike, Duration, NaiveDate};
use rust_decimal::Decimal;
use serde::Serialize;
use std::collections::HashMap;

/// Payments listed under "next payments".
pub const UPCOMING_DAYS: i64 = 30;
pub const UPCOMING_MAX: usize = 8;

#[derive(Serialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
pub struct MonthView {
    pub income: Money,
    pub expenses: Money,
    pub surplus: Money,
    #[serde(serialize_with = "money::json::pct::serialize")]
    pub income_change_pct: Option<Decimal>,
    #[serde(serialize_with = "money::json::pct::serialize")]
    pub expenses_change_pct: Option<Decimal>,
}

impl MonthView {
    pub fn new(this: Totals, last: Totals) -> MonthView {
        MonthView {
            income: this.income.into(),
            expenses: this.expenses.into(),
            surplus: this.surplus().into(),
            income_change_pct: change_pct(last.income, this.income),
            expenses_change_pct: change_pct(last.expenses, this.expenses),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CategorySpend {
    pub category_id: Option<String>,
    pub category: Option<CategoryRef>,
    pub amount: Money,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthBars {
    pub year: i32,
    pub month: u32,
    pub income: Money,
    pub expenses: Money,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Dashboard {
    pub year: i32,
    pub month: u32,
    pub currency: String,
    pub total_assets: Money,
    pub has_multi_currency: bool,
    pub cashflow: MonthView,
    pub reserve: MonthView,
    pub recurring: RecurringCosts,
    pub upcoming: Vec<Payment>,
    pub by_category: Vec<CategorySpend>,
    /// The twelve months ending with this one, cashflow view.
    pub months: Vec<MonthBars>,
}

/// A user's entries as the views see them, in the base currency.
#[derive(Default)]
pub struct Ledger {
    /// What the month views count: recurring items, and one-time expenses
    /// as sums per month, category and currency.
    pub items: Vec<Item>,
    /// One-time expenses dated today or later, one by one (for what is due next).
    pub planned: Vec<Item>,
    /// Each recurring item's and planned expense's payment, by id (dated
    /// at its start).
    pub payments: HashMap<String, Dated>,
    pub categories: HashMap<String, Category>,
    pub total_assets: Decimal,
    pub has_multi_currency: bool,
}

/// Loads every recurring expense and income and the one-time expenses
/// dated in `[from, to]`, converted to the user's base currency.
///
/// One-time expenses count as sums per month, category and currency
/// (converted once per sum, so rounding happens once); those dated today or
/// later are also loaded one by one, since "next payments" names them.
pub fn load_ledger(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    from: NaiveDate,
    to: NaiveDate,
    today: NaiveDate,
) -> Result<Ledger> {
    let base = user.base_currency.as_str();
    let convert = |amount: Decimal, currency: &str| rates.to_base(amount, currency, base);
    let categories: HashMap<String, Category> = table::all::<Category>(c, &user.id)?
        .into_iter()
        .map(|k| (k.id.clone(), k))
        .collect();
    let refs = categories
        .iter()
        .map(|(id, k)| (id.clone(), CategoryRef::from(k)))
        .collect();
    let build = Builder {
        base,
        rates,
        categories: &refs,
    };
    let mut items = Vec::new();
    let mut payments = HashMap::new();
    let mut multi = false;
    for e in expenses::list(c, &user.id, false)? {
        multi |= e.plan.currency != base;
        payments.insert(e.id.clone(), build.recurring_expense(&e));
        items.push(Item {
            amount: e.prices().map(|a| convert(a, &e.plan.currency)),
            schedule: e.plan.schedule(),
            kind: Kind::Expense,
            category_id: e.category_id,
            is_subscription: e.is_subscription,
            name: e.name,
            id: e.id,
        });
    }
    for i in table::all::<Income>(c, &user.id)? {
        multi |= i.plan.currency != base;
        payments.insert(i.id.clone(), build.recurring_income(&i));
        items.push(Item {
            amount: i.prices().map(|a| convert(a, &i.plan.currency)),
            schedule: i.plan.schedule(),
            kind: Kind::Income,
            category_id: None,
            is_subscription: false,
            name: i.name,
            id: i.id,
        });
    }
    // One-time expenses count as sums per month; only those still ahead
    // are loaded one by one, for "next payments".
    for (month, category_id, currency, sum) in
        daily_expenses::month_sums(c, &user.id, from, month_start(to))?
    {
        multi |= currency != base;
        items.push(Item {
            amount: convert(sum, &currency).into(),
            schedule: Schedule::once(month),
            kind: Kind::DailyExpense,
            category_id,
            is_subscription: false,
            name: String::new(),
            id: String::new(),
        });
    }
    let mut planned = Vec::new();
    if to >= today {
        let ahead = daily_expenses::Filter {
            from: Some(from.max(today)),
            to: Some(to),
            ..daily_expenses::Filter::default()
        };
        for d in daily_expenses::list(c, &user.id, &ahead)? {
            planned.push(Item {
                amount: convert(*d.entry.amount, &d.entry.currency).into(),
                schedule: Schedule::once(d.entry.date),
                kind: Kind::DailyExpense,
                category_id: d.entry.category_id.clone(),
                is_subscription: false,
                name: d.entry.name.clone(),
                id: d.id.clone(),
            });
            payments.insert(d.id.clone(), Dated::once(build.daily_expense(d)));
        }
    }
    multi = multi || daily_expenses::any_other_currency(c, &user.id, base)?;
    let mut total_assets = Decimal::ZERO;
    for a in table::all::<Account>(c, &user.id)? {
        multi |= a.currency != base;
        total_assets += convert(a.balance.0, &a.currency);
    }
    Ok(Ledger {
        items,
        planned,
        payments,
        categories,
        total_assets,
        has_multi_currency: multi,
    })
}

impl Ledger {
    /// The payment of `item` on `date`; `None` for the monthly sums of
    /// one-time expenses, which are no single payment.
    pub fn payment(&self, item: &Item, date: NaiveDate) -> Option<Payment> {
        self.payments.get(&item.id).map(|p| p.on(date))
    }
}

/// The dashboard of `user` for the month of `first`, with `today` for
/// what is due next.
pub fn build(ledger: &Ledger, user: &User, first: NaiveDate, today: NaiveDate) -> Dashboard {
    let first = add_months(first, 0);
    let items = &ledger.items;
    let last_month = add_months(first, -1);
    let cash = views::monthly_totals(items, add_months(first, -11), 12, View::Cashflow);
    let reserve = views::monthly_totals(items, last_month, 2, View::Reserve);
    let recurring = views::recurring_costs(items, first);
    let due_items = items
        .iter()
        .filter(|i| i.kind != Kind::DailyExpense)
        .chain(ledger.planned.iter());
    let upcoming = views::upcoming(due_items, today, today + Duration::days(UPCOMING_DAYS - 1))
        .into_iter()
        .take(UPCOMING_MAX)
        .filter_map(|due| ledger.payment(due.item, due.date))
        .collect();
    let by_category = views::expenses_by_category(items, first)
        .into_iter()
        .map(|(id, amount)| CategorySpend {
            category: id
                .as_ref()
                .and_then(|i| ledger.categories.get(i))
                .map(CategoryRef::from),
            category_id: id,
            amount: amount.into(),
        })
        .collect();
    let months = cash
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let m = add_months(first, i as i32 - 11);
            MonthBars {
                year: m.year(),
                month: m.month(),
                income: t.income.into(),
                expenses: t.expenses.into(),
            }
        })
        .collect();
    Dashboard {
        year: first.year(),
        month: first.month(),
        currency: user.base_currency.clone(),
        total_assets: ledger.total_assets.into(),
        has_multi_currency: ledger.has_multi_currency,
        cashflow: MonthView::new(cash[11], cash[10]),
        reserve: MonthView::new(reserve[1], reserve[0]),
        recurring,
        upcoming,
        by_category,
        months,
    }
}

/// The dashboard of `user` for the month of `first`, with `today` for what
/// is due next.
pub fn dashboard(
    c: &rusqlite::Connection,
    user: &User,
    rates: &Rates,
    first: NaiveDate,
    today: NaiveDate,
) -> Result<Dashboard> {
    let from = add_months(first, -11);
    // Far enough ahead for "next payments" from today.
    let to = month_end(first).max(today + Duration::days(UPCOMING_DAYS));
    let ledger = load_ledger(c, user, rates, from, to, today)?;
    Ok(build(&ledger, user, first, today))
}
