//! Insights: what deserves a person's attention, found from facts about
//! their money. Each finding is a [`Finding`] carrying its facts typed; it
//! is stored as the insight's language-independent `metadata`, with a German
//! title and message (`docs/planning.md`) made, like the English ones the UI
//! shows, in `i18n::insights`.
//!
//! The five kinds and their rules:
//! - `spending_anomaly`: a category's one-time spending this month is at
//!   least 1.5× its average of the three months before (and at least 50
//!   more); recurring payments due in a month (a yearly subscription) are
//!   planned and never unusual, so they count on neither side;
//! - `budget_warning`: the month's expenses exceed its income, or a
//!   category's spending is near its budget (80 %, with at least five days
//!   of the month left: `warning`) or over it (`critical`), once per
//!   category and month;
//! - `saving_opportunity`: two or more running subscriptions in one category,
//!   or a subscription costing more than twice the others of its category;
//! - `subscription_alert`: a subscription falls due within three days, or
//!   its price changed in the last 30 days, or a contract's last day to
//!   cancel is within 14 days;
//! - `trend_info`: expenses rose (or fell) in each of the last three months,
//!   by at least 5 % each time.

use super::money;
use super::recurrence::{add_months, month_end, month_start};
use chrono::{Datelike, Duration, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A category's spending: this month and the three before (oldest first).
#[derive(Clone, Debug)]
pub struct CategoryFacts {
    pub id: String,
    pub name: String,
    /// This month's budget, if the category has one: what is available
    /// (the budget with what rollover carried) and its status.
    pub budget: Option<(Decimal, super::budgets::Status)>,
    /// `[m-3, m-2, m-1, this month]`.
    pub spent: [Decimal; 4],
    /// Of `spent`, what recurring expenses (subscriptions included) due in
    /// each month make up: planned, so never unusual spending.
    pub recurring: [Decimal; 4],
}

impl CategoryFacts {
    /// The one-time spending of month `i` (`spent` less the recurring
    /// payments due in it).
    fn one_time(&self, i: usize) -> Decimal {
        (self.spent[i] - self.recurring[i]).max(Decimal::ZERO)
    }
}

#[derive(Clone, Debug)]
pub struct SubscriptionFacts {
    pub id: String,
    pub name: String,
    pub category_id: Option<String>,
    /// Monthly equivalent in the base currency.
    pub monthly: Decimal,
    /// Amount per due date in the base currency.
    pub amount: Decimal,
    pub next_due: Option<NaiveDate>,
    /// The amount (base currency) before its last change, and the day of it.
    pub previous_amount: Option<(Decimal, NaiveDate)>,
}

/// A contract's deadline: the item, and its current term and deadline.
#[derive(Clone, Debug)]
pub struct ContractFacts {
    pub id: String,
    pub name: String,
    pub deadline: super::contracts::Deadline,
}

#[derive(Clone, Debug)]
pub struct Facts {
    pub today: NaiveDate,
    pub currency: String,
    /// Cashflow totals `[m-3, m-2, m-1, this month]`.
    pub income: [Decimal; 4],
    pub expenses: [Decimal; 4],
    pub categories: Vec<CategoryFacts>,
    pub subscriptions: Vec<SubscriptionFacts>,
    /// The deadlines of contracts not cancelled.
    pub contracts: Vec<ContractFacts>,
}

/// Up or down: a price change or a trend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Up,
    Down,
}

/// What was found, with its facts. It serialises to the insight's stored
/// `metadata`, which the REST API and `listInsights` return as they are
/// (`docs/planning.md`, `docs/api.md`): the JSON carries no variant name
/// (the kind is the `type` column) and each variant has keys no other has.
/// Fields are declared in the alphabetical order of their keys, the order
/// the metadata has always been stored in; amounts are decimal strings with
/// two decimals, percentages whole-number strings, days `YYYY-MM-DD`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, rename_all_fields = "camelCase")]
pub enum Finding {
    /// `spending_anomaly`: a category's one-time spending this month
    /// against its average of the three months before; `percent` is how
    /// much more.
    SpendingAnomaly {
        #[serde(with = "amount")]
        amount: Decimal,
        #[serde(with = "amount")]
        average: Decimal,
        category_id: String,
        category_name: String,
        currency: String,
        #[serde(with = "whole")]
        percent: Decimal,
    },
    /// `budget_warning`: a category's spending this month near or above
    /// its budget; `limit` is what is available.
    OverLimit {
        #[serde(with = "amount")]
        amount: Decimal,
        category_id: String,
        category_name: String,
        currency: String,
        #[serde(with = "amount")]
        limit: Decimal,
    },
    /// `budget_warning`: the month's expenses above its income.
    OverIncome {
        currency: String,
        #[serde(with = "amount")]
        expenses: Decimal,
        #[serde(with = "amount")]
        income: Decimal,
        #[serde(with = "amount")]
        shortfall: Decimal,
    },
    /// `saving_opportunity`: `count` running subscriptions in one category,
    /// by name, costing `monthly_total` a month together.
    DuplicateSubscriptions {
        category_id: String,
        category_name: String,
        count: usize,
        currency: String,
        #[serde(with = "amount")]
        monthly_total: Decimal,
        subscriptions: Vec<String>,
    },
    /// `saving_opportunity`: a subscription costing more than twice the
    /// average of the others in its category.
    ExpensiveSubscription {
        category_id: String,
        category_name: String,
        currency: String,
        expense_id: String,
        #[serde(with = "amount")]
        monthly: Decimal,
        name: String,
        #[serde(with = "amount")]
        others_average: Decimal,
    },
    /// `subscription_alert`: a subscription falls due on `date`.
    DueSoon {
        #[serde(with = "amount")]
        amount: Decimal,
        currency: String,
        date: NaiveDate,
        expense_id: String,
        name: String,
    },
    /// `subscription_alert`: a subscription's price changed `since` a day,
    /// by `percent` (unsigned; `change` tells the direction).
    PriceChange {
        #[serde(with = "amount")]
        amount: Decimal,
        change: Direction,
        currency: String,
        expense_id: String,
        name: String,
        #[serde(with = "whole")]
        percent: Decimal,
        #[serde(with = "amount")]
        previous_amount: Decimal,
        since: NaiveDate,
    },
    /// `trend_info`: expenses of the three months from the month of `from`
    /// (its first day), each 5 % above (or below) the one before.
    Trend {
        currency: String,
        direction: Direction,
        #[serde(with = "month")]
        from: NaiveDate,
        #[serde(with = "amounts")]
        months: [Decimal; 3],
    },
    /// `subscription_alert`: the last day to cancel a contract
    /// (`cancel_by`) is within 14 days; cancelled by then, it ends on
    /// `term_end` (`docs/planning.md`, Cancellation deadlines).
    CancelBy {
        cancel_by: NaiveDate,
        expense_id: String,
        name: String,
        term_end: NaiveDate,
    },
}

impl Finding {
    /// The insight type it is stored as.
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::SpendingAnomaly { .. } => "spending_anomaly",
            Finding::OverLimit { .. } | Finding::OverIncome { .. } => "budget_warning",
            Finding::DuplicateSubscriptions { .. } | Finding::ExpensiveSubscription { .. } => {
                "saving_opportunity"
            }
            Finding::DueSoon { .. } | Finding::PriceChange { .. } | Finding::CancelBy { .. } => {
                "subscription_alert"
            }
            Finding::Trend { .. } => "trend_info",
        }
    }

    /// The finding of a stored insight: its type and metadata. `None` when
    /// the metadata is not the shape of a finding of that type.
    pub fn from_stored(kind: &str, metadata: &Value) -> Option<Finding> {
        Finding::deserialize(metadata)
            .ok()
            .filter(|f| f.kind() == kind)
    }
}

/// How many days before a contract's last day to cancel it is pointed out.
pub const CANCEL_BY_DAYS: i64 = 14;

/// A finding as [`find`] makes it: what was found, how pressing it is, and
/// until when it is current.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub finding: Finding,
    pub severity: &'static str,
    /// The same finding found again has the same key.
    pub dedupe_key: String,
    /// The last day the finding is current (it expires at the end of it).
    pub valid_through: NaiveDate,
}

/// An amount as a decimal string with two decimals ("12.50").
mod amount {
    use rust_decimal::Decimal;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::money::json_text(*d))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let text = String::deserialize(d)?;
        Decimal::from_str_exact(&text).map_err(D::Error::custom)
    }
}

/// Amounts as a list of decimal strings with two decimals.
mod amounts {
    use rust_decimal::Decimal;
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(list: &[Decimal; 3], s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(list.len())?;
        for d in list {
            t.serialize_element(&super::money::json_text(*d))?;
        }
        t.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[Decimal; 3], D::Error> {
        #[derive(Deserialize)]
        struct Amount(#[serde(with = "super::amount")] Decimal);
        let [a, b, c] = <[Amount; 3]>::deserialize(d)?;
        Ok([a.0, b.0, c.0])
    }
}

/// A whole-number percentage as a string ("107").
mod whole {
    use rust_decimal::Decimal;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(d)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let text = String::deserialize(d)?;
        Decimal::from_str_exact(&text).map_err(D::Error::custom)
    }
}

/// A month as "YYYY-MM", held as its first day.
mod month {
    use chrono::NaiveDate;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::month_key(*d))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
        let text = String::deserialize(d)?;
        NaiveDate::parse_from_str(&format!("{text}-01"), "%Y-%m-%d").map_err(D::Error::custom)
    }
}

fn pct(part: Decimal, whole: Decimal) -> Decimal {
    if whole.is_zero() {
        return Decimal::ZERO;
    }
    (part / whole * Decimal::ONE_HUNDRED).round_dp(0)
}

fn month_key(d: NaiveDate) -> String {
    format!("{:04}-{:02}", d.year(), d.month())
}

/// Every finding for `facts`, in a stable order.
pub fn find(facts: &Facts) -> Vec<Found> {
    let mut out = Vec::new();
    let month = month_key(facts.today);
    let month_last = month_end(facts.today);
    let cur = facts.currency.as_str();
    let three = Decimal::from(3);

    for k in &facts.categories {
        let avg = (k.one_time(0) + k.one_time(1) + k.one_time(2)) / three;
        let now = k.one_time(3);
        if avg > Decimal::ZERO && now >= avg * Decimal::new(15, 1) && now - avg >= Decimal::from(50)
        {
            let ratio = now / avg;
            out.push(Found {
                finding: Finding::SpendingAnomaly {
                    amount: money::round(now),
                    average: money::round(avg),
                    category_id: k.id.clone(),
                    category_name: k.name.clone(),
                    currency: cur.to_string(),
                    percent: pct(now - avg, avg),
                },
                severity: if ratio >= Decimal::from(2) {
                    "warning"
                } else {
                    "info"
                },
                dedupe_key: format!("spending_anomaly:{}:{month}", k.id),
                valid_through: month_last,
            });
        }
        if let Some((available, status)) = k.budget {
            let days_left = (month_last - facts.today).num_days();
            let severity = match status {
                super::budgets::Status::Over => Some("critical"),
                super::budgets::Status::Near if days_left >= 5 => Some("warning"),
                _ => None,
            };
            if let Some(severity) = severity {
                out.push(Found {
                    finding: Finding::OverLimit {
                        // A budget counts everything spent, recurring too.
                        amount: money::round(k.spent[3]),
                        category_id: k.id.clone(),
                        category_name: k.name.clone(),
                        currency: cur.to_string(),
                        limit: money::round(available),
                    },
                    severity,
                    dedupe_key: format!("budget_warning:{}:{month}", k.id),
                    valid_through: month_last,
                });
            }
        }
    }

    let (income, expenses) = (facts.income[3], facts.expenses[3]);
    if expenses > income && expenses > Decimal::ZERO {
        out.push(Found {
            finding: Finding::OverIncome {
                currency: cur.to_string(),
                expenses: money::round(expenses),
                income: money::round(income),
                shortfall: money::round(expenses - income),
            },
            severity: if income.is_zero() || expenses > income * Decimal::new(12, 1) {
                "critical"
            } else {
                "warning"
            },
            dedupe_key: format!("budget_warning:month:{month}"),
            valid_through: month_last,
        });
    }

    // Subscriptions by category.
    let mut by_category: Vec<(&str, Vec<&SubscriptionFacts>)> = Vec::new();
    for s in &facts.subscriptions {
        let key = s.category_id.as_deref().unwrap_or("");
        match by_category.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(s),
            None => by_category.push((key, vec![s])),
        }
    }
    for (category_id, subs) in &by_category {
        if category_id.is_empty() || subs.len() < 2 {
            continue;
        }
        let name = facts
            .categories
            .iter()
            .find(|k| k.id == *category_id)
            .map(|k| k.name.clone())
            .unwrap_or_default();
        let total: Decimal = subs.iter().map(|s| s.monthly).sum();
        out.push(Found {
            finding: Finding::DuplicateSubscriptions {
                category_id: category_id.to_string(),
                category_name: name.clone(),
                count: subs.len(),
                currency: cur.to_string(),
                monthly_total: money::round(total),
                subscriptions: subs.iter().map(|s| s.name.clone()).collect(),
            },
            severity: "info",
            dedupe_key: format!("saving_opportunity:duplicates:{category_id}:{}", subs.len()),
            valid_through: facts.today + Duration::days(30),
        });
        for s in subs {
            let others: Vec<Decimal> = subs
                .iter()
                .filter(|o| o.id != s.id)
                .map(|o| o.monthly)
                .collect();
            let avg = others.iter().copied().sum::<Decimal>() / Decimal::from(others.len().max(1));
            if avg > Decimal::ZERO && s.monthly > avg * Decimal::from(2) {
                out.push(Found {
                    finding: Finding::ExpensiveSubscription {
                        category_id: category_id.to_string(),
                        category_name: name.clone(),
                        currency: cur.to_string(),
                        expense_id: s.id.clone(),
                        monthly: money::round(s.monthly),
                        name: s.name.clone(),
                        others_average: money::round(avg),
                    },
                    severity: "info",
                    dedupe_key: format!("saving_opportunity:expensive:{}", s.id),
                    valid_through: facts.today + Duration::days(30),
                });
            }
        }
    }

    for s in &facts.subscriptions {
        let Some(due) = s.next_due else { continue };
        let days = (due - facts.today).num_days();
        if (0..=3).contains(&days) {
            out.push(Found {
                finding: Finding::DueSoon {
                    amount: money::round(s.amount),
                    currency: cur.to_string(),
                    date: due,
                    expense_id: s.id.clone(),
                    name: s.name.clone(),
                },
                severity: "info",
                dedupe_key: format!("subscription_alert:due:{}:{due}", s.id),
                valid_through: due,
            });
        }
    }

    for s in &facts.subscriptions {
        let Some((before, on)) = s.previous_amount else {
            continue;
        };
        let age = (facts.today - on).num_days();
        if before == s.amount || !(0..=30).contains(&age) {
            continue;
        }
        let up = s.amount > before;
        out.push(Found {
            finding: Finding::PriceChange {
                amount: money::round(s.amount),
                change: if up { Direction::Up } else { Direction::Down },
                currency: cur.to_string(),
                expense_id: s.id.clone(),
                name: s.name.clone(),
                percent: pct((s.amount - before).abs(), before),
                previous_amount: money::round(before),
                since: on,
            },
            severity: if up { "warning" } else { "info" },
            dedupe_key: format!("subscription_alert:price:{}:{on}", s.id),
            valid_through: on + Duration::days(30),
        });
    }

    for c in &facts.contracts {
        let d = c.deadline;
        let days = (d.cancel_by - facts.today).num_days();
        if d.runs_on || !(0..=CANCEL_BY_DAYS).contains(&days) {
            continue;
        }
        out.push(Found {
            finding: Finding::CancelBy {
                cancel_by: d.cancel_by,
                expense_id: c.id.clone(),
                name: c.name.clone(),
                term_end: d.term_end,
            },
            severity: if days <= 3 { "warning" } else { "info" },
            dedupe_key: format!("subscription_alert:cancel_by:{}:{}", c.id, d.cancel_by),
            valid_through: d.cancel_by,
        });
    }

    // Trend over the last three full months.
    let e = &facts.expenses;
    let step = |a: Decimal, b: Decimal| -> i8 {
        if a.is_zero() {
            0
        } else if b >= a * Decimal::new(105, 2) {
            1
        } else if b <= a * Decimal::new(95, 2) {
            -1
        } else {
            0
        }
    };
    let (s1, s2) = (step(e[0], e[1]), step(e[1], e[2]));
    if s1 != 0 && s1 == s2 {
        let up = s1 > 0;
        out.push(Found {
            finding: Finding::Trend {
                currency: cur.to_string(),
                direction: if up { Direction::Up } else { Direction::Down },
                from: month_start(add_months(facts.today, -3)),
                months: [money::round(e[0]), money::round(e[1]), money::round(e[2])],
            },
            severity: if up { "warning" } else { "info" },
            dedupe_key: format!("trend_info:{month}:{}", if up { "up" } else { "down" }),
            valid_through: month_last,
        });
    }
    out
}

/// Facts and stored findings shared by the tests here and in
/// `i18n::insights`.
#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    fn kinds(f: &[Found]) -> Vec<&str> {
        f.iter().map(|x| x.finding.kind()).collect()
    }
    /// The finding's metadata, as stored.
    fn meta(f: &Found) -> Value {
        serde_json::to_value(&f.finding).unwrap()
    }

    #[test]
    fn a_calm_month_finds_nothing() {
        assert!(find(&facts()).is_empty());
    }

    #[test]
    fn a_category_far_above_its_average_is_an_anomaly() {
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "food".into(),
            name: "Lebensmittel".into(),
            budget: None,
            spent: [dec("300"), dec("320"), dec("280"), dec("620")],
            recurring: [Decimal::ZERO; 4],
        });
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["spending_anomaly"]);
        assert_eq!(out[0].severity, "warning", "more than twice the average");
        assert_eq!(meta(&out[0])["percent"], "107");
        assert_eq!(meta(&out[0])["average"], "300.00");
        assert_eq!(out[0].valid_through, d("2025-06-30"));
        // Slightly above average is not worth a word.
        f.categories[0].spent[3] = dec("340");
        assert!(find(&f).is_empty());
    }

    #[test]
    fn a_recurring_payment_due_this_month_is_planned_not_unusual() {
        let mut f = facts();
        // Monthly streaming at 58.54, and this month the yearly 89.90 of
        // Amazon Prime on top: planned, no anomaly.
        f.categories.push(CategoryFacts {
            id: "tv".into(),
            name: "Abos & Streaming".into(),
            budget: None,
            spent: [dec("58.54"), dec("58.54"), dec("58.54"), dec("148.44")],
            recurring: [dec("58.54"), dec("58.54"), dec("58.54"), dec("148.44")],
        });
        assert!(find(&f).is_empty(), "{:?}", find(&f));
        // One-time spending far above its usual counts, the recurring
        // payments left out of both sides.
        f.categories[0].spent = [dec("78.54"), dec("88.54"), dec("88.54"), dec("268.44")];
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["spending_anomaly"]);
        assert_eq!(meta(&out[0])["amount"], "120.00");
        assert_eq!(meta(&out[0])["average"], "26.67");
    }

    #[test]
    fn spending_above_income_or_a_category_limit_is_a_budget_warning() {
        let mut f = facts();
        f.expenses[3] = dec("3700");
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["budget_warning"]);
        assert_eq!(out[0].severity, "critical", "more than 20 % over");
        assert_eq!(meta(&out[0])["shortfall"], "700.00");
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "fun".into(),
            name: "Freizeit".into(),
            budget: Some((dec("100"), super::super::budgets::Status::Over)),
            spent: [dec("90"), dec("95"), dec("100"), dec("110")],
            recurring: [Decimal::ZERO; 4],
        });
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["budget_warning"]);
        assert_eq!(out[0].severity, "critical");
        assert_eq!(meta(&out[0])["categoryId"], "fun");
        assert_eq!(meta(&out[0])["limit"], "100.00");
    }

    #[test]
    fn near_a_budget_warns_only_with_five_days_of_the_month_left() {
        let near = |today: &str| {
            let mut f = facts();
            f.today = NaiveDate::parse_from_str(today, "%Y-%m-%d").unwrap();
            f.categories.push(CategoryFacts {
                id: "fun".into(),
                name: "Freizeit".into(),
                budget: Some((dec("100"), super::super::budgets::Status::Near)),
                spent: [dec("0"), dec("0"), dec("0"), dec("85")],
                recurring: [Decimal::ZERO; 4],
            });
            find(&f)
                .into_iter()
                .filter(|x| x.dedupe_key.starts_with("budget_warning:fun"))
                .map(|x| x.severity)
                .collect::<Vec<_>>()
        };
        assert_eq!(near("2025-06-25"), vec!["warning"]);
        assert_eq!(near("2025-06-26"), Vec::<&str>::new());
    }

    #[test]
    fn duplicate_and_expensive_subscriptions_are_saving_opportunities() {
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "tv".into(),
            name: "Streaming".into(),
            budget: None,
            spent: [Decimal::ZERO; 4],
            recurring: [Decimal::ZERO; 4],
        });
        f.subscriptions = vec![
            sub("Netflix", "tv", "13.99", None),
            sub("Disney", "tv", "8.99", None),
            sub("Sky", "tv", "35.00", None),
        ];
        let out = find(&f);
        assert_eq!(
            kinds(&out),
            vec!["saving_opportunity", "saving_opportunity"]
        );
        assert_eq!(meta(&out[0])["count"], 3);
        assert_eq!(meta(&out[0])["monthlyTotal"], "57.98");
        assert_eq!(meta(&out[1])["expenseId"], "Sky");
    }

    #[test]
    fn a_subscription_due_within_three_days_is_an_alert() {
        let mut f = facts();
        f.subscriptions = vec![
            sub("Netflix", "tv", "13.99", Some("2025-06-23")),
            sub("Spotify", "music", "9.99", Some("2025-06-24")),
        ];
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["subscription_alert"]);
        assert_eq!(meta(&out[0])["date"], "2025-06-23");
        assert_eq!(out[0].valid_through, d("2025-06-23"));
    }

    /// A contract's last day to cancel within 14 days is an alert, a
    /// warning from 3 days before; one further off, or of a contract that
    /// can be ended any day, is none. Its metadata reads back as itself.
    #[test]
    fn a_cancellation_deadline_within_14_days_is_an_alert() {
        use crate::domain::contracts::Deadline;
        let contract = |id: &str, by: &str, runs_on| ContractFacts {
            id: id.into(),
            name: id.into(),
            deadline: Deadline {
                term_end: d("2025-09-30"),
                cancel_by: d(by),
                runs_on,
            },
        };
        let mut f = facts();
        f.contracts = vec![
            contract("Gym", "2025-07-04", false),
            contract("Phone", "2025-06-22", false),
            contract("Power", "2025-07-05", false),
            contract("Flat", "2025-06-20", true),
        ];
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["subscription_alert"; 2]);
        assert_eq!(meta(&out[0])["name"], "Gym");
        assert_eq!(meta(&out[0])["cancelBy"], "2025-07-04");
        assert_eq!(meta(&out[0])["termEnd"], "2025-09-30");
        assert_eq!(out[0].severity, "info");
        assert_eq!(out[1].severity, "warning", "two days before");
        assert_eq!(out[1].valid_through, d("2025-06-22"));
        assert_eq!(
            out[0].dedupe_key,
            "subscription_alert:cancel_by:Gym:2025-07-04"
        );
        let stored = serde_json::to_value(&out[0].finding).unwrap();
        assert_eq!(
            Finding::from_stored("subscription_alert", &stored),
            Some(out[0].finding.clone())
        );
    }

    #[test]
    fn a_recent_price_change_of_a_subscription_is_an_alert() {
        let mut f = facts();
        let mut s = sub("Spotify", "music", "12.99", None);
        s.previous_amount = Some((dec("10.99"), d("2025-06-01")));
        f.subscriptions = vec![s.clone()];
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["subscription_alert"]);
        assert_eq!(out[0].severity, "warning");
        assert_eq!(meta(&out[0])["change"], "up");
        assert_eq!(meta(&out[0])["percent"], "18");
        // Older than 30 days: no longer news.
        s.previous_amount = Some((dec("10.99"), d("2025-05-01")));
        f.subscriptions = vec![s];
        assert!(find(&f).is_empty());
    }

    #[test]
    fn three_months_of_rising_expenses_are_a_trend() {
        let mut f = facts();
        f.expenses = [dec("2000"), dec("2200"), dec("2400"), dec("100")];
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["trend_info"]);
        assert_eq!(meta(&out[0])["direction"], "up");
        f.expenses = [dec("2400"), dec("2200"), dec("2000"), dec("100")];
        assert_eq!(meta(&find(&f)[0])["direction"], "down");
        f.expenses = [dec("2000"), dec("2200"), dec("2150"), dec("100")];
        assert!(find(&f).is_empty(), "not three in a row");
    }

    #[test]
    fn the_same_facts_give_the_same_keys() {
        let mut f = facts();
        f.expenses[3] = dec("5000");
        assert_eq!(find(&f), find(&f));
        assert_eq!(find(&f)[0].dedupe_key, "budget_warning:month:2025-06");
    }

    /// The stored metadata is an external contract (`docs/api.md`): each
    /// variant serialises to exactly what was stored before findings were
    /// typed, and what was stored reads back as the same finding.
    #[test]
    fn every_finding_is_stored_and_read_back_in_the_metadata_shape_of_old() {
        for (facts, stored) in [
            (everything(), &STORED_EUR[..]),
            (everything_else(), &STORED_CHF[..]),
        ] {
            let found = find(&facts);
            assert_eq!(found.len(), stored.len());
            for (f, (kind, severity, key, through, metadata)) in found.iter().zip(stored) {
                assert_eq!(f.finding.kind(), *kind);
                assert_eq!(f.severity, *severity);
                assert_eq!(f.dedupe_key, *key);
                assert_eq!(f.valid_through, d(through));
                assert_eq!(serde_json::to_string(&f.finding).unwrap(), *metadata);
                let read = serde_json::from_str(metadata).unwrap();
                let back = Finding::from_stored(kind, &read).expect(metadata);
                assert_eq!(back, f.finding, "{metadata}");
                assert_eq!(serde_json::to_string(&back).unwrap(), *metadata);
            }
        }
        let variants: std::collections::HashSet<_> = find(&everything())
            .iter()
            .map(|f| std::mem::discriminant(&f.finding))
            .collect();
        assert_eq!(variants.len(), 8, "every variant is covered");
    }

    #[test]
    fn stored_facts_read_back_typed() {
        let read = |kind: &str, json: &str| {
            Finding::from_stored(kind, &serde_json::from_str(json).unwrap())
        };
        assert_eq!(
            read("trend_info", STORED_CHF[6].4),
            Some(Finding::Trend {
                currency: "CHF".into(),
                direction: Direction::Down,
                from: d("2025-03-01"),
                months: [dec("2400"), dec("2200"), dec("2000")],
            })
        );
        assert_eq!(
            read("subscription_alert", STORED_EUR[6].4),
            Some(Finding::PriceChange {
                amount: dec("12.99"),
                change: Direction::Up,
                currency: "EUR".into(),
                expense_id: "Spotify".into(),
                name: "Spotify".into(),
                percent: dec("18"),
                previous_amount: dec("10.99"),
                since: d("2025-06-01"),
            })
        );
    }

    #[test]
    fn metadata_not_of_its_type_is_no_finding() {
        let read = |kind: &str, json: &str| {
            Finding::from_stored(kind, &serde_json::from_str(json).unwrap())
        };
        // The right shape under another type.
        assert_eq!(read("trend_info", STORED_EUR[0].4), None);
        // Keys missing, as in rows written by hand.
        assert_eq!(read("trend_info", r#"{"categoryId":"k"}"#), None);
        assert_eq!(read("budget_warning", r#"{"income":"1.00"}"#), None);
        assert_eq!(read("budget_warning", "null"), None);
        // Amounts are decimal strings, not numbers.
        assert_eq!(
            read(
                "budget_warning",
                r#"{"currency":"EUR","expenses":3700,"income":"3000.00","shortfall":"700.00"}"#
            ),
            None
        );
        assert_eq!(read("unknown", STORED_EUR[0].4), None);
    }
}
