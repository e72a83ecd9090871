//! Planning: account forecasts and the reserve plan, through their actions
//! and pages.

use crate::support::*;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

fn m(v: &Value) -> String {
    format!(
        "{:.2}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

#[tokio::test]
async fn an_account_forecast_starts_next_month_and_accumulates_for_savings() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 3, 10, 12, 0, 0).unwrap());
    let giro = app.account(&user, "Giro", "EUR").await;
    let spar = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Spar", "type": "savings", "currency": "EUR", "balance": "5000"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(&user, "createIncome", json!({"name": "Zinsen", "amount": "12.50", "frequency": "quarterly", "startDate": "2025-03-31", "accountId": spar})).await;
    app.ok(&user, "createTransfer", json!({"fromAccountId": giro, "toAccountId": spar, "amount": 300, "frequency": "monthly", "startDate": "2025-01-31"})).await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro})).await;

    let f = app
        .ok(
            &user,
            "getAccountForecast",
            json!({"accountId": spar, "months": 4}),
        )
        .await;
    assert_eq!(f["months"], 4);
    assert_eq!(f["isCumulative"], true);
    let monthly = f["monthly"].as_array().unwrap();
    assert_eq!(
        (monthly[0]["year"].clone(), monthly[0]["month"].clone()),
        (json!(2025), json!(4))
    );
    // April 300 in; May 300; June 300 + 12.50 interest; July 300.
    assert_eq!(m(&monthly[0]["balance"]), "5300.00");
    assert_eq!(m(&monthly[2]["income"]), "12.50");
    assert_eq!(m(&monthly[2]["net"]), "312.50");
    assert_eq!(m(&f["projectedBalance"]), "6212.50");

    let g = app
        .ok(&user, "getAccountForecast", json!({"accountId": giro}))
        .await;
    assert_eq!(g["months"], 12, "twelve months unless asked");
    assert_eq!(g["isCumulative"], false);
    assert_eq!(g["projectedBalance"], Value::Null);
    assert_eq!(g["monthly"][0]["balance"], Value::Null);
    assert_eq!(m(&g["monthly"][0]["transfersOut"]), "300.00");
    assert_eq!(m(&g["monthly"][0]["net"]), "-1250.00");

    // The same numbers as the REST API's account forecast.
    let t = app.token(&user, Value::Null).await;
    let api = app.api_json("/accounts?forecastMonths=4", &t).await;
    let spar_api = api["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == spar.as_str())
        .unwrap()
        .clone();
    assert_eq!(spar_api["forecast"], f);

    for (body, expected) in [
        (json!({}), "accountId: is required"),
        (
            json!({"accountId": "00000000-0000-0000-0000-000000000000"}),
            "accountId: not found",
        ),
        (json!({"accountId": spar, "months": 0}), "months: "),
        (json!({"accountId": spar, "months": 25}), "months: "),
        (json!({"accountId": spar, "months": "12"}), "months: "),
    ] {
        let err = app.refused(&user, "getAccountForecast", body.clone()).await;
        assert!(err.starts_with(expected), "{body}: {err}");
    }
    let other = app.new_user().await;
    assert_eq!(
        app.refused(&other, "getAccountForecast", json!({"accountId": spar}))
            .await,
        "accountId: not found"
    );
}

#[tokio::test]
async fn the_reserve_plan_says_what_should_be_saved_and_records_the_pots() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 8, 31, 9, 0, 0).unwrap());
    let giro = app.account(&user, "Giro", "EUR").await;
    let yearly = app
        .ok(&user, "createExpense", json!({"name": "Versicherung", "amount": 1200, "frequency": "yearly", "startDate": "2024-03-01", "accountId": giro}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let quarterly = app
        .ok(&user, "createExpense", json!({"name": "GEZ", "amount": "55.08", "frequency": "quarterly", "startDate": "2025-01-15", "accountId": giro}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let monthly = app
        .ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2025-01-01", "accountId": giro}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(&user, "createExpense", json!({"name": "Alt", "amount": 99, "frequency": "yearly", "startDate": "2020-01-01", "endDate": "2024-12-31", "accountId": giro})).await;

    let plan = app.ok(&user, "getReservePlan", json!({})).await;
    let entries = plan["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 2, "only non-monthly expenses still running");
    // Soonest first: GEZ on 15 Oct, insurance on 1 Mar 2026.
    assert_eq!(entries[0]["expenseId"], quarterly.as_str());
    assert_eq!(entries[0]["nextDueDate"], "2025-10-15");
    let ins = &entries[1];
    assert_eq!(ins["expenseId"], yearly.as_str());
    assert_eq!(ins["nextDueDate"], "2026-03-01");
    assert_eq!(m(&ins["monthlyAmount"]), "100.00");
    // 183 of 365 days since 1 Mar 2025.
    assert_eq!(m(&ins["targetToday"]), "601.64");
    assert_eq!(m(&ins["pot"]), "0.00");
    assert_eq!(m(&ins["gap"]), "601.64");
    assert_eq!(m(&plan["monthlyTotal"]), "118.36");

    let entry = app
        .ok(
            &user,
            "setReservePot",
            json!({"expenseId": yearly, "amount": "500"}),
        )
        .await;
    assert_eq!(m(&entry["pot"]), "500.00");
    assert_eq!(m(&entry["gap"]), "101.64");
    let entry = app
        .ok(
            &user,
            "setReservePot",
            json!({"expenseId": yearly, "amount": 700}),
        )
        .await;
    assert_eq!(m(&entry["gap"]), "0.00", "never negative");
    let plan = app.ok(&user, "getReservePlan", json!({})).await;
    assert_eq!(m(&plan["potsTotal"]), "700.00");

    for (body, expected) in [
        (
            json!({"expenseId": yearly, "amount": -1}),
            "amount: must not be negative",
        ),
        (json!({"expenseId": yearly}), "amount: is required"),
        (json!({"amount": 5}), "expenseId: is required"),
        (
            json!({"expenseId": monthly, "amount": 5}),
            "expenseId: only quarterly",
        ),
        (
            json!({"expenseId": "00000000-0000-0000-0000-000000000000", "amount": 5}),
            "expenseId: not found",
        ),
    ] {
        let err = app.refused(&user, "setReservePot", body.clone()).await;
        assert!(err.starts_with(expected), "{body}: {err}");
    }
    let other = app.new_user().await;
    let err = app
        .refused(
            &other,
            "setReservePot",
            json!({"expenseId": yearly, "amount": 1}),
        )
        .await;
    assert_eq!(err, "expenseId: not found");
    assert_eq!(
        app.ok(&other, "getReservePlan", json!({})).await["entries"],
        json!([])
    );
}

#[tokio::test]
async fn the_reserve_totals_add_up_when_a_pot_holds_more_than_needed() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 8, 31, 9, 0, 0).unwrap());
    let giro = app.account(&user, "Giro", "EUR").await;
    let mut ids = Vec::new();
    for body in [
        json!({"name": "Versicherung", "amount": 1200, "frequency": "yearly", "startDate": "2024-03-01", "accountId": giro}),
        json!({"name": "GEZ", "amount": "55.08", "frequency": "quarterly", "startDate": "2025-01-15", "accountId": giro}),
    ] {
        ids.push(app.ok(&user, "createExpense", body).await["id"].clone());
    }
    // The insurance's pot is short, GEZ's holds more than it should by today.
    app.ok(
        &user,
        "setReservePot",
        json!({"expenseId": ids[0], "amount": 100}),
    )
    .await;
    let gez = app
        .ok(
            &user,
            "setReservePot",
            json!({"expenseId": ids[1], "amount": 50}),
        )
        .await;
    // 47 of 92 days from 15 Jul to 15 Oct: 28.14 should be there, 21.86 more is.
    assert_eq!(m(&gez["targetToday"]), "28.14");
    assert_eq!(m(&gez["gap"]), "0.00");
    assert_eq!(m(&gez["ahead"]), "21.86");

    let plan = app.ok(&user, "getReservePlan", json!({})).await;
    let total = |k: &str| m(&plan[k]).parse::<f64>().unwrap();
    assert_eq!(m(&plan["targetTotal"]), "629.78");
    assert_eq!(m(&plan["potsTotal"]), "150.00");
    // GEZ's surplus fills no other pot: the insurance still misses 501.64.
    assert_eq!(m(&plan["gapTotal"]), "501.64");
    assert_eq!(m(&plan["aheadTotal"]), "21.86");
    // What is shown adds up: should be − in the pots = missing − more than needed.
    let lhs = total("targetTotal") - total("potsTotal");
    let rhs = total("gapTotal") - total("aheadTotal");
    assert!((lhs - rhs).abs() < 0.005, "{lhs} != {rhs}");

    // The page shows all four figures and says how they relate.
    let page = app.page(&user, "/reserves").await;
    for text in [
        "€629.78",
        "€150.00",
        "€501.64",
        "€21.86",
        "In the pots",
        "More than needed",
    ] {
        assert!(page.contains(text), "{text}: {page}");
    }
    // Without a surplus the page keeps its three figures.
    app.ok(
        &user,
        "setReservePot",
        json!({"expenseId": ids[1], "amount": 0}),
    )
    .await;
    let page = app.page(&user, "/reserves").await;
    assert!(!page.contains("More than needed"), "{page}");
}

#[tokio::test]
async fn the_forecast_and_reserve_pages_render_with_and_without_data() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for path in ["/forecasts", "/reserves"] {
        assert_eq!(
            app.get(path, Some(&user.cookie)).await.status(),
            200,
            "{path}"
        );
        assert_eq!(app.get(path, None).await.status(), 303, "{path}");
    }
    let spar = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": "100"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let today = app.state.clock.today().to_string();
    app.ok(&user, "createExpense", json!({"name": "Jahresbeitrag", "amount": 240, "frequency": "yearly", "startDate": today, "accountId": spar})).await;
    let html = app
        .get(
            &format!("/forecasts?account={spar}&months=6"),
            Some(&user.cookie),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Lowest projected balance") && html.contains("<polyline"));
    // The red dot has its legend entry; the axis names its unit.
    assert!(
        html.contains("class=\"key low\"") && html.contains("Lowest month-end"),
        "{html}"
    );
    assert!(html.contains(">€0<") || html.contains(">€100<"), "{html}");
    let html = app
        .get("/reserves", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Jahresbeitrag") && html.contains("data-action=\"setReservePot\""));
}

#[tokio::test]
async fn a_checking_accounts_forecast_expects_its_balance_with_everyday_spending() {
    use cashkeeper::domain::recurrence::{add_months, month_end, month_start};
    use chrono::Datelike;
    use rust_decimal::Decimal;
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Girokonto", "type": "checking", "currency": "EUR", "balance": "1000"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let other = app.account(&user, "Zweitkonto", "EUR").await;
    let today = app.state.clock.today();
    let first = month_start(today);
    // Groceries in the last three full months: 600, 2650 (with a laptop)
    // and 640, a typical month of 640; this month's and another account's do
    // not count.
    for (n, amount) in [(-3, "600"), (-2, "2650"), (-1, "640"), (0, "999")] {
        let day = add_months(first, n) + chrono::Duration::days(4);
        app.ok(&user, "createDailyExpense", json!({"name": "Supermarkt", "amount": amount, "date": day.to_string(), "accountId": giro})).await;
    }
    app.ok(&user, "createDailyExpense", json!({"name": "Elsewhere", "amount": "5000", "date": add_months(first, -1).to_string(), "accountId": other})).await;
    // From next month: salary 3000, rent 950 and 300 a month to savings.
    let next = add_months(first, 1).to_string();
    app.ok(&user, "createIncome", json!({"name": "Gehalt", "amount": 3000, "frequency": "monthly", "startDate": next, "accountId": giro})).await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": next, "accountId": giro})).await;
    app.ok(&user, "createTransfer", json!({"fromAccountId": giro, "toAccountId": other, "amount": 300, "frequency": "monthly", "startDate": next})).await;

    let html = app
        .get(
            &format!("/forecasts?account={giro}&months=3"),
            Some(&user.cookie),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Everyday spending"), "{html}");
    assert!(html.contains("€640.00"), "the everyday spending a month");
    // Today's balance, less everyday spending for the days left this month,
    // then each month + 3000 − 950 − 300 − 640.
    let end = month_end(today);
    let share = Decimal::from((end - today).num_days()) / Decimal::from(end.day());
    let mut expected =
        Decimal::from(1000) - cashkeeper::domain::money::round(Decimal::from(640) * share);
    for _ in 0..3 {
        expected += Decimal::from(3000 - 950 - 300 - 640);
    }
    let shown =
        cashkeeper::i18n::format::money(expected, "EUR", cashkeeper::domain::locale::Locale::En);
    assert!(
        html.contains(&shown),
        "expected balance {shown} after three months"
    );
    // Two lines: with and without everyday spending; transfers listed apart.
    assert!(html.contains("Without everyday spending"));
    assert_eq!(html.matches("<polyline").count(), 2);
    assert!(html.contains("Transfers out"));
    // The lowest expected balance comes between payments, not at a month's
    // end: on the 1st of next month, after rent and the transfer and the
    // day's everyday spending, before the salary.
    let next_first = add_months(first, 1);
    let next_days = Decimal::from(month_end(next_first).day());
    let low = Decimal::from(1000)
        - Decimal::from(640) * Decimal::from((end - today).num_days()) / Decimal::from(end.day())
        - Decimal::from(640) / next_days
        - Decimal::from(950 + 300);
    let low = cashkeeper::domain::money::round(low);
    let lowest = html.split("Lowest projected balance").nth(1).unwrap();
    let en = cashkeeper::domain::locale::Locale::En;
    assert!(
        lowest[..300].contains(&cashkeeper::i18n::format::money(low, "EUR", en))
            && lowest[..300].contains(&cashkeeper::i18n::format::date(next_first, en)),
        "{low} on {next_first}: {lowest}"
    );

    // The REST API's forecast keeps its documented fields.
    let api = app
        .ok(
            &user,
            "getAccountForecast",
            json!({"accountId": giro, "months": 3}),
        )
        .await;
    assert!(api.get("everyday").is_none());
    assert_eq!(m(&api["monthly"][0]["net"]), "1750.00");
}

#[tokio::test]
async fn an_empty_twelve_month_chart_shows_no_made_up_scale_and_a_full_one_its_unit() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let html = app.page(&user, "/").await;
    // No bars and no 0–4 axis drawn from nothing.
    assert!(!html.contains("chart-expenses-bar"), "{html}");
    assert!(!html.contains(">4</text>"), "{html}");
    let giro = app.account(&user, "Giro", "EUR").await;
    let today = app.state.clock.today().to_string();
    app.ok(&user, "createIncome", json!({"name": "Gehalt", "amount": 3000, "frequency": "monthly", "startDate": today, "accountId": giro})).await;
    let html = app.page(&user, "/").await;
    assert!(html.contains("chart-expenses-bar"), "{html}");
    assert!(html.contains(">€3,000</text>"), "{html}");
}
