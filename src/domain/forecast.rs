//! Looking ahead, month by month, in the base currency.
//!
//! - An **account forecast** uses the cashflow view (what is due in each
//!   month) of the entries booked on one account, transfers in and out
//!   included; savings and ETF accounts carry a cumulative balance, checking
//!   accounts none (their balance is whatever the bank says today).
//! - The **summary forecast** uses the reserve view of all entries, so the
//!   months are comparable; its balance is the cumulative surplus.

use super::prices::Prices;
use super::recurrence::{add_months, month_end, Schedule};
use super::views::{monthly_totals, Item, View};
use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

/// How an entry moves money on an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Income,
    Expense,
    TransferIn,
    TransferOut,
}

/// An entry of one account, its amount in the base currency.
#[derive(Clone, Debug)]
pub struct AccountEntry {
    pub flow: Flow,
    pub amount: Prices,
    pub schedule: Schedule,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccountMonth {
    pub year: i32,
    pub month: u32,
    pub income: Decimal,
    pub expenses: Decimal,
    pub transfers_in: Decimal,
    pub transfers_out: Decimal,
    /// income − expenses + transfers in − transfers out.
    pub net: Decimal,
    /// Cumulative balance at the month's end; `None` for checking accounts.
    pub balance: Option<Decimal>,
}

/// `months` months from the month of `first`. With `start_balance` (savings,
/// ETF), each month's balance is the previous one plus its net.
pub fn account_forecast(
    entries: &[AccountEntry],
    first: NaiveDate,
    months: usize,
    start_balance: Option<Decimal>,
) -> Vec<AccountMonth> {
    let first = add_months(first, 0);
    let mut out: Vec<AccountMonth> = (0..months)
        .map(|i| {
            let m = add_months(first, i as i32);
            AccountMonth {
                year: m.year(),
                month: m.month(),
                ..AccountMonth::default()
            }
        })
        .collect();
    if months == 0 {
        return out;
    }
    let last = month_end(add_months(first, months as i32 - 1));
    for e in entries {
        for d in e.schedule.due_dates(first, last) {
            let i =
                ((d.year() - first.year()) * 12 + d.month() as i32 - first.month() as i32) as usize;
            let (m, amount) = (&mut out[i], e.amount.on(d));
            match e.flow {
                Flow::Income => m.income += amount,
                Flow::Expense => m.expenses += amount,
                Flow::TransferIn => m.transfers_in += amount,
                Flow::TransferOut => m.transfers_out += amount,
            }
        }
    }
    let mut balance = start_balance;
    for m in &mut out {
        m.net = m.income - m.expenses + m.transfers_in - m.transfers_out;
        balance = balance.map(|b| b + m.net);
        m.balance = balance;
    }
    out
}

/// The months of one-time expenses that estimate everyday spending: the
/// last three full months.
pub const EVERYDAY_MONTHS: i32 = 3;

/// Everyday spending expected per month from the one-time expenses of the
/// last full months, oldest first: the median of the months kept (the mean
/// of two), so one big purchase does not count for every month ahead. The
/// months before the first one with any are left out (before the person
/// started keeping them).
pub fn everyday_per_month(recent: &[Decimal]) -> Decimal {
    let mut kept: Vec<Decimal> = recent.iter().copied().skip_while(|m| m.is_zero()).collect();
    kept.sort();
    let n = kept.len();
    let median = match n {
        0 => return Decimal::ZERO,
        _ if n % 2 == 1 => kept[n / 2],
        _ => (kept[n / 2 - 1] + kept[n / 2]) / Decimal::TWO,
    };
    super::money::round(median)
}

/// A checking account's everyday spending a month, where budgets may stand
/// in for what was learned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Everyday {
    /// What the expected balance takes off each month.
    pub total: Decimal,
    /// The budgets counted instead of the learned spending: (category id,
    /// the month's budget).
    pub budgeted: Vec<(String, Decimal)>,
    /// The learned spending of the other categories ([`everyday_per_month`]).
    pub usual: Decimal,
}

/// Everyday spending of one checking account from its one-time expenses of
/// the last full months by category (`spent[month index]`, oldest first, in
/// the base currency). A category with a budget this month counts its
/// budget instead of what it used to cost when this account paid at least
/// half of the category's one-time spending over all accounts in those
/// months (`all`); the rest counts as [`everyday_per_month`] of their
/// monthly sums. Without budgets that apply it is the learned spending alone.
pub fn everyday(
    spent: &[(Option<String>, Vec<Decimal>)],
    all: &std::collections::HashMap<String, Decimal>,
    budgets: &[(String, Decimal)],
    months: usize,
) -> Everyday {
    let here = |k: &str| -> Decimal {
        spent
            .iter()
            .filter(|(c, _)| c.as_deref() == Some(k))
            .flat_map(|(_, m)| m.iter().copied())
            .sum()
    };
    let budgeted: Vec<(String, Decimal)> = budgets
        .iter()
        .filter(|(k, _)| {
            let total = all.get(k).copied().unwrap_or_default();
            total > Decimal::ZERO && here(k) * Decimal::TWO >= total
        })
        .cloned()
        .collect();
    let mut rest = vec![Decimal::ZERO; months];
    for (category, per_month) in spent {
        if category
            .as_deref()
            .is_some_and(|k| budgeted.iter().any(|(b, _)| b == k))
        {
            continue;
        }
        for (slot, m) in rest.iter_mut().zip(per_month) {
            *slot += m;
        }
    }
    let usual = everyday_per_month(&rest);
    Everyday {
        total: budgeted.iter().map(|(_, a)| *a).sum::<Decimal>() + usual,
        budgeted,
        usual,
    }
}

/// What the entries move on the account from `from` through `to`.
pub fn net_between(entries: &[AccountEntry], from: NaiveDate, to: NaiveDate) -> Decimal {
    due_between(entries, from, to).1
}

/// How many payments the entries have due from `from` through `to`, and
/// what they move on the account.
pub fn due_between(entries: &[AccountEntry], from: NaiveDate, to: NaiveDate) -> (usize, Decimal) {
    let (mut count, mut net) = (0, Decimal::ZERO);
    for e in entries {
        for d in e.schedule.due_dates(from, to) {
            let a = e.amount.on(d);
            count += 1;
            net += match e.flow {
                Flow::Income | Flow::TransferIn => a,
                Flow::Expense | Flow::TransferOut => -a,
            };
        }
    }
    (count, net)
}

/// A checking account's expected balance at each month's end: today's
/// balance, plus what is still due this month (`rest_of_month`), plus each
/// month's net (`nets`), less `everyday` spending a month (and its share
/// of the days left this month, `left_share`).
pub fn expected_balances(
    today_balance: Decimal,
    rest_of_month: Decimal,
    left_share: Decimal,
    nets: &[Decimal],
    everyday: Decimal,
) -> Vec<Decimal> {
    let mut balance = today_balance + rest_of_month - super::money::round(everyday * left_share);
    nets.iter()
        .map(|net| {
            balance += net - everyday;
            balance
        })
        .collect()
}

/// The lowest balance from today through `last`, and its day: today's
/// `balance`, then day by day each payment due (what goes out before what
/// comes in on the same day) and `everyday` spending a month spread evenly
/// over each month's days. A month's low comes between its payments, not at
/// its end: rent on the 1st, salary on the 27th.
pub fn lowest_daily(
    balance: Decimal,
    entries: &[AccountEntry],
    today: NaiveDate,
    last: NaiveDate,
    everyday: Decimal,
) -> (NaiveDate, Decimal) {
    let mut lowest = (today, balance);
    let Some(tomorrow) = today.succ_opt() else {
        return lowest;
    };
    let mut by_day: std::collections::BTreeMap<NaiveDate, (Decimal, Decimal)> =
        std::collections::BTreeMap::new();
    for e in entries {
        for d in e.schedule.due_dates(tomorrow, last) {
            let (out, into) = by_day.entry(d).or_default();
            let a = e.amount.on(d);
            match e.flow {
                Flow::Expense | Flow::TransferOut => *out += a,
                Flow::Income | Flow::TransferIn => *into += a,
            }
        }
    }
    let mut balance = balance;
    let mut day = tomorrow;
    while day <= last {
        let days_in_month = Decimal::from(month_end(day).day());
        let (out, into) = by_day.get(&day).copied().unwrap_or_default();
        balance -= everyday / days_in_month + out;
        if balance < lowest.1 {
            lowest = (day, balance);
        }
        balance += into;
        let Some(next) = day.succ_opt() else { break };
        day = next;
    }
    (lowest.0, super::money::round(lowest.1))
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummaryMonth {
    pub year: i32,
    pub month: u32,
    pub income: Decimal,
    pub expenses: Decimal,
    /// Cumulative surplus from the first month through this one.
    pub balance: Decimal,
}

/// The reserve view of `months` months from the month of `first`.
pub fn summary_forecast(items: &[Item], first: NaiveDate, months: usize) -> Vec<SummaryMonth> {
    let totals = monthly_totals(items, first, months, View::Reserve);
    let mut balance = Decimal::ZERO;
    totals
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let m = add_months(first, i as i32);
            balance += t.surplus();
            SummaryMonth {
                year: m.year(),
                month: m.month(),
                income: t.income,
                expenses: t.expenses,
                balance,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::recurrence::Frequency;
    use crate::domain::views::Kind;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }
    fn dec(s: &str) -> Decimal {
        Decimal::from_str_exact(s).unwrap()
    }
    fn entry(flow: Flow, amount: &str, f: Frequency, start: &str) -> AccountEntry {
        AccountEntry {
            flow,
            amount: dec(amount).into(),
            schedule: Schedule::new(f, d(start), None).unwrap(),
        }
    }

    #[test]
    fn a_savings_account_accumulates_its_net_month_by_month() {
        let entries = vec![
            entry(Flow::TransferIn, "300", Frequency::Monthly, "2025-01-31"),
            entry(Flow::Income, "12", Frequency::Quarterly, "2025-03-31"),
            entry(Flow::TransferOut, "1000", Frequency::Yearly, "2025-05-15"),
        ];
        let f = account_forecast(&entries, d("2025-02-01"), 4, Some(dec("5000")));
        let got: Vec<(u32, Decimal, Option<Decimal>)> =
            f.iter().map(|m| (m.month, m.net, m.balance)).collect();
        assert_eq!(
            got,
            vec![
                (2, dec("300"), Some(dec("5300"))),
                (3, dec("312"), Some(dec("5612"))),
                (4, dec("300"), Some(dec("5912"))),
                (5, dec("-700"), Some(dec("5212"))),
            ]
        );
        assert_eq!(f[3].transfers_out, dec("1000"));
        assert_eq!(f[1].income, dec("12"));
    }

    #[test]
    fn a_checking_account_has_no_balance_line() {
        let entries = vec![
            entry(Flow::Income, "3000", Frequency::Monthly, "2025-01-27"),
            entry(Flow::Expense, "950", Frequency::Monthly, "2025-01-01"),
        ];
        let f = account_forecast(&entries, d("2025-02-10"), 2, None);
        assert_eq!(f[0].net, dec("2050"));
        assert!(f.iter().all(|m| m.balance.is_none()));
        assert_eq!((f[0].year, f[0].month), (2025, 2));
    }

    #[test]
    fn everyday_spending_is_the_mean_of_the_months_kept() {
        assert_eq!(everyday_per_month(&[]), Decimal::ZERO);
        assert_eq!(everyday_per_month(&[dec("0"), dec("0")]), Decimal::ZERO);
        assert_eq!(
            everyday_per_month(&[dec("600"), dec("650"), dec("640")]),
            dec("640")
        );
        // A month with a laptop in it does not count for every month.
        assert_eq!(
            everyday_per_month(&[dec("600"), dec("2650"), dec("640")]),
            dec("640")
        );
        // Before the first month with any, nothing was kept yet.
        assert_eq!(
            everyday_per_month(&[dec("0"), dec("100"), dec("0")]),
            dec("50")
        );
        assert_eq!(
            everyday_per_month(&[dec("0"), dec("10.01"), dec("10.02")]),
            dec("10.02"),
            "the mean of two, rounded half away from zero"
        );
    }

    #[test]
    fn a_checking_account_expects_its_balance_with_everyday_spending() {
        let entries = vec![
            entry(Flow::Income, "3000", Frequency::Monthly, "2025-01-27"),
            entry(Flow::Expense, "950", Frequency::Monthly, "2025-01-01"),
            entry(Flow::TransferOut, "300", Frequency::Monthly, "2025-01-28"),
        ];
        // On 20 Jan: salary and transfer still to come this month.
        let rest = net_between(&entries, d("2025-01-21"), d("2025-01-31"));
        assert_eq!(rest, dec("2700"));
        assert_eq!(
            due_between(&entries, d("2025-01-01"), d("2025-01-31")),
            (3, dec("1750"))
        );
        let nets: Vec<Decimal> = account_forecast(&entries, d("2025-02-01"), 2, None)
            .iter()
            .map(|m| m.net)
            .collect();
        let b = expected_balances(dec("500"), rest, dec("0.5"), &nets, dec("600"));
        // 500 + 2700 − 300 (half a month), then + 1750 − 600 each month.
        assert_eq!(b, vec![dec("4050"), dec("5200")]);
    }

    #[test]
    fn the_lowest_balance_is_found_between_payments_not_at_month_ends() {
        let entries = vec![
            entry(Flow::Expense, "950", Frequency::Monthly, "2025-01-01"),
            entry(Flow::Income, "1000", Frequency::Monthly, "2025-01-27"),
        ];
        // On 20 Jan with 100: the salary comes first, then rent on 1 Feb.
        let (day, low) = lowest_daily(
            dec("100"),
            &entries,
            d("2025-01-20"),
            d("2025-03-31"),
            Decimal::ZERO,
        );
        assert_eq!(
            (day, low),
            (d("2025-01-20"), dec("100")),
            "today is the lowest"
        );
        let (day, low) = lowest_daily(
            dec("-10"),
            &entries,
            d("2025-01-30"),
            d("2025-03-31"),
            Decimal::ZERO,
        );
        // 1 Feb: −10 − 950, before any salary; month-ends never show it.
        assert_eq!((day, low), (d("2025-02-01"), dec("-960")));
        // Everyday spending of 310 a month: 10 a day in January (31 days).
        let (day, low) = lowest_daily(dec("0"), &[], d("2025-01-29"), d("2025-01-31"), dec("310"));
        assert_eq!((day, low), (d("2025-01-31"), dec("-20")));
    }

    #[test]
    fn the_summary_forecast_accumulates_the_reserve_view() {
        let items = vec![
            Item {
                id: "i".into(),
                kind: Kind::Income,
                name: "Salary".into(),
                amount: dec("3000").into(),
                schedule: Schedule::new(Frequency::Monthly, d("2025-01-31"), None).unwrap(),
                category_id: None,
                is_subscription: false,
            },
            Item {
                id: "e".into(),
                kind: Kind::Expense,
                name: "Insurance".into(),
                amount: dec("1200").into(),
                schedule: Schedule::new(Frequency::Yearly, d("2025-03-01"), None).unwrap(),
                category_id: None,
                is_subscription: false,
            },
        ];
        let f = summary_forecast(&items, d("2025-03-01"), 3);
        assert_eq!(f[0].expenses, dec("100"), "yearly 1200 spread");
        assert_eq!(f[2].balance, dec("8700"));
    }

    #[test]
    fn budgets_stand_in_for_the_categories_this_account_pays() {
        let food = Some("food".to_string());
        let fun = Some("fun".to_string());
        let spent = vec![
            (food.clone(), vec![dec("300"), dec("320"), dec("340")]),
            (fun.clone(), vec![dec("10"), dec("0"), dec("20")]),
            (None, vec![dec("50"), dec("500"), dec("60")]),
        ];
        let all: std::collections::HashMap<String, Decimal> = [
            ("food".to_string(), dec("960")),
            ("fun".to_string(), dec("100")),
        ]
        .into();
        // Without budgets: the median of the monthly totals.
        let learned = everyday(&spent, &all, &[], 3);
        assert_eq!(learned.total, dec("420"));
        assert_eq!(learned.budgeted, vec![]);
        // Food's budget counts instead of its past; fun is paid mostly from
        // another account, so its budget does not count here.
        let budgets = [
            ("food".to_string(), dec("400")),
            ("fun".to_string(), dec("80")),
        ];
        let planned = everyday(&spent, &all, &budgets, 3);
        assert_eq!(planned.budgeted, vec![("food".to_string(), dec("400"))]);
        // The rest: 60, 500, 80 → 80.
        assert_eq!(planned.usual, dec("80"));
        assert_eq!(planned.total, dec("480"));
        // A budget of a category without any spending yet is not this account's.
        let none = everyday(&spent, &all, &[("new".to_string(), dec("50"))], 3);
        assert_eq!(none, learned);
    }
}
