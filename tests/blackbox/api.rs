//! The REST API /api/v1 and its tokens: every endpoint, parameter
//! boundaries, token states, rate limit, headers, and hand-worked numbers.

use crate::support::*;
use chrono::{TimeZone, Utc};
use reqwest::StatusCode;
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// Asserts an API error: status, code, no-store, and for 400 the field.
async fn expect_error(res: reqwest::Response, status: StatusCode, code: &str, field: Option<&str>) {
    assert_eq!(res.status(), status);
    assert_eq!(res.headers()["cache-control"], "no-store");
    if status == StatusCode::UNAUTHORIZED {
        assert_eq!(
            res.headers()["www-authenticate"],
            "Bearer realm=\"cashkeeper\""
        );
    }
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], code, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    if let Some(f) = field {
        assert!(
            message.starts_with(&format!("{f}: ")),
            "message names {f}: {message}"
        );
    }
}

fn m(v: &Value) -> String {
    format!(
        "{:.2}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap()
}

#[tokio::test]
async fn a_token_is_shown_once_stored_hashed_listed_and_revoked() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let created = app
        .action(
            "createApiToken",
            json!({"name": "HA", "expiresInDays": 90, "password": user.password}),
            Some(&user.cookie),
        )
        .await;
    let data = created.data();
    let token = data["token"].as_str().unwrap();
    assert!(token.starts_with("csk_") && token.len() == 68);
    assert!(token[4..]
        .chars()
        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)));
    assert!(data["expiresAt"].is_string());
    let list = app
        .action("listApiTokens", json!({}), Some(&user.cookie))
        .await;
    let first = &list.data()[0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        vec!["createdAt", "expiresAt", "id", "lastUsedAt", "name"]
    );
    assert!(!list.body.to_string().contains(token));
    let stored: String = app
        .state
        .db
        .run(|c| Ok(c.query_row("SELECT token_hash FROM api_tokens", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(stored, cashkeeper::auth::secrets::sha256_hex(token));

    assert_eq!(
        app.api_json("/me", token).await["email"],
        user.email.as_str()
    );
    app.action(
        "revokeApiToken",
        json!({"id": first["id"]}),
        Some(&user.cookie),
    )
    .await
    .data();
    expect_error(
        app.api("/me", token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        None,
    )
    .await;
    assert_eq!(
        app.action("listApiTokens", json!({}), Some(&user.cookie))
            .await
            .data(),
        &json!([])
    );
}

#[tokio::test]
async fn token_lifetimes_are_thirty_ninety_365_days_or_never() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for ok in [json!(30), json!(90), json!(365), Value::Null] {
        let r = app
            .action(
                "createApiToken",
                json!({"name": "x", "expiresInDays": ok, "password": user.password}),
                Some(&user.cookie),
            )
            .await;
        assert!(r.ok(), "{ok}: {}", r.body);
    }
    for bad in [json!(7), json!(0), json!(-30), json!("soon"), json!(30.5)] {
        let r = app
            .action(
                "createApiToken",
                json!({"name": "x", "expiresInDays": bad}),
                Some(&user.cookie),
            )
            .await;
        assert!(
            r.error().unwrap().starts_with("expiresInDays: "),
            "{bad}: {}",
            r.body
        );
    }
    let r = app
        .action(
            "createApiToken",
            json!({"expiresInDays": 30}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("name: is required"));
    let other = app.new_user().await;
    let id = app
        .action("listApiTokens", json!({}), Some(&user.cookie))
        .await
        .data()[0]["id"]
        .clone();
    let r = app
        .action("revokeApiToken", json!({"id": id}), Some(&other.cookie))
        .await;
    assert_eq!(r.error(), Some("not found"));
}

#[tokio::test]
async fn missing_malformed_unknown_and_expired_tokens_are_401_with_the_realm() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let token = app.token(&user, json!(30)).await;
    let hex = &token[4..];
    let no_header = app.client.get(app.url("/api/v1/me")).send().await.unwrap();
    expect_error(no_header, StatusCode::UNAUTHORIZED, "unauthorized", None).await;
    for header in [
        format!("Basic {token}"),
        format!("Bearer cks_{hex}"),
        format!("Bearer csk_{}", &hex[..63]),
        format!("Bearer csk_{hex}0"),
        format!("Bearer csk_{}", hex.to_uppercase()),
        format!("Bearer {hex}"),
        format!("Bearer csk_{}", "0".repeat(64)),
        "Bearer".to_string(),
    ] {
        let res = app
            .client
            .get(app.url("/api/v1/summary"))
            .header("authorization", &header)
            .send()
            .await
            .unwrap();
        expect_error(res, StatusCode::UNAUTHORIZED, "unauthorized", None).await;
    }
    assert_eq!(app.api("/me", &token).await.status(), 200);
    let forever = app.token(&user, Value::Null).await;
    app.state
        .clock
        .advance(chrono::Duration::days(30) + chrono::Duration::seconds(1));
    expect_error(
        app.api("/me", &token).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        None,
    )
    .await;
    app.state.clock.advance(chrono::Duration::days(3650));
    assert_eq!(app.api("/me", &forever).await.status(), 200);
}

#[tokio::test]
async fn a_token_whose_user_is_gone_is_404() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let token = app.token(&user, Value::Null).await;
    let id = user.id.clone();
    // The user row disappears while the token row survives (as in a race with
    // the deletion); the API must say not_found, not leak or crash.
    app.state
        .db
        .run(move |c| {
            c.execute_batch("PRAGMA foreign_keys = OFF")?;
            c.execute("DELETE FROM users WHERE id = ?1", [&id])?;
            c.execute_batch("PRAGMA foreign_keys = ON")?;
            Ok(())
        })
        .await
        .unwrap();
    expect_error(
        app.api("/me", &token).await,
        StatusCode::NOT_FOUND,
        "not_found",
        None,
    )
    .await;
}

#[tokio::test]
async fn health_needs_no_token_and_unknown_paths_and_methods_are_json() {
    let app = spawn_app().await;
    let res = app.api("/health", "csk_garbage").await;
    assert_eq!(res.status(), 200);
    expect_error(
        app.api("/nope", "x").await,
        StatusCode::NOT_FOUND,
        "not_found",
        None,
    )
    .await;
    let post = app
        .client
        .post(app.url("/api/v1/summary"))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.headers()["cache-control"], "no-store");
    let body: Value = post.json().await.unwrap();
    assert!(body["error"]["code"].is_string());
}

#[tokio::test]
async fn the_121st_request_in_a_minute_is_429_for_that_token_only() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (a, b) = (
        app.token(&user, Value::Null).await,
        app.token(&user, Value::Null).await,
    );
    for i in 0..120 {
        assert_eq!(app.api("/me", &a).await.status(), 200, "request {}", i + 1);
    }
    let limited = app.api("/me", &a).await;
    let retry: i64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    expect_error(limited, StatusCode::TOO_MANY_REQUESTS, "rate_limited", None).await;
    assert_eq!(
        app.api("/me", &b).await.status(),
        200,
        "other tokens are unaffected"
    );
    app.state.clock.advance(chrono::Duration::seconds(61));
    assert_eq!(app.api("/me", &a).await.status(), 200, "a slot freed");
}

#[tokio::test]
async fn query_parameters_are_checked_at_their_boundaries() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    for ok in [
        "/summary?upcomingDays=1",
        "/summary?upcomingDays=90",
        "/summary?forecastMonths=1",
        "/summary?forecastMonths=24",
        "/accounts?forecastMonths=1",
        "/accounts?forecastMonths=24",
        "/summary",
        "/accounts",
    ] {
        assert_eq!(app.api(ok, &t).await.status(), 200, "{ok}");
    }
    for (bad, field) in [
        ("/summary?upcomingDays=0", "upcomingDays"),
        ("/summary?upcomingDays=91", "upcomingDays"),
        ("/summary?upcomingDays=7.5", "upcomingDays"),
        ("/summary?upcomingDays=abc", "upcomingDays"),
        ("/summary?upcomingDays=", "upcomingDays"),
        ("/summary?forecastMonths=0", "forecastMonths"),
        ("/summary?forecastMonths=25", "forecastMonths"),
        ("/accounts?forecastMonths=0", "forecastMonths"),
        ("/accounts?forecastMonths=25", "forecastMonths"),
        ("/accounts?forecastMonths=-1", "forecastMonths"),
        ("/payments", "start"),
        ("/payments?start=2025-01-01", "end"),
        ("/payments?end=2025-01-01", "start"),
        ("/payments?start=2025-02-30&end=2025-03-01", "start"),
        ("/payments?start=2025-01-01&end=2025-02-30", "end"),
        ("/payments?start=20250101&end=2025-02-01", "start"),
        ("/payments?start=2025-02-01&end=2025-01-31", "end"),
        ("/payments?start=2025-01-01&end=2026-01-02", "end"),
    ] {
        expect_error(
            app.api(bad, &t).await,
            StatusCode::BAD_REQUEST,
            "invalid_request",
            Some(field),
        )
        .await;
    }
    // 365 days after start is the widest range.
    assert_eq!(
        app.api("/payments?start=2025-01-01&end=2026-01-01", &t)
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn another_users_token_never_sees_this_users_data() {
    let app = spawn_app().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let a = app.account(&alice, "Alices Konto", "EUR").await;
    let today = app.state.clock.today().to_string();
    app.ok(&alice, "createExpense", json!({"name": "Alices Miete", "amount": 900, "frequency": "monthly", "startDate": today, "accountId": a})).await;
    let t = app.token(&bob, Value::Null).await;
    for path in [
        "/me",
        "/summary?upcomingDays=90",
        "/accounts",
        "/insights",
        &format!("/payments?start={today}&end={today}"),
    ] {
        let body = app.api_json(path, &t).await.to_string();
        assert!(
            !body.contains("Alice") && !body.contains(&alice.id),
            "{path}: {body}"
        );
    }
}

/// A household on a known day: month-end dates, yearly, quarterly and weekly
/// items, an ended and a future item, subscriptions, a foreign currency.
pub(crate) async fn scenario(app: &TestApp, user: &TestUser) -> (String, String, String) {
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 3, 10, 12, 0, 0).unwrap());
    let new_account = |name: &'static str,
                       kind: &'static str,
                       currency: &'static str,
                       balance: &'static str| async move {
        app.ok(
            user,
            "createAccount",
            json!({"name": name, "type": kind, "currency": currency, "balance": balance}),
        )
        .await["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let giro = new_account("Giro", "checking", "EUR", "1000").await;
    let spar = new_account("Spar", "savings", "EUR", "5000").await;
    let us = new_account("US", "checking", "USD", "500").await;
    for (action, body) in [
        (
            "createIncome",
            json!({"name": "Salary", "amount": 3000, "frequency": "monthly", "startDate": "2025-01-31", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Rent", "amount": 950, "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Insurance", "amount": 600, "frequency": "yearly", "startDate": "2025-03-15", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Fee", "amount": 30, "frequency": "quarterly", "startDate": "2024-12-31", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Market", "amount": 10, "frequency": "weekly", "startDate": "2025-03-03", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Netflix", "amount": "12.99", "frequency": "monthly", "startDate": "2024-06-12", "accountId": giro, "isSubscription": true}),
        ),
        (
            "createExpense",
            json!({"name": "Gym", "amount": 25, "frequency": "monthly", "startDate": "2024-01-05", "endDate": "2025-02-05", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Car", "amount": 100, "frequency": "monthly", "startDate": "2025-05-01", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Cloud", "amount": 10, "frequency": "monthly", "startDate": "2025-01-11", "accountId": us, "isSubscription": true}),
        ),
        (
            "createTransfer",
            json!({"fromAccountId": giro, "toAccountId": spar, "amount": 200, "frequency": "monthly", "startDate": "2025-01-02"}),
        ),
        (
            "createDailyExpense",
            json!({"name": "Groceries", "amount": 50, "date": "2025-03-05", "accountId": giro}),
        ),
        (
            "createDailyExpense",
            json!({"name": "Groceries", "amount": 80, "date": "2025-03-12", "accountId": giro}),
        ),
    ] {
        app.ok(user, action, body).await;
    }
    (giro, spar, us)
}

#[tokio::test]
async fn the_summary_adds_up_a_hand_worked_household() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    scenario(&app, &user).await;
    let t = app.token(&user, Value::Null).await;
    let usd = |amount: &str| {
        app.state
            .rates
            .current()
            .convert(dec(amount), "USD", "EUR")
            .unwrap()
    };
    let cloud = usd("10");
    let s = app
        .api_json("/summary?upcomingDays=7&forecastMonths=3", &t)
        .await;
    assert_eq!(s["currency"], "EUR");
    assert_eq!(
        m(&s["totalAssets"]),
        format!("{:.2}", dec("6000") + usd("500"))
    );
    assert_eq!(s["hasMultiCurrency"], true);
    assert_eq!(
        (s["month"]["year"].clone(), s["month"]["month"].clone()),
        (json!(2025), json!(3))
    );
    // March, cashflow: salary on the 31st; rent, insurance (15th), fee (31st),
    // five Mondays of market, Netflix, Cloud, both groceries.
    let march_out =
        dec("950") + dec("600") + dec("30") + dec("50") + dec("12.99") + cloud + dec("130");
    let cash = &s["month"]["cashflow"];
    assert_eq!(m(&cash["income"]), "3000.00");
    assert_eq!(m(&cash["expenses"]), format!("{march_out:.2}"));
    assert_eq!(
        m(&cash["surplus"]),
        format!("{:.2}", dec("3000") - march_out)
    );
    // February: salary (28th); rent, Netflix, Cloud, and the gym's last month.
    let feb_out = dec("950") + dec("12.99") + cloud + dec("25");
    assert_eq!(cash["incomeChangePct"].as_f64(), Some(0.0));
    let pct = ((march_out - feb_out) / feb_out * dec("100")).round_dp(1);
    assert_eq!(
        format!("{:.1}", cash["expensesChangePct"].as_f64().unwrap()),
        format!("{pct:.1}")
    );
    // Reserve: yearly 600 → 50, quarterly 30 → 10, weekly 10 → 43.33.
    let reserve_out =
        dec("950") + dec("50") + dec("10") + dec("43.33") + dec("12.99") + cloud + dec("130");
    assert_eq!(
        m(&s["month"]["reserve"]["expenses"]),
        format!("{reserve_out:.2}")
    );
    let r = &s["recurring"];
    assert_eq!(m(&r["fixedCostsMonthly"]), "1053.33");
    assert_eq!(r["fixedCostsCount"], 4);
    assert_eq!(
        m(&r["subscriptionsMonthly"]),
        format!("{:.2}", dec("12.99") + cloud)
    );
    assert_eq!(r["subscriptionsCount"], 2);
    // Due from 10 to 16 March: market (10th), Cloud (11th), Netflix and the
    // planned groceries (12th), insurance (15th); no income, no ended item.
    let up = &s["upcoming"];
    let names: Vec<(&str, &str)> = up["payments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["date"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("2025-03-10", "Market"),
            ("2025-03-11", "Cloud"),
            ("2025-03-12", "Groceries"),
            ("2025-03-12", "Netflix"),
            ("2025-03-15", "Insurance")
        ]
    );
    assert_eq!(up["days"], 7);
    assert_eq!(up["count"], 5);
    assert_eq!(
        m(&up["total"]),
        format!(
            "{:.2}",
            dec("10") + cloud + dec("80") + dec("12.99") + dec("600")
        )
    );
    assert_eq!(up["next"]["name"], "Market");
    let cloud_payment = &up["payments"][1];
    assert_eq!(cloud_payment["type"], "expense");
    assert_eq!(cloud_payment["originalCurrency"], "USD");
    assert_eq!(m(&cloud_payment["originalAmount"]), "10.00");
    assert_eq!(m(&cloud_payment["amount"]), format!("{cloud:.2}"));
    assert_eq!(cloud_payment["isSubscription"], true);
    assert_eq!(up["payments"][2]["type"], "daily_expense");
    // A planned one-time expense names its account like every payment.
    assert_eq!(
        up["payments"][2]["accountId"],
        up["payments"][3]["accountId"]
    );
    assert_eq!(up["payments"][2]["accountId"].as_str().unwrap().len(), 36);
    // Forecast, reserve view, from March: April has no groceries; May adds the car.
    let f = &s["forecast"];
    assert_eq!(f["months"], 3);
    let monthly = f["monthly"].as_array().unwrap();
    assert_eq!(monthly.len(), 3);
    assert_eq!(
        (monthly[0]["month"].clone(), monthly[2]["month"].clone()),
        (json!(3), json!(5))
    );
    let april_out = reserve_out - dec("130");
    let may_out = april_out + dec("100");
    assert_eq!(m(&monthly[1]["expenses"]), format!("{april_out:.2}"));
    assert_eq!(m(&monthly[2]["expenses"]), format!("{may_out:.2}"));
    let balance = dec("9000") - reserve_out - april_out - may_out;
    assert_eq!(m(&f["projectedBalance"]), format!("{balance:.2}"));
    assert_eq!(m(&monthly[2]["balance"]), format!("{balance:.2}"));
    assert_eq!(m(&f["projectedIncome"]), "9000.00");
    assert_eq!(s["insights"]["unread"], 0);
    assert_eq!(s["insights"]["bySeverity"]["warning"], 0);
    assert!(s["generatedAt"].as_str().unwrap().ends_with('Z'));
    // Empty window: nothing due gives next null.
    let quiet = app.api_json("/summary?upcomingDays=1", &t).await;
    assert_eq!(quiet["upcoming"]["count"], 1, "market on the 10th");
}

#[tokio::test]
async fn accounts_forecast_from_next_month_with_balances_for_savings_only() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let (giro, spar, us) = scenario(&app, &user).await;
    let t = app.token(&user, Value::Null).await;
    let a = app.api_json("/accounts?forecastMonths=2", &t).await;
    assert_eq!(a["currency"], "EUR");
    let by_id = |id: &str| {
        a["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap()
            .clone()
    };
    let g = by_id(&giro);
    assert_eq!(g["type"], "checking");
    assert_eq!(m(&g["balance"]), "1000.00");
    assert_eq!(g["forecast"]["isCumulative"], false);
    assert_eq!(g["forecast"]["projectedBalance"], Value::Null);
    let april = &g["forecast"]["monthly"][0];
    assert_eq!(
        (april["year"].clone(), april["month"].clone()),
        (json!(2025), json!(4))
    );
    // April: salary 3000 (30th); rent, Netflix, four Mondays of market; 200 out.
    assert_eq!(m(&april["income"]), "3000.00");
    assert_eq!(m(&april["expenses"]), "1002.99");
    assert_eq!(m(&april["transfersOut"]), "200.00");
    assert_eq!(m(&april["net"]), "1797.01");
    assert_eq!(april["balance"], Value::Null);
    // May: the car starts, the fee is due in June.
    assert_eq!(m(&g["forecast"]["monthly"][1]["expenses"]), "1102.99");
    let s = by_id(&spar);
    assert_eq!(s["forecast"]["isCumulative"], true);
    assert_eq!(m(&s["forecast"]["monthly"][0]["transfersIn"]), "200.00");
    assert_eq!(m(&s["forecast"]["monthly"][0]["balance"]), "5200.00");
    assert_eq!(m(&s["forecast"]["projectedBalance"]), "5400.00");
    let u = by_id(&us);
    assert_eq!(u["currency"], "USD");
    let usd = app
        .state
        .rates
        .current()
        .convert(dec("500"), "USD", "EUR")
        .unwrap();
    assert_eq!(m(&u["balanceInBaseCurrency"]), format!("{usd:.2}"));
    assert_eq!(u["forecast"]["months"], 2);
    assert!(u["createdAt"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
async fn payments_list_every_due_date_in_the_range() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    scenario(&app, &user).await;
    let t = app.token(&user, Value::Null).await;
    let p = app
        .api_json("/payments?start=2025-03-01&end=2025-03-31", &t)
        .await;
    assert_eq!(
        (p["start"].clone(), p["end"].clone()),
        (json!("2025-03-01"), json!("2025-03-31"))
    );
    let list = p["payments"].as_array().unwrap();
    let count = |name: &str| list.iter().filter(|x| x["name"] == name).count();
    assert_eq!(count("Market"), 5, "one entry per due date");
    assert_eq!(count("Rent"), 1);
    assert_eq!(count("Fee"), 1);
    assert_eq!(count("Groceries"), 2);
    assert_eq!(count("Salary"), 1);
    assert_eq!(count("Gym"), 0, "ended in February");
    assert_eq!(count("Car"), 0, "starts in May");
    // Market ×5, rent, fee, insurance, Netflix, Cloud, groceries ×2, salary.
    assert_eq!(list.len(), 13);
    let salary = list.iter().find(|x| x["name"] == "Salary").unwrap();
    assert_eq!(salary["type"], "income");
    assert_eq!(salary["date"], "2025-03-31");
    assert_eq!(salary["category"], Value::Null);
    let dates: Vec<&str> = list.iter().map(|x| x["date"].as_str().unwrap()).collect();
    let mut sorted = dates.clone();
    sorted.sort();
    assert_eq!(dates, sorted, "in date order");
    // A month-end item lands on the last day of February.
    let feb = app
        .api_json("/payments?start=2025-02-01&end=2025-02-28", &t)
        .await;
    assert!(feb["payments"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["name"] == "Salary" && x["date"] == "2025-02-28"));
}

#[tokio::test]
async fn insights_are_unread_unexpired_newest_first_and_at_most_fifty() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    let uid = user.id.clone();
    app.state
        .db
        .run(move |c| {
            for i in 0..55 {
                let (read, expires) = match i {
                    0 => (1, None),
                    1 => (0, Some("2000-01-01T00:00:00Z")),
                    _ => (0, Some("2999-01-01T00:00:00Z")),
                };
                c.execute(
                    "INSERT INTO insights (id, user_id, type, severity, title, message, metadata, dedupe_key, is_read, created_at, expires_at)
                     VALUES (?1, ?2, 'trend_info', ?3, 'Titel', 'Nachricht', '{\"categoryId\":\"k\"}', ?1, ?4, ?5, ?6)",
                    rusqlite::params![format!("i{i:02}"), uid, if i % 2 == 0 { "info" } else { "warning" }, read, format!("2025-01-01T00:00:{i:02}Z"), expires],
                )?;
            }
            Ok(())
        })
        .await
        .unwrap();
    let list = app.api_json("/insights", &t).await;
    let items = list["insights"].as_array().unwrap();
    assert_eq!(items.len(), 50);
    assert_eq!(items[0]["id"], "i54", "newest first");
    assert!(items.iter().all(|i| i["id"] != "i00" && i["id"] != "i01"));
    assert_eq!(items[0]["metadata"]["categoryId"], "k");
    for key in [
        "id",
        "type",
        "severity",
        "title",
        "message",
        "metadata",
        "createdAt",
        "expiresAt",
    ] {
        assert!(items[0].get(key).is_some(), "{key}");
    }
    let s = app.api_json("/summary", &t).await;
    assert_eq!(s["insights"]["unread"], 50);
    assert_eq!(s["insights"]["byType"]["trend_info"], 50);
    assert_eq!(s["insights"]["byType"]["budget_warning"], 0);
    assert_eq!(
        s["insights"]["bySeverity"]["info"].as_u64().unwrap()
            + s["insights"]["bySeverity"]["warning"].as_u64().unwrap(),
        50
    );
}

#[tokio::test]
async fn a_write_shows_in_the_next_summary_despite_the_cache() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    let before = app.api_json("/summary", &t).await;
    assert_eq!(m(&before["totalAssets"]), "0.00");
    app.account(&user, "Giro", "EUR").await;
    let after = app.api_json("/summary", &t).await;
    assert_eq!(m(&after["totalAssets"]), "1000.00");
    let accounts = app.api_json("/accounts", &t).await;
    assert_eq!(accounts["accounts"].as_array().unwrap().len(), 1);
    // A write by another process (straight into the database) is seen too.
    let uid = user.id.clone();
    app.state
        .db
        .run(move |c| {
            Ok(c.execute(
                "UPDATE accounts SET balance_cents = 250000 WHERE user_id = ?1",
                [uid],
            )?)
        })
        .await
        .unwrap();
    assert_eq!(
        m(&app.api_json("/summary", &t).await["totalAssets"]),
        "2500.00"
    );
}

#[tokio::test]
async fn a_kept_summary_is_generated_at_the_time_of_each_request() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    let start = Utc.with_ymd_and_hms(2026, 3, 10, 10, 0, 0).unwrap();
    app.state.clock.set(start);
    let at = |s: &Value| cashkeeper::clock::parse_timestamp(s["generatedAt"].as_str().unwrap());
    let mut first = app.api_json("/summary", &t).await;
    let hour_later = start + chrono::Duration::hours(1);
    assert!(at(&first).unwrap() < hour_later);
    // Nothing changed on the same day: the kept body answers, stamped anew.
    app.state.clock.advance(chrono::Duration::hours(1));
    let mut second = app.api_json("/summary", &t).await;
    assert!(at(&second).unwrap() >= hour_later);
    first.as_object_mut().unwrap().remove("generatedAt");
    second.as_object_mut().unwrap().remove("generatedAt");
    assert_eq!(first, second);
}

#[tokio::test]
async fn me_reports_the_documented_fields() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    let me = app.api_json("/me", &t).await;
    assert_eq!(me["userId"], user.id.as_str());
    assert_eq!(me["email"], user.email.as_str());
    assert_eq!(me["baseCurrency"], "EUR");
    assert_eq!(me["locale"], "en");
    assert_eq!(me["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(me["apiVersion"], 1);
    assert!(me["name"].is_string());
}

#[tokio::test]
async fn last_used_is_recorded_without_a_write_per_request() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    for _ in 0..5 {
        app.api("/me", &t).await;
    }
    // Written off the request's path: asked until it is there, letting
    // the write run between answers.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut seen = None;
    while std::time::Instant::now() < deadline {
        let list = app
            .action("listApiTokens", json!({}), Some(&user.cookie))
            .await;
        if let Some(at) = list.data()[0]["lastUsedAt"].as_str() {
            seen = Some(at.to_string());
            break;
        }
        tokio::task::yield_now().await;
    }
    let first = seen.expect("last used is recorded");
    app.state.clock.advance(chrono::Duration::seconds(10));
    app.api("/me", &t).await;
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let list = app
        .action("listApiTokens", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(
        list.data()[0]["lastUsedAt"].as_str(),
        Some(first.as_str()),
        "not rewritten within a minute"
    );
}

#[tokio::test]
async fn an_insight_that_expires_leaves_the_summary_without_any_write() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    let expires =
        cashkeeper::clock::timestamp(app.state.clock.now() + chrono::Duration::minutes(1));
    let uid = user.id.clone();
    app.state
        .db
        .run(move |c| {
            c.execute(
                "INSERT INTO insights (id, user_id, type, severity, title, message, dedupe_key, created_at, expires_at)
                 VALUES ('x', ?1, 'budget_warning', 'critical', 'T', 'M', 'x', '2020-01-01T00:00:00Z', ?2)",
                rusqlite::params![uid, expires],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(app.api_json("/summary", &t).await["insights"]["unread"], 1);
    assert_eq!(
        app.api_json("/summary", &t).await["insights"]["bySeverity"]["critical"],
        1
    );
    app.state.clock.advance(chrono::Duration::minutes(2));
    let after = app.api_json("/summary", &t).await;
    assert_eq!(after["insights"]["unread"], 0);
    assert_eq!(app.api_json("/insights", &t).await["insights"], json!([]));
}

#[tokio::test]
async fn revocation_is_effective_on_the_very_next_request_after_cached_use() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let t = app.token(&user, Value::Null).await;
    // Warm every cache with repeated use.
    for _ in 0..3 {
        assert_eq!(app.api("/summary", &t).await.status(), 200);
    }
    let id = app
        .action("listApiTokens", json!({}), Some(&user.cookie))
        .await
        .data()[0]["id"]
        .clone();
    app.action("revokeApiToken", json!({"id": id}), Some(&user.cookie))
        .await
        .data();
    expect_error(
        app.api("/summary", &t).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        None,
    )
    .await;
}
