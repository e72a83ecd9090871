//! Balance history and net worth (`docs/actions.md`, Net worth): every
//! balance change recorded (create, update, an import's closing balance),
//! one per day; `listBalanceHistory`, `getNetWorth` and
//! `GET /api/v1/net-worth`; the chart on the accounts page and the past on
//! the forecast chart; the history of an upgraded database and of the demo.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rust_decimal::Decimal;
use serde_json::{json, Value};

/// Sets the app's clock to 10:00 UTC of `day` and signs `user` in again
/// (a session does not outlive a jump of months).
pub async fn on(app: &TestApp, user: &mut TestUser, day: &str) {
    app.move_to_day(user, day, 10).await;
}

/// A user registered on `day`.
pub async fn user_on(app: &TestApp, day: &str) -> TestUser {
    app.set_day(day, 10);
    app.new_user().await
}

pub async fn create(app: &TestApp, user: &TestUser, body: Value) -> String {
    app.ok(user, "createAccount", body).await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

pub async fn history(app: &TestApp, user: &TestUser, account: &str) -> Vec<(String, f64)> {
    app.ok(user, "listBalanceHistory", json!({"accountId": account}))
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["date"].as_str().unwrap().to_string(),
                p["balance"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn dec(s: &str) -> Decimal {
    Decimal::from_str_exact(s).unwrap()
}

/// A JSON amount as the decimal it spells (never through a float's digits).
pub fn amount(v: &Value) -> Decimal {
    v.to_string().parse().unwrap()
}

#[tokio::test]
async fn every_balance_change_is_recorded_once_a_day_and_goes_with_its_account() {
    let app = spawn_app().await;
    let mut anna = user_on(&app, "2026-03-10").await;
    let giro = create(
        &app,
        &anna,
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "100"}),
    )
    .await;
    assert_eq!(
        history(&app, &anna, &giro).await,
        vec![("2026-03-10".into(), 100.0)]
    );

    // A rename is no balance change.
    app.ok(
        &anna,
        "updateAccount",
        json!({"id": giro, "name": "Girokonto"}),
    )
    .await;
    assert_eq!(history(&app, &anna, &giro).await.len(), 1);

    // Several changes on one day keep the last.
    for balance in ["150", "-20.50", "175.25"] {
        app.ok(
            &anna,
            "updateAccount",
            json!({"id": giro, "balance": balance}),
        )
        .await;
    }
    assert_eq!(
        history(&app, &anna, &giro).await,
        vec![("2026-03-10".into(), 175.25)]
    );

    // Another day, another point; oldest first.
    on(&app, &mut anna, "2026-03-12").await;
    app.ok(&anna, "updateAccount", json!({"id": giro, "balance": 200}))
        .await;
    assert_eq!(
        history(&app, &anna, &giro).await,
        vec![("2026-03-10".into(), 175.25), ("2026-03-12".into(), 200.0)]
    );

    // Another user's account is refused like an unknown one.
    let ben = app.new_user().await;
    let theirs = app
        .refused(&ben, "listBalanceHistory", json!({"accountId": giro}))
        .await;
    let unknown = app
        .refused(
            &ben,
            "listBalanceHistory",
            json!({"accountId": uuid::Uuid::new_v4().to_string()}),
        )
        .await;
    assert_eq!(theirs, "accountId: not found");
    assert_eq!(theirs, unknown);
    assert_eq!(
        app.refused(&ben, "listBalanceHistory", json!({})).await,
        "accountId: is required"
    );
    assert!(app
        .refused(&ben, "listBalanceHistory", json!({"accountId": 7}))
        .await
        .starts_with("accountId: "));

    // Deleting the account deletes its history.
    app.ok(&anna, "deleteAccount", json!({"id": giro})).await;
    let left: i64 = app
        .state
        .db
        .run(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM balance_history WHERE account_id = ?1",
                [&giro],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(left, 0);
}

fn stage_input(account: &str, file: &str, bytes: &[u8], iban: &str) -> Value {
    json!({"accountId": account, "fileName": file, "csvBase64": STANDARD.encode(bytes),
           "accountIban": iban})
}

#[tokio::test]
async fn an_imports_closing_balance_is_recorded_on_the_day_of_the_file() {
    let app = spawn_app().await;
    let user = user_on(&app, "2026-03-10").await;
    let giro = create(
        &app,
        &user,
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "700"}),
    )
    .await;
    let file = crate::statements::TWO_ACCOUNTS.as_bytes();

    // Confirmed without setBalance: nothing recorded.
    let staged = app
        .ok(
            &user,
            "stageImport",
            stage_input(&giro, "a.sta", file, "10020030/1234567890"),
        )
        .await;
    assert_eq!(
        staged["format"]["closingBalance"]["date"], "2024-12-02",
        "{staged}"
    );
    app.ok(&user, "reconcileImport", json!({"id": staged["id"]}))
        .await;
    app.ok(&user, "confirmImport", json!({"id": staged["id"]}))
        .await;
    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2026-03-10".into(), 700.0)]
    );

    // With setBalance: the file's balance, on the file's day.
    let staged = app
        .ok(
            &user,
            "stageImport",
            stage_input(&giro, "b.sta", file, "10020030/9999999999"),
        )
        .await;
    assert_eq!(
        staged["format"]["closingBalance"],
        json!({"date": "2024-12-03", "amount": 60.00, "currency": "EUR"})
    );
    app.ok(&user, "reconcileImport", json!({"id": staged["id"]}))
        .await;
    let confirmed = app
        .ok(
            &user,
            "confirmImport",
            json!({"id": staged["id"], "setBalance": true}),
        )
        .await;
    assert_eq!(confirmed["balanceSet"], true);
    // It is the balance now: the 700 typed later than the file's day is
    // superseded (tests/blackbox/statement_balance.rs).
    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2024-12-03".into(), 60.0)]
    );
}

#[tokio::test]
async fn get_net_worth_refuses_months_out_of_range_or_not_a_whole_number() {
    let app = spawn_app().await;
    let user = user_on(&app, "2026-03-10").await;
    for bad in [
        json!(0),
        json!(121),
        json!("x"),
        json!("12"),
        json!(1.5),
        json!(-1),
    ] {
        let e = app
            .refused(&user, "getNetWorth", json!({"months": bad}))
            .await;
        assert!(e.starts_with("months: "), "{bad}: {e}");
    }
    let default = app.ok(&user, "getNetWorth", json!({})).await;
    let points = default["points"].as_array().unwrap();
    assert_eq!(points.len(), 12);
    assert_eq!(points[0]["month"], "2025-04");
    assert_eq!(points[11]["month"], "2026-03");
    assert_eq!(
        points[11],
        json!({"month": "2026-03", "total": 0.0, "byType": {"checking": 0.0, "savings": 0.0, "etf": 0.0}})
    );
    let most = app.ok(&user, "getNetWorth", json!({"months": 120})).await;
    assert_eq!(most["points"].as_array().unwrap().len(), 120);
    let one = app.ok(&user, "getNetWorth", json!({"months": 1})).await;
    assert_eq!(one["points"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn net_worth_converts_at_todays_rates_and_counts_an_account_from_its_creation_month() {
    let app = spawn_app().await;
    let mut anna = user_on(&app, "2026-01-15").await;
    let giro = create(
        &app,
        &anna,
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "1000"}),
    )
    .await;
    // In March a dollar savings account is opened, and the giro changes.
    on(&app, &mut anna, "2026-03-05").await;
    let dollars = create(
        &app,
        &anna,
        json!({"name": "Dollars", "type": "savings", "currency": "USD", "balance": "500"}),
    )
    .await;
    app.ok(
        &anna,
        "updateAccount",
        json!({"id": giro, "balance": "1200.50"}),
    )
    .await;
    // In April the depot, and later in the month more dollars.
    on(&app, &mut anna, "2026-04-02").await;
    create(
        &app,
        &anna,
        json!({"name": "Depot", "type": "etf", "currency": "EUR", "balance": "3000"}),
    )
    .await;
    on(&app, &mut anna, "2026-04-20").await;
    app.ok(
        &anna,
        "updateAccount",
        json!({"id": dollars, "balance": "800"}),
    )
    .await;

    let rates = app.state.rates.current();
    let usd = |a: &str| rates.to_base(dec(a), "USD", "EUR");
    let worth = app.ok(&anna, "getNetWorth", json!({"months": 5})).await;
    assert_eq!(worth["currency"], "EUR");
    let points = worth["points"].as_array().unwrap();
    let months: Vec<&str> = points
        .iter()
        .map(|p| p["month"].as_str().unwrap())
        .collect();
    assert_eq!(
        months,
        ["2025-12", "2026-01", "2026-02", "2026-03", "2026-04"]
    );
    let by = |i: usize, kind: &str| amount(&points[i]["byType"][kind]);
    // Before the giro was opened: nothing.
    assert_eq!(amount(&points[0]["total"]), Decimal::ZERO);
    assert_eq!(by(1, "checking"), dec("1000"));
    assert_eq!(by(2, "checking"), dec("1000"));
    assert_eq!(
        by(2, "savings"),
        Decimal::ZERO,
        "not yet opened in February"
    );
    assert_eq!(by(3, "checking"), dec("1200.50"));
    // March's dollars at today's rate, not March's.
    assert_eq!(by(3, "savings"), usd("500"));
    assert_eq!(by(3, "etf"), Decimal::ZERO, "the depot counts from April");
    assert_eq!(by(4, "savings"), usd("800"));
    assert_eq!(by(4, "etf"), dec("3000"));
    assert_eq!(
        amount(&points[4]["total"]),
        dec("1200.50") + usd("800") + dec("3000")
    );

    // In dollars as base currency the euros are converted, dollars stay.
    app.ok(&anna, "updateSettings", json!({"baseCurrency": "USD"}))
        .await;
    let worth = app.ok(&anna, "getNetWorth", json!({"months": 1})).await;
    assert_eq!(worth["currency"], "USD");
    let now = &worth["points"][0];
    assert_eq!(amount(&now["byType"]["savings"]), dec("800"));
    assert_eq!(
        amount(&now["byType"]["checking"]),
        rates.to_base(dec("1200.50"), "EUR", "USD")
    );
}

#[tokio::test]
async fn the_rest_route_answers_as_get_net_worth_and_checks_token_and_months() {
    let app = spawn_app().await;
    let user = user_on(&app, "2026-03-10").await;
    create(
        &app,
        &user,
        json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": "4200"}),
    )
    .await;
    let token = app.token(&user, json!(null)).await;

    let res = app
        .client
        .get(app.url("/api/v1/net-worth"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(
        res.headers()["www-authenticate"],
        "Bearer realm=\"cashkeeper\""
    );
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unauthorized");

    for bad in ["0", "121", "x", "", "1.5", "-3", "99999999999"] {
        let res = app.api(&format!("/net-worth?months={bad}"), &token).await;
        assert_eq!(res.status(), 400, "months={bad}");
        assert_eq!(res.headers()["cache-control"], "no-store");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "invalid_request");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("months: "), "{message}");
    }

    let body = app.api_json("/net-worth", &token).await;
    let points = body["points"].as_array().unwrap();
    assert_eq!(points.len(), 12);
    let last = &points[11];
    assert_eq!(last["month"], "2026-03");
    assert_eq!(last["total"], json!(4200.0));
    assert_eq!(
        last["byType"],
        json!({"checking": 0.0, "savings": 4200.0, "etf": 0.0})
    );
    let two = app.api_json("/net-worth?months=2", &token).await;
    assert_eq!(
        two,
        app.ok(&user, "getNetWorth", json!({"months": 2})).await,
        "the action and the route answer the same"
    );
}

/// Follows a Home Assistant `value_json` path (`.points[-1].total`) through
/// `value`.
fn follow<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut at = value;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, Some(rest.trim_end_matches(']'))),
            None => (part, None),
        };
        if !name.is_empty() {
            at = at.get(name)?;
        }
        if let Some(i) = index {
            let items = at.as_array()?;
            let i: i64 = i.parse().ok()?;
            let i = if i < 0 { items.len() as i64 + i } else { i };
            at = items.get(usize::try_from(i).ok()?)?;
        }
    }
    Some(at)
}

#[tokio::test]
async fn the_home_assistant_example_reads_fields_the_route_answers_and_the_document_describes() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api.md")).unwrap();
    let start = docs
        .find("/api/v1/net-worth?months=")
        .expect("docs/api.md has a net-worth sensor");
    let block = &docs[start..start + docs[start..].find("```").unwrap()];
    let paths: Vec<&str> = block
        .split("value_json")
        .skip(1)
        .map(|rest| {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || "._[]-".contains(c)))
                .unwrap_or(rest.len());
            &rest[..end]
        })
        .collect();
    assert!(paths.len() >= 2, "{block}");

    let app = spawn_app().await;
    let user = app.new_user().await;
    create(
        &app,
        &user,
        json!({"name": "Depot", "type": "etf", "currency": "EUR", "balance": "100"}),
    )
    .await;
    let token = app.token(&user, json!(null)).await;
    let months = block[block.find("months=").unwrap() + 7..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap();
    let body = app
        .api_json(&format!("/net-worth?months={months}"), &token)
        .await;
    let doc: Value = app
        .get("/api/v1/openapi.json", None)
        .await
        .json()
        .await
        .unwrap();
    let schemas = &doc["components"]["schemas"];
    for path in paths {
        let v = follow(&body, path).unwrap_or_else(|| panic!("value_json{path} in {body}"));
        assert!(v.is_number(), "value_json{path} is {v}");
        // Each field it names is described.
        let last = path.rsplit('.').next().unwrap();
        assert!(
            schemas["NetWorthPoint"]["properties"].get(last).is_some()
                || schemas["NetWorthByType"]["properties"].get(last).is_some(),
            "{last} is not in the OpenAPI document"
        );
    }
    json_attributes_are_answered(block, &body);
}

/// The `json_attributes` the example asks for are in the reply where
/// `json_attributes_path` points.
fn json_attributes_are_answered(block: &str, body: &Value) {
    let Some(at) = block.find("json_attributes_path:") else {
        return;
    };
    let path = block[at..].lines().next().unwrap();
    let path = path[path.find('"').unwrap() + 1..path.rfind('"').unwrap()].trim_start_matches('$');
    let target = follow(body, path).unwrap_or_else(|| panic!("{path} in {body}"));
    let list = &block[block.find("json_attributes:\n").unwrap()..];
    let items: Vec<&str> = list.lines().skip(1).collect();
    // The list's items, as deep as its first one.
    let indent = items[0].len() - items[0].trim_start().len();
    let names: Vec<&str> = items
        .iter()
        .take_while(|l| l.len() - l.trim_start().len() == indent)
        .filter_map(|l| l.trim().strip_prefix("- "))
        .collect();
    assert!(!names.is_empty(), "{list}");
    for name in names {
        assert!(target.get(name).is_some(), "{name} at {path} in {body}");
    }
}

#[tokio::test]
async fn the_accounts_page_draws_net_worth_with_its_values_and_says_when_history_starts() {
    let app = spawn_app().await;
    let mut user = user_on(&app, "2025-06-10").await;
    let giro = create(
        &app,
        &user,
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "1000"}),
    )
    .await;
    let html = app.page(&user, "/accounts").await;
    assert!(
        html.contains("<figure class=\"chart net-worth\">"),
        "{html}"
    );
    assert!(html.contains("role=\"img\"") && html.contains("<desc"));
    assert!(
        html.contains("History starts now"),
        "one balance each: {html}"
    );
    // The span links, the chosen one marked.
    assert!(html
        .contains(r#"<a href="/accounts?months=12#net-worth" aria-current="page">12 months</a>"#));
    assert!(html.contains(r##"<a href="/accounts?months=all#net-worth">All</a>"##));
    // The values under the chart start where the data starts: June 2025
    // with the giro, not eleven months of nothing before it; above the
    // chart, net worth now.
    let table = &html[html.find("<details class=\"chart-values\">").unwrap()..];
    assert_eq!(
        table.matches("<tr><th scope=\"row\">").count(),
        1,
        "{table}"
    );
    assert!(table.contains("<th scope=\"row\">June 2025</th><td>€1,000.00</td>"));
    assert_eq!(html.matches("class=\"chart-total\"").count(), 1);
    assert!(
        html.contains("<p class=\"chart-summary\">€1,000.00</p>"),
        "{html}"
    );
    // getNetWorth answers every month asked for, as its contract says.
    let worth = app.ok(&user, "getNetWorth", json!({})).await;
    let points = worth["points"].as_array().unwrap();
    assert_eq!(points.len(), 12);
    assert_eq!(amount(&points[0]["total"]), Decimal::ZERO);
    assert_eq!(amount(&points[11]["total"]), dec("1000"));

    // A year later, a second balance: history has begun.
    on(&app, &mut user, "2026-06-20").await;
    app.ok(
        &user,
        "updateAccount",
        json!({"id": giro, "balance": "1500"}),
    )
    .await;
    let html = app.page(&user, "/accounts?months=24").await;
    assert!(!html.contains("History starts now"));
    assert!(html
        .contains(r#"<a href="/accounts?months=24#net-worth" aria-current="page">24 months</a>"#));
    // From June 2025, when the giro was opened, to this month: 13 months.
    let table = &html[html.find("<details class=\"chart-values\">").unwrap()..];
    assert_eq!(table.matches("<tr><th scope=\"row\">").count(), 13);
    assert!(table.contains("<th scope=\"row\">June 2025</th><td>€1,000.00</td>"));
    assert!(
        html.contains("<p class=\"chart-summary\">€1,500.00, +€500 in 13 months</p>"),
        "{html}"
    );
    assert!(table.contains("<th scope=\"row\">May 2026</th><td>€1,000.00</td>"));
    assert!(table.contains("<th scope=\"row\">June 2026</th><td>€1,500.00</td>"));
    // Over more than a year the axis names the year too.
    assert!(html.contains(">Jun 26<"), "{html}");

    // All: back to the month the oldest account was opened.
    let html = app.page(&user, "/accounts?months=all").await;
    let table = &html[html.find("<details class=\"chart-values\">").unwrap()..];
    assert_eq!(table.matches("<tr><th scope=\"row\">").count(), 13);
    assert!(table.contains("<th scope=\"row\">June 2025</th>"));
    // Anything else is the last twelve months.
    let html = app.page(&user, "/accounts?months=7000").await;
    assert!(html.contains(r#"aria-current="page">12 months</a>"#));

    // In German.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let html = app.page(&user, "/accounts").await;
    assert!(html.contains("<h2>Vermögen</h2>"), "{html}");
    assert!(html.contains(">12 Monate</a>") && html.contains(">Alle</a>"));
    assert!(html.contains("<th scope=\"row\">Juni 2026</th><td>1.500,00\u{a0}€</td>"));
    assert!(
        html.contains("<p class=\"chart-summary\">1.500,00\u{a0}€, +500\u{a0}€ in 12 Monaten</p>"),
        "{html}"
    );

    // Without accounts there is no chart.
    let empty = app.new_user().await;
    let html = app.page(&empty, "/accounts").await;
    assert!(!html.contains("net-worth"));
}

#[tokio::test]
async fn the_forecast_chart_joins_the_past_balances_to_the_expected_ones() {
    let app = spawn_app().await;
    let mut user = user_on(&app, "2026-01-10").await;
    let depot = create(
        &app,
        &user,
        json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": "1000"}),
    )
    .await;
    on(&app, &mut user, "2026-02-10").await;
    app.ok(
        &user,
        "updateAccount",
        json!({"id": depot, "balance": "1100"}),
    )
    .await;
    on(&app, &mut user, "2026-04-10").await;
    app.ok(
        &user,
        "updateAccount",
        json!({"id": depot, "balance": "1250"}),
    )
    .await;
    let html = app
        .page(&user, &format!("/forecasts?account={depot}&months=3"))
        .await;
    // Three months of the past (January to March), today, three ahead.
    assert!(html.contains("class=\"chart-line solid\""), "{html}");
    assert!(html.contains("class=\"chart-line dashed\""));
    assert!(
        html.contains(
            "Balance so far: Jan: €1,000.00, Feb: €1,100.00, Mar: €1,100.00, Today: €1,250.00"
        ),
        "{html}"
    );
    assert!(html.contains("Projected balance: Today: €1,250.00, May:"));
    assert!(html
        .contains("<span class=\"key line dashed\" aria-hidden=\"true\"></span>Projected balance"));

    // A new account has no past: the forecast alone, dashed from today.
    let fresh = create(
        &app,
        &user,
        json!({"name": "Neu", "type": "savings", "currency": "EUR", "balance": "5"}),
    )
    .await;
    let html = app
        .page(&user, &format!("/forecasts?account={fresh}"))
        .await;
    assert!(!html.contains("Balance so far"));
    assert!(html.contains("class=\"chart-line dashed\""));
}

#[tokio::test]
async fn an_upgraded_database_gives_each_account_its_balance_from_its_creation_day() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    std::fs::copy(
        format!("{fixtures}/release.db"),
        dir.path().join("cashkeeper.db"),
    )
    .unwrap();
    let app = spawn_app_in(dir, |_| {}).await;
    let cookie = app
        .login("fixture@example.org", "fixture password")
        .await
        .session_cookie()
        .unwrap();
    let user = TestUser {
        email: "fixture@example.org".into(),
        password: "fixture password".into(),
        cookie,
        id: String::new(),
    };
    let accounts = app.ok(&user, "listAccounts", json!({})).await;
    let accounts = accounts.as_array().unwrap();
    assert!(accounts.len() >= 2);
    for a in accounts {
        let points = history(&app, &user, a["id"].as_str().unwrap()).await;
        let created = &a["createdAt"].as_str().unwrap()[..10];
        assert_eq!(
            points,
            vec![(created.to_string(), a["balance"].as_f64().unwrap())],
            "{a}"
        );
    }
    // The demo user of the fixture speaks German.
    let html = app.page(&user, "/accounts").await;
    assert!(html.contains("Der Verlauf beginnt jetzt"), "{html}");
}

#[tokio::test]
async fn the_demo_household_has_a_year_of_plausible_balances() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.demo_household(&user).await;
    let accounts = app.ok(&user, "listAccounts", json!({})).await;
    let id_of = |name: &str| {
        accounts
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let savings = history(&app, &user, &id_of("Tagesgeld")).await;
    assert_eq!(savings.len(), 14, "opened, twelve month ends, today");
    assert_eq!(
        savings.last().unwrap().1,
        8200.0,
        "ends with today's balance"
    );
    assert!(
        savings.first().unwrap().1 < savings.last().unwrap().1 * 0.8,
        "savings grow: {savings:?}"
    );
    let giro: Vec<f64> = history(&app, &user, &id_of("Girokonto"))
        .await
        .iter()
        .map(|(_, b)| *b)
        .collect();
    let (lo, hi) = giro
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), b| (l.min(*b), h.max(*b)));
    assert!(hi - lo > 200.0, "checking wobbles: {giro:?}");

    let worth = app.ok(&user, "getNetWorth", json!({})).await;
    let points = worth["points"].as_array().unwrap();
    assert_eq!(points.len(), 12);
    assert!(
        points
            .iter()
            .all(|p| amount(&p["byType"]["savings"]) > Decimal::ZERO),
        "every account counts from a year ago"
    );
    let html = app.page(&user, "/accounts").await;
    assert!(html.contains("net-worth") && !html.contains("History starts now"));
}
