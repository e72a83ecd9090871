//! The cron routes, the insights job, the insight actions and page, and
//! the bundled scheduler's configuration.

use crate::support::*;
use cashkeeper::config::{Schedule, Secret};
use chrono::{TimeZone, Utc};
use reqwest::StatusCode;
use serde_json::{json, Value};

async fn cron(app: &TestApp, path: &str, auth: Option<&str>) -> reqwest::Response {
    let mut req = app.client.get(app.url(&format!("/api/cron/{path}")));
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn cron_routes_need_the_configured_secret() {
    let unset = spawn_app().await;
    for path in ["upcoming-payments", "insights"] {
        let res = cron(&unset, path, Some("Bearer anything")).await;
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(res.text().await.unwrap(), "CRON_SECRET not configured");
    }
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("s3cret-value"))).await;
    for path in ["upcoming-payments", "insights"] {
        for auth in [
            None,
            Some("Bearer wrong"),
            Some("s3cret-value"),
            Some("Bearer s3cret-valuex"),
            Some("Basic s3cret-value"),
        ] {
            let res = cron(&app, path, auth).await;
            assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path} {auth:?}");
            assert_eq!(res.text().await.unwrap(), "Unauthorized");
        }
        let post = app
            .client
            .post(app.url(&format!("/api/cron/{path}")))
            .header("authorization", "Bearer s3cret-value")
            .send()
            .await
            .unwrap();
        assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED, "{path}");
    }
    let ok: Value = cron(&app, "insights", Some("Bearer s3cret-value"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        ok,
        json!({"success": true, "totalGenerated": 0, "users": 0, "failed": 0})
    );
    let ok: Value = cron(&app, "upcoming-payments", Some("Bearer s3cret-value"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(ok, json!({"success": true, "notified": 0, "total": 0}));
}

#[tokio::test]
async fn upcoming_payments_counts_tomorrows_expenses_and_notifies_nobody_without_push_keys() {
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("k"))).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 1, 30, 20, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    // Due on 31 Jan: the monthly item from the 31st and the yearly one; not the one due on the 30th.
    for (name, freq, start) in [
        ("Miete", "monthly", "2024-12-31"),
        ("Beitrag", "yearly", "2024-01-31"),
        ("Heute", "monthly", "2024-12-30"),
    ] {
        app.ok(&user, "createExpense", json!({"name": name, "amount": 10, "frequency": freq, "startDate": start, "accountId": a})).await;
    }
    let body: Value = cron(&app, "upcoming-payments", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body, json!({"success": true, "notified": 0, "total": 2}));
}

#[tokio::test]
async fn the_insights_job_finds_stores_and_does_not_duplicate_and_one_failing_user_does_not_stop_it(
) {
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("k"))).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 6, 20, 6, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    // This month: 500 in, 950 rent out; and a subscription due in two days.
    app.ok(&user, "createIncome", json!({"name": "Minijob", "amount": 500, "frequency": "monthly", "startDate": "2025-06-01", "accountId": a})).await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2025-06-01", "accountId": a})).await;
    app.ok(&user, "createExpense", json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly", "startDate": "2025-05-22", "accountId": a, "isSubscription": true})).await;
    // A second user whose data cannot be read fails alone.
    let broken = app.new_user().await;
    let b = app.account(&broken, "Giro", "EUR").await;
    let bid = broken.id.clone();
    app.state
        .db
        .run(move |c| {
            c.execute(
                "INSERT INTO expenses (id, user_id, name, amount_cents, currency, frequency, start_date, account_id, created_at, updated_at)
                 VALUES ('bad', ?1, 'x', 100, 'EUR', 'monthly', 'not a date', ?2, '', '')",
                [&bid, &b],
            )?;
            Ok(())
        })
        .await
        .unwrap();

    let first: Value = cron(&app, "insights", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(first["success"], true);
    assert_eq!(first["users"], 2);
    assert_eq!(first["failed"], 1);
    assert_eq!(first["totalGenerated"], 2, "{first}");
    let second: Value = cron(&app, "insights", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(second["totalGenerated"], 0, "still current: not again");

    let list = app.ok(&user, "listInsights", json!({})).await;
    let items = list.as_array().unwrap();
    let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"budget_warning") && kinds.contains(&"subscription_alert"),
        "{kinds:?}"
    );
    let budget = items
        .iter()
        .find(|i| i["type"] == "budget_warning")
        .unwrap();
    assert_eq!(budget["severity"], "critical");
    assert!(
        budget["title"].as_str().unwrap().contains("Ausgaben"),
        "stored in German"
    );
    // 950 rent + 13.99 Netflix against 500.
    assert_eq!(budget["metadata"]["shortfall"], "463.99");
    assert!(budget["expiresAt"]
        .as_str()
        .unwrap()
        .starts_with("2025-07-01"));
    assert_eq!(budget["isRead"], false);

    // The page speaks English from the metadata, German as stored.
    let html = app
        .get("/insights", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains("More expenses than income") && html.contains("€463.99"),
        "{html}"
    );
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let html = app
        .get("/insights", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Mehr Ausgaben als Einnahmen"));

    // Read, dismissed, and another user's id is not found.
    let id = budget["id"].clone();
    let t = app.token(&user, Value::Null).await;
    assert_eq!(
        app.api_json("/insights", &t).await["insights"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    app.ok(&user, "markInsightRead", json!({"id": id})).await;
    assert_eq!(
        app.api_json("/insights", &t).await["insights"]
            .as_array()
            .unwrap()
            .len(),
        1,
        "read ones are not unread"
    );
    let other = app.new_user().await;
    assert_eq!(
        app.refused(&other, "dismissInsight", json!({"id": id}))
            .await,
        "not found"
    );
    assert_eq!(
        app.refused(&other, "markInsightRead", json!({"id": id}))
            .await,
        "not found"
    );
    app.ok(&user, "dismissInsight", json!({"id": id})).await;
    let list = app.ok(&user, "listInsights", json!({})).await;
    assert!(list.as_array().unwrap().iter().all(|i| i["id"] != id));
    // Dismissed and still current: the next run does not bring it back.
    let third: Value = cron(&app, "insights", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(third["totalGenerated"], 0);
}

#[tokio::test]
async fn a_yearly_subscription_charge_is_planned_not_unusually_high_spending() {
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("k"))).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 11, 20, 6, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let cat = |name: &str| {
        cats.as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["id"]
            .clone()
    };
    let (subs, groceries) = (cat("Subscriptions"), cat("Groceries"));
    // Netflix every month; Amazon Prime once a year, due on 18 November.
    app.ok(&user, "createExpense", json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly", "startDate": "2025-01-05", "accountId": a, "categoryId": subs, "isSubscription": true})).await;
    app.ok(&user, "createExpense", json!({"name": "Amazon Prime", "amount": "89.90", "frequency": "yearly", "startDate": "2025-11-18", "accountId": a, "categoryId": subs, "isSubscription": true})).await;
    // Groceries: about 100 a month, and 320 this month.
    for (date, amount) in [
        ("2026-08-10", "100"),
        ("2026-09-10", "95"),
        ("2026-10-10", "105"),
        ("2026-11-10", "320"),
    ] {
        app.ok(&user, "createDailyExpense", json!({"name": "Rewe", "amount": amount, "date": date, "accountId": a, "categoryId": groceries})).await;
    }
    let run: Value = cron(&app, "insights", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(run["success"], true, "{run}");
    let list = app.ok(&user, "listInsights", json!({})).await;
    let anomalies: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "spending_anomaly")
        .collect();
    // 13.99 + 89.90 in November against 13.99 before is no surprise: the
    // yearly charge was planned. The groceries are unusual.
    assert_eq!(anomalies.len(), 1, "{list}");
    let m = &anomalies[0]["metadata"];
    assert_eq!(m["categoryName"], "Groceries");
    assert_eq!(m["amount"], "320.00");
    assert_eq!(m["average"], "100.00");
    let html = app.page(&user, "/insights").await;
    assert!(html.contains("in one-time expenses on Groceries"), "{html}");
    assert!(!html.contains("Unusually high spending: Subscriptions"));
}

#[tokio::test]
async fn the_bundled_scheduler_starts_with_valid_schedules_and_can_be_off() {
    let on = spawn_app_with(|c| {
        c.notification_schedule = Schedule::Cron("*/5 * * * *".into());
        c.insights_schedule = Schedule::Cron("0 6 * * *".into());
    })
    .await;
    assert_eq!(on.get("/api/v1/health", None).await.status(), 200);
    on.stop().await;
    let off = spawn_app().await;
    assert_eq!(off.get("/api/v1/health", None).await.status(), 200);
}

#[tokio::test]
async fn a_subscription_price_change_is_remembered_and_pointed_out() {
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("k"))).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 6, 10, 6, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let id = app
        .ok(&user, "createExpense", json!({"name": "Spotify", "amount": "10.99", "frequency": "monthly", "startDate": "2025-01-01", "accountId": a, "isSubscription": true}))
        .await["id"]
        .clone();
    let unchanged = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id, "notes": "Familie"}),
        )
        .await;
    assert_eq!(
        unchanged["previousAmount"],
        Value::Null,
        "only an amount change counts"
    );
    let changed = app
        .ok(&user, "updateExpense", json!({"id": id, "amount": "12.99"}))
        .await;
    assert_eq!(changed["previousAmount"].as_f64(), Some(10.99));
    assert!(changed["amountChangedAt"]
        .as_str()
        .unwrap()
        .starts_with("2025-06-10"));
    let run: Value = cron(&app, "insights", Some("Bearer k"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        run["totalGenerated"], 2,
        "the price change, and a month with no income"
    );
    let list = app.ok(&user, "listInsights", json!({})).await;
    let alert = list
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "subscription_alert")
        .unwrap();
    assert_eq!(alert["metadata"]["change"], "up");
    assert_eq!(alert["metadata"]["previousAmount"], "10.99");
    let html = app
        .get("/insights", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Spotify gets more expensive"), "{html}");
}

#[tokio::test]
async fn a_price_change_is_pointed_out_from_the_day_it_applies_and_a_correction_never() {
    let app = spawn_app_with(|c| c.cron_secret = Some(Secret::new("k"))).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 6, 10, 6, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let id = app
        .ok(&user, "createExpense", json!({"name": "Spotify", "amount": "10.99", "frequency": "monthly", "startDate": "2025-01-01", "accountId": a, "isSubscription": true}))
        .await["id"]
        .clone();
    async fn price_alerts(app: &TestApp, user: &TestUser) -> Vec<Value> {
        cron(app, "insights", Some("Bearer k")).await;
        app.ok(user, "listInsights", json!({}))
            .await
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| {
                i["type"] == "subscription_alert" && !i["metadata"]["previousAmount"].is_null()
            })
            .cloned()
            .collect()
    }
    // A correction from the start is no price change.
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id, "amount": "11.99", "amountFrom": "2025-01-01"}),
    )
    .await;
    assert!(price_alerts(&app, &user).await.is_empty());
    // A raise announced for July: nothing yet in June.
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id, "amount": "13.99", "amountFrom": "2025-07-01"}),
    )
    .await;
    assert!(price_alerts(&app, &user).await.is_empty());
    // From the day it applies, it is pointed out, with the amount before it.
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 7, 2, 6, 0, 0).unwrap());
    let alerts = price_alerts(&app, &user).await;
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["metadata"]["previousAmount"], "11.99");
    assert_eq!(alerts[0]["metadata"]["change"], "up");
}
