//! The two ways of looking at a month (`docs/actions.md`, Dashboard), in the base
//! currency:
//! - the **cashflow view** counts what is actually due in the month;
//! - the **reserve view** spreads recurring items by their monthly
//!   equivalent (a yearly 1200 is 100 every month), so a month with the yearly
//!   insurance does not look like a disaster and the others not like a windfall.
//!
//! One-time expenses and one-off incomes count in their month in both views.

use super::prices::Prices;
use super::recurrence::{add_months, month_end, monthly_equivalent, Frequency, Schedule};
use crate::domain::money::Money;
use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A recurring expense (subscriptions included).
    Expense,
    /// A one-time ("daily") expense.
    DailyExpense,
    Income,
}

/// An entry reduced to what the views need; `amount` already in the base
/// currency, each due date paid at the amount of its day.
#[derive(Clone, Debug)]
pub struct Item {
    pub id: String,
    pub kind: Kind,
    pub name: String,
    pub amount: Prices,
    pub schedule: Schedule,
    pub category_id: Option<String>,
    pub is_subscription: bool,
}

impl Item {
    fn is_expense(&self) -> bool {
        matches!(self.kind, Kind::Expense | Kind::DailyExpense)
    }

    /// How much of this item the month starting `first` carries in the
    /// reserve view: the monthly equivalent of the amount of the month's
    /// first day.
    fn reserve_amount(&self, first: NaiveDate) -> Decimal {
        match self.schedule.frequency {
            Frequency::Once => {
                if self.schedule.start >= first && self.schedule.start <= month_end(first) {
                    self.amount.on(self.schedule.start)
                } else {
                    Decimal::ZERO
                }
            }
            f if self.schedule.active_in_month(first) => {
                monthly_equivalent(self.amount.on(first), f)
            }
            _ => Decimal::ZERO,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub income: Decimal,
    pub expenses: Decimal,
}

impl Totals {
    pub fn surplus(&self) -> Decimal {
        self.income - self.expenses
    }

    fn add(&mut self, item: &Item, amount: Decimal) {
        if item.is_expense() {
            self.expenses += amount;
        } else {
            self.income += amount;
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Cashflow,
    Reserve,
}

/// Totals of `months` consecutive months from the month of `first`, in one
/// pass over the items.
pub fn monthly_totals(items: &[Item], first: NaiveDate, months: usize, view: View) -> Vec<Totals> {
    let first = add_months(first, 0);
    let mut out = vec![Totals::default(); months];
    if months == 0 {
        return out;
    }
    let last = month_end(add_months(first, months as i32 - 1));
    let index = |d: NaiveDate| -> usize {
        ((d.year() - first.year()) * 12 + d.month() as i32 - first.month() as i32) as usize
    };
    for item in items {
        match (view, item.schedule.frequency) {
            (View::Cashflow, _) | (View::Reserve, Frequency::Once) => {
                if item.schedule.frequency == Frequency::Once {
                    let d = item.schedule.start;
                    if d >= first && d <= last {
                        out[index(d)].add(item, item.amount.on(d));
                    }
                } else {
                    for d in item.schedule.due_dates(first, last) {
                        out[index(d)].add(item, item.amount.on(d));
                    }
                }
            }
            (View::Reserve, _) => {
                for (i, slot) in out.iter_mut().enumerate() {
                    let amount = item.reserve_amount(add_months(first, i as i32));
                    if !amount.is_zero() {
                        slot.add(item, amount);
                    }
                }
            }
        }
    }
    out
}

/// Totals of the month of `first`.
pub fn month_totals(items: &[Item], first: NaiveDate, view: View) -> Totals {
    monthly_totals(items, first, 1, view)[0]
}

/// Expenses of the month per category (cashflow view), largest first;
/// `None` is "uncategorised".
pub fn expenses_by_category(items: &[Item], first: NaiveDate) -> Vec<(Option<String>, Decimal)> {
    let sums = expenses_by_category_months(items, first, 1)
        .pop()
        .unwrap_or_default();
    let mut out: Vec<_> = sums.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// [`expenses_by_category`] of `months` months from the month of `first`
/// on, oldest first, unsorted: each item's due dates are found once for the
/// whole span, not once a month.
pub fn expenses_by_category_months(
    items: &[Item],
    first: NaiveDate,
    months: usize,
) -> Vec<HashMap<Option<String>, Decimal>> {
    let first = add_months(first, 0);
    let mut out: Vec<HashMap<Option<String>, Decimal>> = vec![HashMap::new(); months];
    if months == 0 {
        return out;
    }
    let last = month_end(add_months(first, months as i32 - 1));
    let index = |d: NaiveDate| {
        ((d.year() - first.year()) * 12 + d.month() as i32 - first.month() as i32) as usize
    };
    for item in items.iter().filter(|i| i.is_expense()) {
        let due = if item.schedule.frequency == Frequency::Once {
            let d = item.schedule.start;
            if d >= first && d <= last {
                vec![d]
            } else {
                vec![]
            }
        } else {
            item.schedule.due_dates(first, last)
        };
        for d in due {
            *out[index(d)].entry(item.category_id.clone()).or_default() += item.amount.on(d);
        }
    }
    out
}

/// The smoothed monthly cost of the recurring expenses active in a month,
/// fixed costs and subscriptions apart.
#[derive(serde::Serialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RecurringCosts {
    pub fixed_costs_monthly: Money,
    pub fixed_costs_count: usize,
    pub subscriptions_monthly: Money,
    pub subscriptions_count: usize,
}

/// The recurring costs of the month of `first`.
pub fn recurring_costs(items: &[Item], first: NaiveDate) -> RecurringCosts {
    let first = add_months(first, 0);
    let mut r = RecurringCosts::default();
    for item in items.iter().filter(|i| i.kind == Kind::Expense) {
        if !item.schedule.active_in_month(first) {
            continue;
        }
        let m = monthly_equivalent(item.amount.on(first), item.schedule.frequency);
        if item.is_subscription {
            r.subscriptions_monthly += m;
            r.subscriptions_count += 1;
        } else {
            r.fixed_costs_monthly += m;
            r.fixed_costs_count += 1;
        }
    }
    r
}

/// A due payment: the item and one of its due dates.
#[derive(Clone, Debug)]
pub struct Due<'a> {
    pub item: &'a Item,
    pub date: NaiveDate,
}

/// What is due from `today` through `to`: the next due date of each
/// recurring expense (today's included: it may not have gone out yet) and
/// the one-time expenses planned after today (incomes excluded), soonest
/// first. A one-time expense dated today or earlier is a purchase already
/// made, never a next payment.
pub fn upcoming<'a>(
    items: impl IntoIterator<Item = &'a Item>,
    today: NaiveDate,
    to: NaiveDate,
) -> Vec<Due<'a>> {
    let mut out: Vec<Due<'a>> = items
        .into_iter()
        .filter(|i| i.is_expense())
        .filter_map(|item| {
            let date = item.schedule.next_due(today)?;
            let made = item.kind == Kind::DailyExpense && date <= today;
            (date <= to && !made).then_some(Due { item, date })
        })
        .collect();
    out.sort_by(|a, b| {
        a.date
            .cmp(&b.date)
            .then_with(|| a.item.name.cmp(&b.item.name))
            .then_with(|| a.item.id.cmp(&b.item.id))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }
    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }
    fn item(kind: Kind, amount: &str, f: Frequency, start: &str, end: Option<&str>) -> Item {
        Item {
            id: format!("{kind:?}-{amount}-{start}"),
            kind,
            name: format!("{kind:?} {amount}"),
            amount: dec(amount).into(),
            schedule: Schedule::new(f, d(start), end.map(d)).unwrap(),
            category_id: None,
            is_subscription: false,
        }
    }

    /// A household: salary, rent, yearly insurance in March, a weekly
    /// market, a quarterly fee, a one-time purchase, a bonus.
    fn household() -> Vec<Item> {
        vec![
            item(Kind::Income, "3000", Frequency::Monthly, "2025-01-31", None),
            item(Kind::Income, "500", Frequency::Once, "2025-03-15", None),
            item(Kind::Expense, "950", Frequency::Monthly, "2025-01-01", None),
            item(Kind::Expense, "600", Frequency::Yearly, "2025-03-10", None),
            item(Kind::Expense, "10", Frequency::Weekly, "2025-03-03", None),
            item(
                Kind::Expense,
                "30",
                Frequency::Quarterly,
                "2025-02-28",
                Some("2025-08-31"),
            ),
            item(
                Kind::DailyExpense,
                "129.99",
                Frequency::Once,
                "2025-03-20",
                None,
            ),
        ]
    }

    #[test]
    fn cashflow_counts_what_is_due_in_the_month() {
        let items = household();
        let march = month_totals(&items, d("2025-03-01"), View::Cashflow);
        // 3000 + 500 bonus; 950 + 600 + 5 Mondays × 10 + 129.99 (quarterly fee: Feb, May)
        assert_eq!(march.income, dec("3500"));
        assert_eq!(march.expenses, dec("1729.99"));
        assert_eq!(march.surplus(), dec("1770.01"));
        let feb = month_totals(&items, d("2025-02-01"), View::Cashflow);
        // 3000 on 28 Feb (clamped from the 31st); 950 + 30
        assert_eq!(feb.income, dec("3000"));
        assert_eq!(feb.expenses, dec("980"));
    }

    #[test]
    fn reserve_spreads_recurring_items_by_their_monthly_equivalent() {
        let items = household();
        let march = month_totals(&items, d("2025-03-01"), View::Reserve);
        assert_eq!(march.income, dec("3500"));
        // 950 + 50 (600/12) + 43.33 (weekly 10) + 10 (quarterly 30) + 129.99
        assert_eq!(march.expenses, dec("1183.32"));
        // Before the yearly item and the weekly market start: neither counts.
        let feb = month_totals(&items, d("2025-02-01"), View::Reserve);
        assert_eq!(feb.expenses, dec("960"));
        // After the quarterly fee ended (31 Aug) it no longer counts.
        let sep = month_totals(&items, d("2025-09-01"), View::Reserve);
        assert_eq!(sep.expenses, dec("1043.33"));
    }

    #[test]
    fn twelve_months_in_one_pass_match_month_by_month() {
        let items = household();
        let all = monthly_totals(&items, d("2025-01-01"), 12, View::Cashflow);
        for (i, t) in all.iter().enumerate() {
            assert_eq!(
                *t,
                month_totals(
                    &items,
                    add_months(d("2025-01-01"), i as i32),
                    View::Cashflow
                )
            );
        }
        let all = monthly_totals(&items, d("2025-01-01"), 12, View::Reserve);
        for (i, t) in all.iter().enumerate() {
            assert_eq!(
                *t,
                month_totals(&items, add_months(d("2025-01-01"), i as i32), View::Reserve)
            );
        }
    }

    #[test]
    fn categories_sum_the_months_expenses_largest_first() {
        let mut items = household();
        items[2].category_id = Some("rent".into());
        items[4].category_id = Some("food".into());
        items[6].category_id = Some("food".into());
        let by = expenses_by_category(&items, d("2025-03-01"));
        assert_eq!(by[0], (Some("rent".into()), dec("950")));
        assert_eq!(by[1], (None, dec("600")));
        assert_eq!(by[2], (Some("food".into()), dec("179.99")));
    }

    #[test]
    fn recurring_costs_split_fixed_costs_and_subscriptions() {
        let mut items = household();
        items.push(Item {
            is_subscription: true,
            ..item(
                Kind::Expense,
                "12.99",
                Frequency::Monthly,
                "2024-06-15",
                None,
            )
        });
        let r = recurring_costs(&items, d("2025-03-01"));
        assert_eq!(
            (r.fixed_costs_monthly.0, r.fixed_costs_count),
            (dec("1053.33"), 4)
        );
        assert_eq!(
            (r.subscriptions_monthly.0, r.subscriptions_count),
            (dec("12.99"), 1)
        );
    }

    #[test]
    fn upcoming_lists_the_next_due_date_of_each_expense_without_incomes() {
        let items = household();
        let due = upcoming(&items, d("2025-03-08"), d("2025-03-14"));
        let got: Vec<(String, NaiveDate)> =
            due.iter().map(|u| (u.item.name.clone(), u.date)).collect();
        assert_eq!(
            got,
            vec![
                ("Expense 10".to_string(), d("2025-03-10")),
                ("Expense 600".to_string(), d("2025-03-10")),
            ]
        );
    }

    #[test]
    fn a_one_time_expense_of_today_is_made_and_no_next_payment() {
        let today = d("2026-11-27");
        let items = vec![
            item(
                Kind::DailyExpense,
                "4.20",
                Frequency::Once,
                "2026-11-27",
                None,
            ),
            item(
                Kind::DailyExpense,
                "19.99",
                Frequency::Once,
                "2026-11-28",
                None,
            ),
            item(Kind::Expense, "950", Frequency::Monthly, "2026-01-27", None),
            item(Kind::Income, "300", Frequency::Once, "2026-06-15", None),
            item(Kind::Income, "3000", Frequency::Monthly, "2026-01-27", None),
        ];
        let due = upcoming(&items, today, d("2026-12-26"));
        let got: Vec<(&str, NaiveDate)> =
            due.iter().map(|u| (u.item.name.as_str(), u.date)).collect();
        // The rent due today may still go out; the coffee bought today is
        // paid; no income, and nothing from the past.
        assert_eq!(
            got,
            vec![
                ("Expense 950", d("2026-11-27")),
                ("DailyExpense 19.99", d("2026-11-28")),
            ]
        );
    }
}
