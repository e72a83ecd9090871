//! Facts for the tests of the insight rules and their words.

use super::*;

/// A stored finding: type, severity, dedupe key, last day current and
/// the `metadata` text, byte for byte as the insights job stores it.
pub type Stored = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

pub fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}
pub fn dec(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap()
}
/// A calm month: nothing to find.
pub fn facts() -> Facts {
    Facts {
        today: d("2025-06-20"),
        currency: "EUR".into(),
        income: [dec("3000"); 4],
        expenses: [dec("2000"), dec("2000"), dec("2000"), dec("2000")],
        categories: vec![],
        subscriptions: vec![],
        contracts: vec![],
    }
}
pub fn sub(id: &str, cat: &str, monthly: &str, next: Option<&str>) -> SubscriptionFacts {
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

/// A month with one finding of every variant: [`STORED_EUR`].
pub fn everything() -> Facts {
    let mut spotify = sub("Spotify", "music", "12.99", None);
    spotify.previous_amount = Some((dec("10.99"), d("2025-06-01")));
    Facts {
        expenses: [dec("2000"), dec("2200"), dec("2420"), dec("3700")],
        categories: vec![
            CategoryFacts {
                id: "food".into(),
                name: "Lebensmittel".into(),
                budget: Some((dec("500"), crate::domain::budgets::Status::Over)),
                spent: [dec("300"), dec("320"), dec("280"), dec("1620.555")],
                recurring: [Decimal::ZERO; 4],
            },
            CategoryFacts {
                id: "tv".into(),
                name: "Streaming".into(),
                budget: None,
                spent: [Decimal::ZERO; 4],
                recurring: [Decimal::ZERO; 4],
            },
        ],
        subscriptions: vec![
            sub("Netflix", "tv", "13.99", Some("2025-06-23")),
            sub("Disney", "tv", "8.99", None),
            sub("Sky", "tv", "35.00", None),
            spotify,
        ],
        ..facts()
    }
}

/// [`everything`] in Swiss francs, with falling expenses, no income this
/// month and a cheaper subscription: [`STORED_CHF`].
pub fn everything_else() -> Facts {
    let mut f = everything();
    f.currency = "CHF".into();
    f.expenses = [dec("2400"), dec("2200"), dec("2000"), dec("3000.004")];
    f.income[3] = Decimal::ZERO;
    f.categories[0].spent = [dec("100"), dec("100"), dec("100"), dec("170")];
    f.categories[0].budget = Some((dec("500"), crate::domain::budgets::Status::Ok));
    f.subscriptions[3].amount = dec("9.99");
    f
}

/// What the code before typed findings stored for [`everything`].
pub const STORED_EUR: [Stored; 8] = [
    (
        "spending_anomaly",
        "warning",
        "spending_anomaly:food:2025-06",
        "2025-06-30",
        r#"{"amount":"1620.56","average":"300.00","categoryId":"food","categoryName":"Lebensmittel","currency":"EUR","percent":"440"}"#,
    ),
    (
        "budget_warning",
        "critical",
        "budget_warning:food:2025-06",
        "2025-06-30",
        r#"{"amount":"1620.56","categoryId":"food","categoryName":"Lebensmittel","currency":"EUR","limit":"500.00"}"#,
    ),
    (
        "budget_warning",
        "critical",
        "budget_warning:month:2025-06",
        "2025-06-30",
        r#"{"currency":"EUR","expenses":"3700.00","income":"3000.00","shortfall":"700.00"}"#,
    ),
    (
        "saving_opportunity",
        "info",
        "saving_opportunity:duplicates:tv:3",
        "2025-07-20",
        r#"{"categoryId":"tv","categoryName":"Streaming","count":3,"currency":"EUR","monthlyTotal":"57.98","subscriptions":["Netflix","Disney","Sky"]}"#,
    ),
    (
        "saving_opportunity",
        "info",
        "saving_opportunity:expensive:Sky",
        "2025-07-20",
        r#"{"categoryId":"tv","categoryName":"Streaming","currency":"EUR","expenseId":"Sky","monthly":"35.00","name":"Sky","othersAverage":"11.49"}"#,
    ),
    (
        "subscription_alert",
        "info",
        "subscription_alert:due:Netflix:2025-06-23",
        "2025-06-23",
        r#"{"amount":"13.99","currency":"EUR","date":"2025-06-23","expenseId":"Netflix","name":"Netflix"}"#,
    ),
    (
        "subscription_alert",
        "warning",
        "subscription_alert:price:Spotify:2025-06-01",
        "2025-07-01",
        r#"{"amount":"12.99","change":"up","currency":"EUR","expenseId":"Spotify","name":"Spotify","percent":"18","previousAmount":"10.99","since":"2025-06-01"}"#,
    ),
    (
        "trend_info",
        "warning",
        "trend_info:2025-06:up",
        "2025-06-30",
        r#"{"currency":"EUR","direction":"up","from":"2025-03","months":["2000.00","2200.00","2420.00"]}"#,
    ),
];

/// What the code before typed findings stored for [`everything_else`].
pub const STORED_CHF: [Stored; 7] = [
    (
        "spending_anomaly",
        "info",
        "spending_anomaly:food:2025-06",
        "2025-06-30",
        r#"{"amount":"170.00","average":"100.00","categoryId":"food","categoryName":"Lebensmittel","currency":"CHF","percent":"70"}"#,
    ),
    (
        "budget_warning",
        "critical",
        "budget_warning:month:2025-06",
        "2025-06-30",
        r#"{"currency":"CHF","expenses":"3000.00","income":"0.00","shortfall":"3000.00"}"#,
    ),
    (
        "saving_opportunity",
        "info",
        "saving_opportunity:duplicates:tv:3",
        "2025-07-20",
        r#"{"categoryId":"tv","categoryName":"Streaming","count":3,"currency":"CHF","monthlyTotal":"57.98","subscriptions":["Netflix","Disney","Sky"]}"#,
    ),
    (
        "saving_opportunity",
        "info",
        "saving_opportunity:expensive:Sky",
        "2025-07-20",
        r#"{"categoryId":"tv","categoryName":"Streaming","currency":"CHF","expenseId":"Sky","monthly":"35.00","name":"Sky","othersAverage":"11.49"}"#,
    ),
    (
        "subscription_alert",
        "info",
        "subscription_alert:due:Netflix:2025-06-23",
        "2025-06-23",
        r#"{"amount":"13.99","currency":"CHF","date":"2025-06-23","expenseId":"Netflix","name":"Netflix"}"#,
    ),
    (
        "subscription_alert",
        "info",
        "subscription_alert:price:Spotify:2025-06-01",
        "2025-07-01",
        r#"{"amount":"9.99","change":"down","currency":"CHF","expenseId":"Spotify","name":"Spotify","percent":"9","previousAmount":"10.99","since":"2025-06-01"}"#,
    ),
    (
        "trend_info",
        "info",
        "trend_info:2025-06:down",
        "2025-06-30",
        r#"{"currency":"CHF","direction":"down","from":"2025-03","months":["2400.00","2200.00","2000.00"]}"#,
    ),
];
