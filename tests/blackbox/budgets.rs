//! Budgets through their actions and `/api/v1/budgets`: rollover, changes
//! from a month, spending counted as the dashboard counts it, the status
//! thresholds, refusals, the insight and the "over budget" push.

use crate::push::{push_service, subscribe, vapid, BrowserKeys};
use crate::support::*;
use cashkeeper::config::Secret;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

/// "Today" in these tests: 15 March 2026, noon UTC.
fn set_today(app: &TestApp) {
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 3, 15, 12, 0, 0).unwrap());
}

struct Household {
    user: TestUser,
    giro: String,
    food: String,
}

async fn household(app: &TestApp) -> Household {
    set_today(app);
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let food = app
        .ok(
            &user,
            "createCategory",
            json!({"name": "Lebensmittel", "icon": "🛒"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    Household { user, giro, food }
}

impl Household {
    async fn spend(&self, app: &TestApp, amount: &str, date: &str) {
        app.ok(
            &self.user,
            "createDailyExpense",
            json!({"name": "Einkauf", "amount": amount, "date": date, "accountId": self.giro, "categoryId": self.food}),
        )
        .await;
    }

    /// The food budget of `month`, or `Value::Null` when there is none.
    async fn budget(&self, app: &TestApp, month: &str) -> Value {
        let list = app
            .ok(&self.user, "listBudgets", json!({"month": month}))
            .await;
        assert_eq!(list["month"], month);
        assert_eq!(list["currency"], "EUR");
        list["budgets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["categoryId"] == self.food.as_str())
            .cloned()
            .unwrap_or(Value::Null)
    }
}

/// An amount as the JSON number it is, with two decimals.
fn m(v: &Value) -> String {
    format!(
        "{:.2}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

/// `(carried, available, spent, remaining, percent, status)` as text.
fn figures(b: &Value) -> (String, String, String, String, Value, String) {
    (
        m(&b["carried"]),
        m(&b["available"]),
        m(&b["spent"]),
        m(&b["remaining"]),
        b["percent"].clone(),
        b["status"].as_str().unwrap().to_string(),
    )
}

#[tokio::test]
async fn rollover_carries_what_is_left_and_what_was_overspent_across_three_months() {
    let app = spawn_app().await;
    let h = household(&app).await;
    let set = app
        .ok(
            &h.user,
            "setBudget",
            json!({"categoryId": h.food, "amount": "400", "rollover": true, "from": "2026-01"}),
        )
        .await;
    assert_eq!(set["from"], "2026-01");
    h.spend(&app, "300", "2026-01-10").await;
    h.spend(&app, "350", "2026-02-03").await;
    h.spend(&app, "250", "2026-02-20").await;
    h.spend(&app, "100", "2026-03-01").await;

    let jan = h.budget(&app, "2026-01").await;
    assert_eq!(jan["name"], "Lebensmittel");
    assert_eq!(jan["icon"], "🛒");
    assert_eq!(m(&jan["amount"]), "400.00");
    assert_eq!(
        figures(&jan),
        (
            "0.00".into(),
            "400.00".into(),
            "300.00".into(),
            "100.00".into(),
            json!(75),
            "ok".into()
        )
    );
    let feb = h.budget(&app, "2026-02").await;
    assert_eq!(
        figures(&feb),
        (
            "100.00".into(),
            "500.00".into(),
            "600.00".into(),
            "-100.00".into(),
            json!(120),
            "over".into()
        )
    );
    let mar = h.budget(&app, "2026-03").await;
    assert_eq!(
        figures(&mar),
        (
            "-100.00".into(),
            "300.00".into(),
            "100.00".into(),
            "200.00".into(),
            json!(33),
            "ok".into()
        )
    );
    // Without a month: this month.
    let now = app.ok(&h.user, "listBudgets", json!({})).await;
    assert_eq!(now["month"], "2026-03");
    assert_eq!(m(&now["budgets"][0]["remaining"]), "200.00");
    // Before its first month there is no budget.
    assert_eq!(h.budget(&app, "2025-12").await, Value::Null);
}

#[tokio::test]
async fn a_change_from_a_later_month_keeps_the_earlier_months_and_an_end_stops_it() {
    let app = spawn_app().await;
    let h = household(&app).await;
    let set =
        |amount: &str, from: &str| json!({"categoryId": h.food, "amount": amount, "from": from});
    app.ok(&h.user, "setBudget", set("400", "2026-01")).await;
    app.ok(&h.user, "setBudget", set("250", "2026-03")).await;
    for (month, amount) in [
        ("2026-01", "400.00"),
        ("2026-02", "400.00"),
        ("2026-03", "250.00"),
        ("2026-09", "250.00"),
    ] {
        assert_eq!(m(&h.budget(&app, month).await["amount"]), amount, "{month}");
    }
    // Without rollover nothing is carried.
    h.spend(&app, "10", "2026-02-01").await;
    assert_eq!(m(&h.budget(&app, "2026-03").await["carried"]), "0.00");
    // The category shows its budget as it now stands.
    let cats = app.ok(&h.user, "listCategories", json!({})).await;
    let food = cats
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == h.food.as_str())
        .unwrap()
        .clone();
    assert_eq!(m(&food["monthlyLimit"]), "250.00");

    let ended = app
        .ok(
            &h.user,
            "deleteBudget",
            json!({"categoryId": h.food, "from": "2026-05"}),
        )
        .await;
    assert_eq!(ended["amount"], Value::Null);
    assert_eq!(m(&h.budget(&app, "2026-04").await["amount"]), "250.00");
    assert_eq!(h.budget(&app, "2026-05").await, Value::Null);
    assert_eq!(h.budget(&app, "2027-01").await, Value::Null);
    // Without `from`, this month.
    app.ok(&h.user, "deleteBudget", json!({"categoryId": h.food}))
        .await;
    assert_eq!(h.budget(&app, "2026-03").await, Value::Null);
    assert_eq!(m(&h.budget(&app, "2026-02").await["amount"]), "400.00");
}

#[tokio::test]
async fn spent_is_the_dashboards_category_sum_with_a_subscription_in_dollars() {
    let app = spawn_app().await;
    let h = household(&app).await;
    let usd = app.account(&h.user, "US", "USD").await;
    app.ok(
        &h.user,
        "createExpense",
        json!({"name": "Meal kit", "amount": "59.99", "currency": "USD", "frequency": "monthly", "startDate": "2026-01-07", "accountId": usd, "categoryId": h.food, "isSubscription": true}),
    )
    .await;
    app.ok(
        &h.user,
        "createExpense",
        json!({"name": "Vorrat", "amount": "120", "frequency": "yearly", "startDate": "2026-06-01", "accountId": h.giro, "categoryId": h.food}),
    )
    .await;
    h.spend(&app, "45.30", "2026-03-02").await;
    h.spend(&app, "12.05", "2026-03-28").await;
    h.spend(&app, "99", "2026-04-01").await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": "300"}),
    )
    .await;

    let dashboard = app
        .ok(&h.user, "getDashboard", json!({"year": 2026, "month": 3}))
        .await;
    let on_dashboard = m(&dashboard["byCategory"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["categoryId"] == h.food.as_str())
        .unwrap()["amount"]);
    let budget = h.budget(&app, "2026-03").await;
    assert_eq!(m(&budget["spent"]), on_dashboard);
    // 45.30 + 12.05 and the dollar subscription converted, not the yearly
    // item of June nor April's purchase.
    let rate = app.state.rates.current().rate("USD").unwrap();
    let dollars = (rust_decimal::Decimal::new(5999, 2) / rate).round_dp(2);
    let expected = rust_decimal::Decimal::new(5735, 2) + dollars;
    let spent: rust_decimal::Decimal = m(&budget["spent"]).parse().unwrap();
    assert!(
        (spent - expected).abs() <= rust_decimal::Decimal::new(1, 2),
        "{spent} vs {expected}"
    );
}

/// The dashboard keeps its figures while the user's data stands still;
/// a budget change, a purchase or a write by another process shows at once.
#[tokio::test]
async fn the_dashboard_shows_each_change_at_once() {
    let app = spawn_app().await;
    let h = household(&app).await;
    let dashboard = || async {
        let page = app.get("/?month=2026-03", Some(&h.user.cookie)).await;
        assert_eq!(page.status(), 200);
        page.text().await.unwrap()
    };
    assert!(!dashboard().await.contains("300.00"));
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": "300"}),
    )
    .await;
    let page = dashboard().await;
    assert!(page.contains("300.00"), "the new budget is shown");
    assert!(dashboard().await.contains("300.00"), "and kept");
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": "275.50"}),
    )
    .await;
    let page = dashboard().await;
    assert!(page.contains("275.50") && !page.contains("300.00"));
    h.spend(&app, "75.50", "2026-03-03").await;
    assert!(
        dashboard().await.contains("200.00"),
        "what is left after the purchase"
    );
    // A write that passes by the app, as the CLI or a second process would.
    app.state
        .db
        .run(|c| {
            c.execute("DELETE FROM budgets", [])?;
            Ok(())
        })
        .await
        .unwrap();
    assert!(!dashboard().await.contains("275.50"));
}

#[tokio::test]
async fn percent_and_status_at_79_80_100_and_101_percent() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100}),
    )
    .await;
    let mut expect = Vec::new();
    for (add, percent, status) in [
        ("79", 79, "ok"),
        ("1", 80, "near"),
        ("20", 100, "near"),
        ("1", 101, "over"),
    ] {
        h.spend(&app, add, "2026-03-05").await;
        let b = h.budget(&app, "2026-03").await;
        expect.push((b["percent"].clone(), b["status"].clone()));
        assert_eq!(
            (b["percent"].clone(), b["status"].clone()),
            (json!(percent), json!(status)),
            "{expect:?}"
        );
    }
}

#[tokio::test]
async fn bad_input_is_refused_naming_the_field_and_another_users_category_is_unknown() {
    let app = spawn_app().await;
    let h = household(&app).await;
    let other = app.new_user().await;
    let theirs = app
        .ok(&other, "createCategory", json!({"name": "Fremd"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    for (body, field) in [
        (json!({"categoryId": theirs, "amount": 100}), "categoryId"),
        (json!({"categoryId": "nope", "amount": 100}), "categoryId"),
        (json!({"amount": 100}), "categoryId"),
        (json!({"categoryId": h.food}), "amount"),
        (json!({"categoryId": h.food, "amount": 0}), "amount"),
        (json!({"categoryId": h.food, "amount": "-5"}), "amount"),
        (json!({"categoryId": h.food, "amount": "viel"}), "amount"),
        (
            json!({"categoryId": h.food, "amount": 100, "from": "2026-13"}),
            "from",
        ),
        (
            json!({"categoryId": h.food, "amount": 100, "from": "März"}),
            "from",
        ),
        (
            json!({"categoryId": h.food, "amount": 100, "from": "1899-12"}),
            "from",
        ),
        (
            json!({"categoryId": h.food, "amount": 100, "rollover": "yes"}),
            "rollover",
        ),
    ] {
        let err = app.refused(&h.user, "setBudget", body.clone()).await;
        assert!(err.starts_with(&format!("{field}:")), "{body} → {err}");
    }
    let err = app
        .refused(&h.user, "deleteBudget", json!({"categoryId": theirs}))
        .await;
    assert!(err.starts_with("categoryId:"), "{err}");
    // Months from 1900 to 2200, as everywhere: a rolled-over budget's
    // months are walked from the start of its run.
    for month in ["2026-3x", "2201-01", "9999-12"] {
        let err = app
            .refused(&h.user, "listBudgets", json!({"month": month}))
            .await;
        assert!(err.starts_with("month:"), "{month} → {err}");
    }
    // Nothing was written for either user.
    assert_eq!(
        app.ok(&h.user, "listBudgets", json!({})).await["budgets"],
        json!([])
    );
    assert_eq!(
        app.ok(&other, "listBudgets", json!({})).await["budgets"],
        json!([])
    );
    // And the other user never sees this one's budgets.
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100}),
    )
    .await;
    assert_eq!(
        app.ok(&other, "listBudgets", json!({})).await["budgets"],
        json!([])
    );
}

#[tokio::test]
async fn a_categorys_monthly_limit_is_its_budget_and_deleting_the_category_removes_it() {
    let app = spawn_app().await;
    set_today(&app);
    let user = app.new_user().await;
    let k = app
        .ok(
            &user,
            "createCategory",
            json!({"name": "Freizeit", "monthlyLimit": "80"}),
        )
        .await;
    assert_eq!(m(&k["monthlyLimit"]), "80.00");
    let id = k["id"].as_str().unwrap().to_string();
    let list = app.ok(&user, "listBudgets", json!({})).await;
    assert_eq!(list["budgets"][0]["categoryId"], id.as_str());
    assert_eq!(m(&list["budgets"][0]["amount"]), "80.00");
    // Months before this one are as they were.
    let feb = app
        .ok(&user, "listBudgets", json!({"month": "2026-02"}))
        .await;
    assert_eq!(feb["budgets"], json!([]));
    let k = app
        .ok(
            &user,
            "updateCategory",
            json!({"id": id, "monthlyLimit": null}),
        )
        .await;
    assert_eq!(k["monthlyLimit"], Value::Null);
    assert_eq!(
        app.ok(&user, "listBudgets", json!({})).await["budgets"],
        json!([])
    );

    app.ok(
        &user,
        "setBudget",
        json!({"categoryId": id, "amount": 50, "from": "2026-01"}),
    )
    .await;
    app.ok(&user, "deleteCategory", json!({"id": id})).await;
    for month in ["2026-01", "2026-03"] {
        let list = app.ok(&user, "listBudgets", json!({"month": month})).await;
        assert_eq!(list["budgets"], json!([]), "{month}");
    }
}

#[tokio::test]
async fn a_blank_month_is_this_one_and_the_page_shows_it_for_a_bad_one() {
    let app = spawn_app().await;
    let h = household(&app).await;
    for (month, read) in [("", "2026-03"), ("  ", "2026-03"), (" 2026-02 ", "2026-02")] {
        let list = app
            .ok(&h.user, "listBudgets", json!({"month": month}))
            .await;
        assert_eq!(list["month"], read, "{month:?}");
    }
    let err = app
        .refused(
            &h.user,
            "setBudget",
            json!({"categoryId": h.food, "amount": "10", "from": "2026-13"}),
        )
        .await;
    assert!(err.starts_with("from:"), "{err}");
    let set = app
        .ok(
            &h.user,
            "setBudget",
            json!({"categoryId": h.food, "amount": "10", "from": " "}),
        )
        .await;
    assert_eq!(set["from"], "2026-03");
    for (query, shown) in [
        ("", "March 2026"),
        ("?month=", "March 2026"),
        ("?month=2026-13", "March 2026"),
        ("?month=2026-02", "February 2026"),
    ] {
        let page = app.page(&h.user, &format!("/budgets{query}")).await;
        assert!(
            page.contains(&format!("<strong>{shown}</strong>")),
            "{query}"
        );
    }
}

#[tokio::test]
async fn the_rest_api_answers_a_months_budgets_and_refuses_bad_months() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": "400", "from": "2026-02"}),
    )
    .await;
    h.spend(&app, "124.50", "2026-03-03").await;
    let token = app.token(&h.user, json!(30)).await;

    let now = app.api_json("/budgets", &token).await;
    assert_eq!(
        now,
        json!({"month": "2026-03", "currency": "EUR", "budgets": [{
            "categoryId": h.food, "category": "Lebensmittel", "icon": "🛒",
            "budget": 400.00, "available": 400.00, "spent": 124.50, "remaining": 275.50,
            "percent": 31, "status": "ok"
        }]})
    );
    let feb = app.api_json("/budgets?month=2026-02", &token).await;
    assert_eq!(m(&feb["budgets"][0]["spent"]), "0.00");
    let jan = app.api_json("/budgets?month=2026-01", &token).await;
    assert_eq!(jan["budgets"], json!([]));

    for bad in [
        "2026-3",
        "2026-13",
        "march",
        "2026-03-01",
        "",
        "2201-01",
        "1899-12",
        "9999-12",
    ] {
        let res = app.api(&format!("/budgets?month={bad}"), &token).await;
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_request");
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("month:"));
    }
    let anonymous = app
        .client
        .get(app.url("/api/v1/budgets"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    let wrong = app.api("/budgets", "csk_not_a_token").await;
    assert_eq!(wrong.status(), 401);
}

#[tokio::test]
async fn the_insight_and_the_push_come_once_per_category_and_month_in_both_languages() {
    let (base, received) = push_service().await;
    let keys = vapid();
    let app = spawn_app_with(move |c| {
        c.vapid = Some(keys);
        c.push_allow_loopback_http = true;
        c.cron_secret = Some(Secret::new("k"));
    })
    .await;
    let h = household(&app).await;
    let de = app.new_user().await;
    app.ok(&de, "updateSettings", json!({"locale": "de"})).await;
    let de_giro = app.account(&de, "Giro", "EUR").await;
    let de_food = app
        .ok(&de, "createCategory", json!({"name": "Essen gehen"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut browsers = Vec::new();
    for (user, category) in [(&h.user, &h.food), (&de, &de_food)] {
        app.ok(
            user,
            "setBudget",
            json!({"categoryId": category, "amount": 100}),
        )
        .await;
        let keys = BrowserKeys::new();
        let endpoint = format!("{base}/push/ok-{}", browsers.len());
        assert_eq!(
            subscribe(&app, &user.cookie, &keys.json(&endpoint))
                .await
                .status(),
            201
        );
        browsers.push(keys);
    }
    h.spend(&app, "85", "2026-03-02").await;
    app.ok(&de, "createDailyExpense", json!({"name": "Pizza", "amount": "130", "date": "2026-03-04", "accountId": de_giro, "categoryId": de_food}))
        .await;

    let cron = |path: &'static str| {
        let req = app
            .client
            .get(app.url(&format!("/api/cron/{path}")))
            .header("authorization", "Bearer k");
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    for _ in 0..2 {
        assert_eq!(cron("insights").await["success"], true);
        assert_eq!(cron("upcoming-payments").await["success"], true);
    }

    let warnings = |list: Value| -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "budget_warning" && i["metadata"]["categoryId"].is_string())
            .cloned()
            .collect()
    };
    let near = warnings(app.ok(&h.user, "listInsights", json!({})).await);
    assert_eq!(near.len(), 1, "once: {near:?}");
    assert_eq!(near[0]["severity"], "warning");
    assert_eq!(near[0]["metadata"]["amount"], "85.00");
    assert_eq!(near[0]["metadata"]["limit"], "100.00");
    let over = warnings(app.ok(&de, "listInsights", json!({})).await);
    assert_eq!(over.len(), 1, "once: {over:?}");
    assert_eq!(over[0]["severity"], "critical");
    assert_eq!(over[0]["title"], "Budget überschritten: Essen gehen");
    assert_eq!(
        over[0]["message"],
        "Für Essen gehen hast du in diesem Monat 130,00 € von 100,00 € ausgegeben."
    );
    let html = app
        .get("/insights", Some(&h.user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Budget nearly used: Lebensmittel"), "{html}");

    // One push, to the German user over budget, though the job ran twice.
    let pushes = received.lock().unwrap().clone();
    assert_eq!(
        pushes.len(),
        1,
        "{:?}",
        pushes.iter().map(|p| &p.path).collect::<Vec<_>>()
    );
    let keys = &browsers[1];
    let mut secret = web_push_native::Auth::default();
    secret.copy_from_slice(&keys.auth);
    let plain = web_push_native::decrypt(pushes[0].body.clone(), &keys.secret, &secret)
        .expect("sent to the German user's browser");
    let payload: Value = serde_json::from_slice(&plain).unwrap();
    assert_eq!(payload["title"], "Budget überschritten: Essen gehen");
    assert_eq!(
        payload["body"],
        "Diesen Monat 130,00\u{a0}€ von 100,00\u{a0}€ ausgegeben."
    );
    assert_eq!(payload["url"], "/budgets");
    // Spending more the same month pushes nothing new.
    app.ok(&de, "createDailyExpense", json!({"name": "Sushi", "amount": "40", "date": "2026-03-05", "accountId": de_giro, "categoryId": de_food}))
        .await;
    cron("upcoming-payments").await;
    assert_eq!(received.lock().unwrap().len(), 1);
    // A new month is a new warning.
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 4, 2, 12, 0, 0).unwrap());
    app.ok(&de, "createDailyExpense", json!({"name": "Pizza", "amount": "101", "date": "2026-04-01", "accountId": de_giro, "categoryId": de_food}))
        .await;
    cron("upcoming-payments").await;
    assert_eq!(received.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_checking_accounts_forecast_takes_off_the_budgets_of_the_categories_it_pays() {
    let app = spawn_app().await;
    let h = household(&app).await;
    for (amount, date) in [
        ("300", "2025-12-10"),
        ("320", "2026-01-10"),
        ("340", "2026-02-10"),
    ] {
        h.spend(&app, amount, date).await;
    }
    let path = format!("/forecasts?account={}", h.giro);
    let page = || async {
        app.get(&path, Some(&h.user.cookie))
            .await
            .text()
            .await
            .unwrap()
    };
    let learned = page().await;
    assert!(
        learned.contains("Everyday spending: €320.00 a month expected, from the one-time expenses"),
        "{learned}"
    );
    assert!(!learned.contains("from your budgets"));

    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 400}),
    )
    .await;
    let planned = page().await;
    assert!(
        planned.contains(
            "Everyday spending: €400.00 a month expected, from your budgets (Lebensmittel €400.00)"
        ),
        "{planned}"
    );
    // The expected balance takes the budget off: 1,000 today, 400 a month.
    assert!(planned.contains("€400.00"), "{planned}");
}

/// A budget overspent by an expense just saved is under Insights at once,
/// as on the dashboard, not only after the next morning's job; once, however
/// often an expense is saved, and the job adds no second one.
#[tokio::test]
async fn a_budget_overspent_by_an_expense_just_saved_is_an_insight_at_once() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100}),
    )
    .await;
    let warnings = |list: Value| -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "budget_warning" && i["metadata"]["categoryId"] == h.food)
            .cloned()
            .collect()
    };
    h.spend(&app, "40", "2026-03-10").await;
    assert_eq!(
        warnings(app.ok(&h.user, "listInsights", json!({})).await),
        Vec::<Value>::new(),
        "40 of 100 is no warning"
    );
    h.spend(&app, "75", "2026-03-15").await;
    let over = warnings(app.ok(&h.user, "listInsights", json!({})).await);
    assert_eq!(over.len(), 1, "{over:?}");
    assert_eq!(over[0]["severity"], "critical");
    assert_eq!(over[0]["metadata"]["amount"], "115.00");
    assert_eq!(over[0]["metadata"]["limit"], "100.00");
    h.spend(&app, "5", "2026-03-15").await;
    cashkeeper::app::insights::run(&app.state).await;
    assert_eq!(
        warnings(app.ok(&h.user, "listInsights", json!({})).await).len(),
        1
    );
}

/// The budget warnings of `user` for `category`.
async fn budget_warnings(app: &TestApp, user: &TestUser, category: &str) -> Vec<Value> {
    app.ok(user, "listInsights", json!({}))
        .await
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "budget_warning" && i["metadata"]["categoryId"] == category)
        .cloned()
        .collect()
}

/// An import confirmed books expenses as a save does: a budget they
/// overspend is under Insights at once, not after the morning's job.
#[tokio::test]
async fn a_budget_overspent_by_a_confirmed_import_is_an_insight_at_once() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100}),
    )
    .await;
    let csv =
        "Datum;Betrag;Empfänger\n10.03.2026;-80,00;Markthalle\n12.03.2026;-45,50;Markthalle\n";
    let batch = app
        .ok(
            &h.user,
            "stageImport",
            json!({"accountId": h.giro, "fileName": "m.csv", "csv": csv,
                   "mapping": {"date": "Datum", "amount": "Betrag", "payee": "Empfänger"}}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let rows = app
        .ok(&h.user, "getImport", json!({"id": batch, "limit": 10}))
        .await["rows"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(rows.len(), 2);
    for row in &rows {
        app.ok(
            &h.user,
            "setImportRowCategory",
            json!({"id": batch, "rowId": row["id"], "categoryId": h.food}),
        )
        .await;
    }
    assert_eq!(
        budget_warnings(&app, &h.user, &h.food).await,
        Vec::<Value>::new()
    );
    app.ok(&h.user, "confirmImport", json!({"id": batch})).await;
    let over = budget_warnings(&app, &h.user, &h.food).await;
    assert_eq!(over.len(), 1, "{over:?}");
    assert_eq!(over[0]["severity"], "critical");
    assert_eq!(over[0]["metadata"]["amount"], "125.50");
    assert_eq!(over[0]["metadata"]["limit"], "100.00");
}

/// With rollover a budget's row shows the month's own amount beside what
/// was carried, and how much of what is available is spent in percent.
#[tokio::test]
async fn a_rollover_budget_row_shows_the_months_own_amount_and_a_percent() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(&h.user, "updateSettings", json!({"locale": "de"}))
        .await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100, "rollover": true, "from": "2026-02"}),
    )
    .await;
    h.spend(&app, "40", "2026-02-10").await;
    h.spend(&app, "80", "2026-03-10").await;
    let page = app
        .get("/budgets?month=2026-03", Some(&h.user.cookie))
        .await
        .text()
        .await
        .unwrap()
        .replace('\u{a0}', " ");
    assert!(page.contains("80,00 € von 160,00 € ausgegeben"), "{page}");
    assert!(
        page.contains("100,00 € im Monat + 60,00 € übertragen"),
        "the month's own amount beside what was carried: {page}"
    );
    assert!(
        page.contains("<span class=\"budget-percent\">50 %</span>"),
        "the percent spent: {page}"
    );
}

/// A budget insight links to its budget (the row has that anchor) and to
/// the category's one-time expenses of the month.
#[tokio::test]
async fn a_budget_insight_links_to_the_budget_and_the_categorys_expenses() {
    let app = spawn_app().await;
    let h = household(&app).await;
    app.ok(
        &h.user,
        "setBudget",
        json!({"categoryId": h.food, "amount": 100}),
    )
    .await;
    h.spend(&app, "120", "2026-03-10").await;
    let insights = app
        .get("/insights", Some(&h.user.cookie))
        .await
        .text()
        .await
        .unwrap();
    let to_budget = format!("/budgets?month=2026-03#budget-{}", h.food);
    let to_entries = format!("/daily-expenses?month=2026-03&amp;category={}", h.food);
    assert!(
        insights.contains(&format!("href=\"{to_budget}\"")),
        "{insights}"
    );
    assert!(
        insights.contains(&format!("href=\"{to_entries}\"")),
        "{insights}"
    );
    let budgets = app
        .get("/budgets?month=2026-03", Some(&h.user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        budgets.contains(&format!("id=\"budget-{}\"", h.food)),
        "{budgets}"
    );
    let entries = app
        .get(&to_entries.replace("&amp;", "&"), Some(&h.user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(entries.contains("Einkauf"), "{entries}");
}
