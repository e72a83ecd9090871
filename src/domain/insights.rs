//! Insights: what deserves a person's attention, found from facts about
//! their money. Titles and messages are German (`docs/planning.md`); `metadata` holds
//! the language-independent facts the UI renders in English too.
//!
//! The five kinds and their rules:
//! - `spending_anomaly`: a category's spending this month is at least 1.5×
//!   its average of the three months before (and at least 50 more);
//! - `budget_warning`: the month's expenses exceed its income, or a category
//!   exceeds the monthly limit set on it;
//! - `saving_opportunity`: two or more running subscriptions in one category,
//!   or a subscription costing more than twice the others of its category;
//! - `subscription_alert`: a subscription falls due within three days, or
//!   its price changed in the last 30 days;
//! - `trend_info`: expenses rose (or fell) in each of the last three months,
//!   by at least 5 % each time.

use super::money;
use super::recurrence::{add_months, month_end};
use chrono::{Datelike, Duration, NaiveDate};
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// A category's spending: this month and the three before (oldest first).
#[derive(Clone, Debug)]
pub struct CategoryFacts {
    pub id: String,
    pub name: String,
    pub limit: Option<Decimal>,
    /// `[m-3, m-2, m-1, this month]`.
    pub spent: [Decimal; 4],
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

#[derive(Clone, Debug)]
pub struct Facts {
    pub today: NaiveDate,
    pub currency: String,
    /// Cashflow totals `[m-3, m-2, m-1, this month]`.
    pub income: [Decimal; 4],
    pub expenses: [Decimal; 4],
    pub categories: Vec<CategoryFacts>,
    pub subscriptions: Vec<SubscriptionFacts>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub kind: &'static str,
    pub severity: &'static str,
    /// The same finding found again has the same key.
    pub dedupe_key: String,
    pub title: String,
    pub message: String,
    pub metadata: Value,
    /// The last day the finding is current (it expires at the end of it).
    pub valid_through: NaiveDate,
}

/// German style, as titles and messages are stored; the UI formats the
/// metadata itself for other languages.
fn de(amount: Decimal, currency: &str) -> String {
    let sign = if amount.is_sign_negative() && !money::round(amount).is_zero() {
        "-"
    } else {
        ""
    };
    let symbol = if currency == "EUR" { "€" } else { currency };
    format!("{sign}{} {symbol}", money::grouped(amount, 2, '.', ','))
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
pub fn find(facts: &Facts) -> Vec<Finding> {
    let mut out = Vec::new();
    let month = month_key(facts.today);
    let month_last = month_end(facts.today);
    let cur = facts.currency.as_str();
    let three = Decimal::from(3);

    for k in &facts.categories {
        let avg = (k.spent[0] + k.spent[1] + k.spent[2]) / three;
        let now = k.spent[3];
        if avg > Decimal::ZERO && now >= avg * Decimal::new(15, 1) && now - avg >= Decimal::from(50)
        {
            let ratio = now / avg;
            out.push(Finding {
                kind: "spending_anomaly",
                severity: if ratio >= Decimal::from(2) { "warning" } else { "info" },
                dedupe_key: format!("spending_anomaly:{}:{month}", k.id),
                title: format!("Ungewöhnlich hohe Ausgaben: {}", k.name),
                message: format!(
                    "In diesem Monat hast du für {} bisher {} ausgegeben, {} % mehr als im Schnitt der letzten drei Monate ({}).",
                    k.name,
                    de(now, cur),
                    pct(now - avg, avg),
                    de(avg, cur)
                ),
                metadata: json!({
                    "categoryId": k.id, "categoryName": k.name, "amount": money::json_text(now),
                    "average": money::json_text(avg), "percent": pct(now - avg, avg).to_string(), "currency": cur,
                }),
                valid_through: month_last,
            });
        }
        if let Some(limit) = k.limit {
            if now > limit {
                out.push(Finding {
                    kind: "budget_warning",
                    severity: if now > limit * Decimal::new(12, 1) {
                        "critical"
                    } else {
                        "warning"
                    },
                    dedupe_key: format!("budget_warning:{}:{month}", k.id),
                    title: format!("Limit überschritten: {}", k.name),
                    message: format!(
                        "Für {} hast du in diesem Monat {} ausgegeben, dein Limit ist {}.",
                        k.name,
                        de(now, cur),
                        de(limit, cur)
                    ),
                    metadata: json!({
                        "categoryId": k.id, "categoryName": k.name, "amount": money::json_text(now),
                        "limit": money::json_text(limit), "currency": cur,
                    }),
                    valid_through: month_last,
                });
            }
        }
    }

    let (income, expenses) = (facts.income[3], facts.expenses[3]);
    if expenses > income && expenses > Decimal::ZERO {
        out.push(Finding {
            kind: "budget_warning",
            severity: if income.is_zero() || expenses > income * Decimal::new(12, 1) { "critical" } else { "warning" },
            dedupe_key: format!("budget_warning:month:{month}"),
            title: "Mehr Ausgaben als Einnahmen".to_string(),
            message: format!(
                "In diesem Monat stehen {} Ausgaben nur {} Einnahmen gegenüber: {} mehr als hereinkommt.",
                de(expenses, cur),
                de(income, cur),
                de(expenses - income, cur)
            ),
            metadata: json!({
                "income": money::json_text(income), "expenses": money::json_text(expenses),
                "shortfall": money::json_text(expenses - income), "currency": cur,
            }),
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
        let names: Vec<&str> = subs.iter().map(|s| s.name.as_str()).collect();
        out.push(Finding {
            kind: "saving_opportunity",
            severity: "info",
            dedupe_key: format!("saving_opportunity:duplicates:{category_id}:{}", subs.len()),
            title: format!("{} Abos in {}", subs.len(), name),
            message: format!(
                "Du zahlst für {} Abos in {} zusammen {} im Monat ({}). Brauchst du alle?",
                subs.len(),
                name,
                de(total, cur),
                names.join(", ")
            ),
            metadata: json!({
                "categoryId": category_id, "categoryName": name, "count": subs.len(),
                "monthlyTotal": money::json_text(total), "subscriptions": names, "currency": cur,
            }),
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
                out.push(Finding {
                    kind: "saving_opportunity",
                    severity: "info",
                    dedupe_key: format!("saving_opportunity:expensive:{}", s.id),
                    title: format!("{} kostet mehr als vergleichbare Abos", s.name),
                    message: format!(
                        "{} kostet {} im Monat, die anderen Abos in {} im Schnitt {}.",
                        s.name,
                        de(s.monthly, cur),
                        name,
                        de(avg, cur)
                    ),
                    metadata: json!({
                        "expenseId": s.id, "name": s.name, "categoryId": category_id, "categoryName": name,
                        "monthly": money::json_text(s.monthly), "othersAverage": money::json_text(avg), "currency": cur,
                    }),
                    valid_through: facts.today + Duration::days(30),
                });
            }
        }
    }

    for s in &facts.subscriptions {
        let Some(due) = s.next_due else { continue };
        let days = (due - facts.today).num_days();
        if (0..=3).contains(&days) {
            out.push(Finding {
                kind: "subscription_alert",
                severity: "info",
                dedupe_key: format!("subscription_alert:due:{}:{due}", s.id),
                title: format!("{} wird bald abgebucht", s.name),
                message: format!(
                    "Am {} wird {} für {} fällig.",
                    due.format("%d.%m.%Y"),
                    de(s.amount, cur),
                    s.name
                ),
                metadata: json!({
                    "expenseId": s.id, "name": s.name, "date": due.to_string(),
                    "amount": money::json_text(s.amount), "currency": cur,
                }),
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
        out.push(Finding {
            kind: "subscription_alert",
            severity: if up { "warning" } else { "info" },
            dedupe_key: format!("subscription_alert:price:{}:{on}", s.id),
            title: if up { format!("{} wird teurer", s.name) } else { format!("{} wird günstiger", s.name) },
            message: format!(
                "{} kostet seit dem {} {} statt {} ({} {} %).",
                s.name,
                on.format("%d.%m.%Y"),
                de(s.amount, cur),
                de(before, cur),
                if up { "+" } else { "−" },
                pct((s.amount - before).abs(), before)
            ),
            metadata: json!({
                "expenseId": s.id, "name": s.name, "change": if up { "up" } else { "down" },
                "amount": money::json_text(s.amount), "previousAmount": money::json_text(before),
                "percent": pct((s.amount - before).abs(), before).to_string(), "since": on.to_string(), "currency": cur,
            }),
            valid_through: on + Duration::days(30),
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
        let first = add_months(facts.today, -3);
        out.push(Finding {
            kind: "trend_info",
            severity: if up { "warning" } else { "info" },
            dedupe_key: format!("trend_info:{month}:{}", if up { "up" } else { "down" }),
            title: if up {
                "Ausgaben steigen".to_string()
            } else {
                "Ausgaben sinken".to_string()
            },
            message: format!(
                "Deine Ausgaben sind drei Monate in Folge {}: von {} im {} auf {} im Vormonat.",
                if up { "gestiegen" } else { "gesunken" },
                de(e[0], cur),
                month_key(first),
                de(e[2], cur)
            ),
            metadata: json!({
                "direction": if up { "up" } else { "down" },
                "months": [money::json_text(e[0]), money::json_text(e[1]), money::json_text(e[2])],
                "from": month_key(first), "currency": cur,
            }),
            valid_through: month_last,
        });
    }
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
    fn facts() -> Facts {
        Facts {
            today: d("2025-06-20"),
            currency: "EUR".into(),
            income: [dec("3000"); 4],
            expenses: [dec("2000"), dec("2000"), dec("2000"), dec("2000")],
            categories: vec![],
            subscriptions: vec![],
        }
    }
    fn kinds(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|x| x.kind).collect()
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
            limit: None,
            spent: [dec("300"), dec("320"), dec("280"), dec("620")],
        });
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["spending_anomaly"]);
        assert_eq!(out[0].severity, "warning", "more than twice the average");
        assert_eq!(out[0].metadata["percent"], "107");
        assert_eq!(out[0].metadata["average"], "300.00");
        assert!(out[0].message.contains("620,00 €"), "{}", out[0].message);
        assert_eq!(out[0].valid_through, d("2025-06-30"));
        // Slightly above average is not worth a word.
        f.categories[0].spent[3] = dec("340");
        assert!(find(&f).is_empty());
    }

    #[test]
    fn spending_above_income_or_a_category_limit_is_a_budget_warning() {
        let mut f = facts();
        f.expenses[3] = dec("3700");
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["budget_warning"]);
        assert_eq!(out[0].severity, "critical", "more than 20 % over");
        assert_eq!(out[0].metadata["shortfall"], "700.00");
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "fun".into(),
            name: "Freizeit".into(),
            limit: Some(dec("100")),
            spent: [dec("90"), dec("95"), dec("100"), dec("110")],
        });
        let out = find(&f);
        assert_eq!(kinds(&out), vec!["budget_warning"]);
        assert_eq!(out[0].severity, "warning");
        assert_eq!(out[0].metadata["categoryId"], "fun");
    }

    fn sub(id: &str, cat: &str, monthly: &str, next: Option<&str>) -> SubscriptionFacts {
        SubscriptionFacts {
            id: id.into(),
            name: id.into(),
            category_id: Some(cat.into()),
            monthly: dec(monthly),
            amount: dec(monthly),
            next_due: next.map(d),
            previous_amount: None,
        }
    }

    #[test]
    fn duplicate_and_expensive_subscriptions_are_saving_opportunities() {
        let mut f = facts();
        f.categories.push(CategoryFacts {
            id: "tv".into(),
            name: "Streaming".into(),
            limit: None,
            spent: [Decimal::ZERO; 4],
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
        assert_eq!(out[0].metadata["count"], 3);
        assert_eq!(out[0].metadata["monthlyTotal"], "57.98");
        assert_eq!(out[1].metadata["expenseId"], "Sky");
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
        assert_eq!(out[0].metadata["date"], "2025-06-23");
        assert_eq!(out[0].valid_through, d("2025-06-23"));
        assert!(out[0].message.contains("23.06.2025"));
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
        assert_eq!(out[0].metadata["change"], "up");
        assert_eq!(out[0].metadata["percent"], "18");
        assert!(out[0].message.contains("12,99 €") && out[0].message.contains("10,99 €"));
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
        assert_eq!(out[0].metadata["direction"], "up");
        f.expenses = [dec("2400"), dec("2200"), dec("2000"), dec("100")];
        assert_eq!(find(&f)[0].metadata["direction"], "down");
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
}
