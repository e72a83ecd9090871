//! A balance set from a statement (`confirmImport {setBalance: true}`) is
//! the account's balance now, wherever it is shown: the accounts page and
//! `listAccounts`, the dashboard, `GET /api/v1/summary` and the current
//! month of `getNetWorth` (`docs/import.md`, The balance from the file),
//! whether the statement is older than the account, of its creation day,
//! newer, or dated after today.

use crate::networth::{amount, create, history, on, user_on};
use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use rust_decimal::Decimal;
use serde_json::json;

/// A one-account MT940 statement of `day` (`YYMMDD`) closing with 23,06.
fn statement(day: &str) -> String {
    format!(
        ":20:STARTUMS\n:25:10020030/1234567890\n:28C:1/1\n:60F:C{day}EUR33,06\n\
         :61:{day}{md}DR10,00NMSCNONREF\n:86:106?00KARTENZAHLUNG?20Baeckerei Korn\n\
         :62F:C{day}EUR23,06\n-\n",
        md = &day[2..]
    )
}

/// Stages the statement of `day` for `account` and confirms it with
/// `setBalance`.
async fn set_from_statement(app: &TestApp, user: &TestUser, account: &str, day: &str) {
    let staged = app
        .ok(
            user,
            "stageImport",
            json!({"accountId": account, "fileName": "umsatz.sta",
                   "csvBase64": STANDARD.encode(statement(day))}),
        )
        .await;
    assert_eq!(
        staged["format"]["closingBalance"]["amount"],
        json!(23.06),
        "{staged}"
    );
    app.ok(user, "reconcileImport", json!({"id": staged["id"]}))
        .await;
    let confirmed = app
        .ok(
            user,
            "confirmImport",
            json!({"id": staged["id"], "setBalance": true}),
        )
        .await;
    assert_eq!(confirmed["balanceSet"], true, "{confirmed}");
}

/// Asserts 23,06 € on every place that shows the balance, and returns the
/// net-worth totals of the last `months` months, oldest first.
async fn everywhere_the_statements(
    app: &TestApp,
    user: &TestUser,
    account: &str,
    months: u32,
) -> Vec<Decimal> {
    let figure = Decimal::new(2306, 2);
    let accounts = app.ok(user, "listAccounts", json!({})).await;
    let listed = accounts
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == account)
        .unwrap();
    assert_eq!(amount(&listed["balance"]), figure, "{listed}");

    let page = app.page(user, "/accounts").await;
    assert!(
        page.contains("<th scope=\"row\">März 2026</th><td>23,06\u{a0}€</td>"),
        "the chart's current month: {page}"
    );
    for typed in ["800,00", "900,00"] {
        assert!(!page.contains(typed), "{typed} on the accounts page");
    }

    let dashboard = app.page(user, "/").await;
    assert!(
        dashboard.contains("Gesamtvermögen</span><strong class=\"amount\">23,06\u{a0}€</strong>"),
        "{dashboard}"
    );

    let token = app.token(user, json!(30)).await;
    let summary = app.api_json("/summary", &token).await;
    assert_eq!(amount(&summary["totalAssets"]), figure, "{summary}");

    let worth = app.ok(user, "getNetWorth", json!({"months": months})).await;
    let totals: Vec<Decimal> = worth["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| amount(&p["total"]))
        .collect();
    assert_eq!(totals.last(), Some(&figure), "{worth}");
    totals
}

async fn german_user_on(app: &TestApp, day: &str) -> TestUser {
    let user = user_on(app, day).await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    user
}

async fn giro(app: &TestApp, user: &TestUser) -> String {
    create(
        app,
        user,
        json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "800"}),
    )
    .await
}

#[tokio::test]
async fn a_statement_older_than_the_account_counts_from_its_own_month() {
    let app = spawn_app().await;
    let mut user = german_user_on(&app, "2026-03-02").await;
    let giro = giro(&app, &user).await;
    on(&app, &mut user, "2026-03-10").await;
    set_from_statement(&app, &user, &giro, "260115").await;

    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2026-01-15".into(), 23.06)]
    );
    let totals = everywhere_the_statements(&app, &user, &giro, 4).await;
    // December is before the statement; January on has its balance.
    let (none, some) = (Decimal::ZERO, Decimal::new(2306, 2));
    assert_eq!(totals, vec![none, some, some, some]);
}

#[tokio::test]
async fn a_statement_of_the_creation_day_replaces_the_typed_balance() {
    let app = spawn_app().await;
    let user = german_user_on(&app, "2026-03-10").await;
    let giro = giro(&app, &user).await;
    set_from_statement(&app, &user, &giro, "260310").await;

    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2026-03-10".into(), 23.06)]
    );
    let totals = everywhere_the_statements(&app, &user, &giro, 2).await;
    assert_eq!(totals, vec![Decimal::ZERO, Decimal::new(2306, 2)]);
}

#[tokio::test]
async fn a_newer_statement_supersedes_what_later_days_recorded_before_it() {
    let app = spawn_app().await;
    let mut user = german_user_on(&app, "2026-03-02").await;
    let giro = giro(&app, &user).await;
    // Typed on the 8th, before the statement of the 5th arrives.
    on(&app, &mut user, "2026-03-08").await;
    app.ok(
        &user,
        "updateAccount",
        json!({"id": giro, "balance": "900"}),
    )
    .await;
    on(&app, &mut user, "2026-03-10").await;
    set_from_statement(&app, &user, &giro, "260305").await;

    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2026-03-02".into(), 800.0), ("2026-03-05".into(), 23.06)]
    );
    everywhere_the_statements(&app, &user, &giro, 1).await;
}

#[tokio::test]
async fn a_statement_dated_after_today_is_todays_balance() {
    let app = spawn_app().await;
    let mut user = german_user_on(&app, "2026-03-02").await;
    let giro = giro(&app, &user).await;
    on(&app, &mut user, "2026-03-10").await;
    set_from_statement(&app, &user, &giro, "260312").await;

    assert_eq!(
        history(&app, &user, &giro).await,
        vec![("2026-03-02".into(), 800.0), ("2026-03-10".into(), 23.06)]
    );
    everywhere_the_statements(&app, &user, &giro, 1).await;
}
