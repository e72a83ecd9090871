//! The assistant's tools: each read tool against hand-checked numbers (and
//! the action that shows the same report), each write tool through
//! `previewTool` and `run` (valid, refused, another user's record), and
//! that no preview writes anything.

use crate::support::*;
use cashkeeper::app::assistant::tools::{self, Outcome};
use cashkeeper::store::users::{self, User};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

/// An amount of an action's reply (a number) or of a tool's (a string),
/// as text with two decimals.
fn m(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        n => format!(
            "{:.2}",
            n.as_f64().unwrap_or_else(|| panic!("not an amount: {n}"))
        ),
    }
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

impl TestApp {
    /// The stored user behind a test user, as the tools take it.
    async fn stored(&self, user: &TestUser) -> User {
        let id = self.user_id(user).await;
        self.state
            .db
            .run(move |c| users::find(c, &id))
            .await
            .unwrap()
            .expect("stored")
    }

    /// Runs a tool with `arguments` as the model's JSON text.
    async fn tool(&self, user: &TestUser, name: &str, arguments: &str) -> Outcome {
        let stored = self.stored(user).await;
        tools::run(&self.state, &stored, name, arguments).await
    }

    /// Runs a read tool; its result and line.
    async fn read(&self, user: &TestUser, name: &str, arguments: Value) -> (Value, String) {
        let locale = self.stored(user).await.locale;
        match self.tool(user, name, &arguments.to_string()).await {
            Outcome::Read { result, looked } => (result, looked.text(locale)),
            Outcome::Proposed { .. } => panic!("{name} proposed"),
            Outcome::Failed(e) => panic!("{name} {arguments} failed: {e}"),
        }
    }

    /// Runs a tool that must fail; its message.
    async fn tool_fails(&self, user: &TestUser, name: &str, arguments: &str) -> String {
        match self.tool(user, name, arguments).await {
            Outcome::Failed(e) => e,
            _ => panic!("{name} {arguments} should fail"),
        }
    }

    /// Everything the write tools could touch, as the list actions show it.
    async fn records(&self, user: &TestUser) -> Vec<Value> {
        let mut all = Vec::new();
        for list in [
            "listAccounts",
            "listCategories",
            "listDailyExpenses",
            "listExpenses",
            "listIncomes",
            "listTransfers",
            "getReservePlan",
        ] {
            all.push(self.ok(user, list, json!({})).await);
        }
        all
    }

    async fn set_locale(&self, user: &TestUser, locale: &str) {
        self.ok(user, "updateSettings", json!({ "locale": locale }))
            .await;
    }
}

/// "Today" in these tests: Monday 23 November 2026, noon UTC.
fn set_today(app: &TestApp) {
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 11, 23, 12, 0, 0).unwrap());
}

struct Scenario {
    giro: String,
    tagesgeld: String,
    wohnen: String,
}

/// Two accounts; salary 2500 and rent 900 (Wohnen) monthly from January,
/// insurance 1200 yearly from 1 March, Netflix 12.99 monthly from 10 January
/// (a subscription, Freizeit), a 12.40 bakery purchase on 5 November
/// (uncategorised), 200 a month from Girokonto to Tagesgeld.
async fn scenario(app: &TestApp, user: &TestUser) -> Scenario {
    set_today(app);
    let giro = id(&app
        .ok(
            user,
            "createAccount",
            json!({"name": "Girokonto", "type": "checking", "currency": "EUR", "balance": 1000}),
        )
        .await);
    let tagesgeld = id(&app
        .ok(
            user,
            "createAccount",
            json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR", "balance": 5000}),
        )
        .await);
    let wohnen = id(&app
        .ok(user, "createCategory", json!({"name": "Wohnen"}))
        .await);
    let freizeit = id(&app
        .ok(
            user,
            "createCategory",
            json!({"name": "Freizeit", "monthlyLimit": 50}),
        )
        .await);
    for (action, body) in [
        (
            "createIncome",
            json!({"name": "Gehalt", "amount": 2500, "frequency": "monthly", "startDate": "2026-01-01", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Miete", "amount": 900, "frequency": "monthly", "startDate": "2026-01-01", "accountId": giro, "categoryId": wohnen}),
        ),
        (
            "createExpense",
            json!({"name": "Versicherung", "amount": 1200, "frequency": "yearly", "startDate": "2026-03-01", "accountId": giro}),
        ),
        (
            "createExpense",
            json!({"name": "Netflix", "amount": "12.99", "frequency": "monthly", "startDate": "2026-01-10", "accountId": giro, "categoryId": freizeit, "isSubscription": true}),
        ),
        (
            "createDailyExpense",
            json!({"name": "Bäckerei", "amount": "12.40", "date": "2026-11-05", "accountId": giro}),
        ),
        (
            "createTransfer",
            json!({"fromAccountId": giro, "toAccountId": tagesgeld, "amount": 200, "frequency": "monthly", "startDate": "2026-01-01"}),
        ),
    ] {
        app.ok(user, action, body).await;
    }
    Scenario {
        giro,
        tagesgeld,
        wohnen,
    }
}

#[tokio::test]
async fn a_month_far_above_one_of_next_to_nothing_is_much_more_for_the_assistant_too() {
    let app = spawn_app().await;
    set_today(&app);
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    for (amount, date) in [("10", "2026-10-10"), ("1415.33", "2026-11-10")] {
        app.ok(
            &user,
            "createDailyExpense",
            json!({"name": "Einkauf", "amount": amount, "date": date, "accountId": giro}),
        )
        .await;
    }
    let (s, _) = app
        .read(&user, "get_summary", json!({"month": "2026-11"}))
        .await;
    assert_eq!(s["cashflow"]["expensesChangePct"], "14053.3", "{s}");
    assert_eq!(
        s["cashflow"]["expensesChange"], "much more than last month (do not quote the percent)",
        "{s}"
    );
    assert!(s["cashflow"].get("incomeChange").is_none(), "{s}");
}

#[tokio::test]
async fn a_rent_of_900_and_an_income_of_2500_leave_a_surplus_of_1600() {
    let app = spawn_app().await;
    set_today(&app);
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    app.ok(&user, "createIncome", json!({"name": "Gehalt", "amount": 2500, "frequency": "monthly", "startDate": "2026-01-01", "accountId": giro})).await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": 900, "frequency": "monthly", "startDate": "2026-01-01", "accountId": giro})).await;

    let (s, line) = app.read(&user, "get_summary", json!({})).await;
    assert_eq!(
        (s["year"].clone(), s["month"].clone()),
        (json!(2026), json!(11))
    );
    assert_eq!(s["currency"], "EUR");
    assert_eq!(s["cashflow"]["income"], "2500.00");
    assert_eq!(s["cashflow"]["expenses"], "900.00");
    assert_eq!(s["cashflow"]["surplus"], "1600.00");
    assert_eq!(s["reserve"]["surplus"], "1600.00");
    assert_eq!(s["cashflow"]["incomeChangePct"], "0.0");
    assert_eq!(s["totalAssets"], "1000.00");
    assert_eq!(s["recurring"]["fixedCostsMonthly"], "900.00");
    assert_eq!(line, "looked at your summary for November 2026");

    // The same numbers as the dashboard's.
    let d = app.ok(&user, "getDashboard", json!({})).await;
    for view in ["cashflow", "reserve"] {
        for field in ["income", "expenses", "surplus"] {
            assert_eq!(m(&d[view][field]), m(&s[view][field]), "{view}.{field}");
        }
    }

    // Before the income began: January's previous month has nothing.
    let (dec, _) = app
        .read(&user, "get_summary", json!({"year": "2025", "month": 12}))
        .await;
    assert_eq!(dec["cashflow"]["surplus"], "0.00");
    let (jan, _) = app
        .read(&user, "get_summary", json!({"month": "2026-01"}))
        .await;
    assert_eq!(jan["cashflow"]["incomeChangePct"], Value::Null);

    app.set_locale(&user, "de").await;
    let (_, line) = app.read(&user, "get_summary", json!({})).await;
    assert_eq!(line, "Übersicht für November 2026 angesehen");
}

#[tokio::test]
async fn read_tools_answer_the_numbers_the_pages_show() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let s = scenario(&app, &user).await;

    // Accounts, with balances in the base currency.
    let (a, line) = app.read(&user, "list_accounts", json!({})).await;
    assert_eq!(line, "looked at your accounts");
    assert_eq!(a["currency"], "EUR");
    let accounts = a["accounts"].as_array().unwrap();
    assert_eq!(accounts.len(), 2);
    assert_eq!(accounts[0]["name"], "Girokonto");
    assert_eq!(accounts[0]["id"], s.giro.as_str());
    assert_eq!(accounts[0]["balance"], "1000.00");
    assert_eq!(accounts[0]["balanceInBase"], "1000.00");
    assert_eq!(accounts[1]["type"], "savings");
    assert_eq!(accounts[1]["balance"], "5000.00");

    // November's payments: due dates of recurring items and the purchase,
    // by date, type and name.
    let (p, line) = app
        .read(
            &user,
            "list_payments",
            json!({"from": "2026-11-01", "to": "30.11.2026"}),
        )
        .await;
    assert_eq!(
        line,
        "looked at your payments from 1\u{a0}Nov\u{a0}2026 to 30\u{a0}Nov\u{a0}2026"
    );
    assert_eq!(p["truncated"], false);
    assert_eq!(p["count"], 4);
    let rows: Vec<(String, String, String, String)> = p["payments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["date"].as_str().unwrap().into(),
                x["type"].as_str().unwrap().into(),
                x["name"].as_str().unwrap().into(),
                m(&x["amount"]),
            )
        })
        .collect();
    let row = |d: &str, t: &str, n: &str, a: &str| (d.into(), t.into(), n.into(), a.into());
    assert_eq!(
        rows,
        vec![
            row("2026-11-01", "expense", "Miete", "900.00"),
            row("2026-11-01", "income", "Gehalt", "2500.00"),
            row("2026-11-05", "daily_expense", "Bäckerei", "12.40"),
            row("2026-11-10", "expense", "Netflix", "12.99"),
        ]
    );
    assert_eq!(p["payments"][0]["category"], "Wohnen");
    assert_eq!(p["payments"][3]["isSubscription"], true);

    // Search.
    let (found, line) = app.read(&user, "search", json!({"query": "netf"})).await;
    assert_eq!(line, "searched for “netf”");
    assert_eq!(found["hits"][0]["kind"], "expense");
    assert_eq!(found["hits"][0]["name"], "Netflix");
    assert_eq!(found["hits"][0]["amount"], "12.99");
    // A recurring hit with its rhythm and today's amount, never summed.
    assert_eq!(found["hits"][0]["frequency"], "monthly");
    assert_eq!(found["hits"][0]["amountToday"], "12.99");
    assert_eq!(found["recurring"], 1);
    assert_eq!(found["oneTimeSums"], json!([]));
    assert_eq!((&found["page"], &found["pages"]), (&json!(1), &json!(1)));
    let (bakery, _) = app.read(&user, "search", json!({"query": "bäcker"})).await;
    assert_eq!(
        bakery["oneTimeSums"],
        json!([{"kind": "dailyExpense", "currency": "EUR", "amount": "12.40", "count": 1}])
    );
    let (cat, _) = app.read(&user, "search", json!({"query": "Wohnen"})).await;
    assert_eq!(cat["hits"][0]["kind"], "category");
    assert_eq!(cat["hits"][0]["id"], s.wohnen.as_str());

    // A savings account's forecast by name: 5000 plus 200 a month.
    let (f, line) = app
        .read(
            &user,
            "get_account_forecast",
            json!({"accountName": "tagesgeld", "months": "2"}),
        )
        .await;
    assert_eq!(line, "looked at your forecast for Tagesgeld");
    assert_eq!(f["account"]["id"], s.tagesgeld.as_str());
    assert_eq!(f["isCumulative"], true);
    assert_eq!(f["monthly"][0]["year"], 2026);
    assert_eq!(f["monthly"][0]["month"], 12);
    assert_eq!(f["monthly"][0]["transfersIn"], "200.00");
    assert_eq!(f["monthly"][0]["balance"], "5200.00");
    assert_eq!(f["monthly"][1]["balance"], "5400.00");
    assert_eq!(f["projectedBalance"], "5400.00");
    let action = app
        .ok(
            &user,
            "getAccountForecast",
            json!({"accountId": s.tagesgeld, "months": 2}),
        )
        .await;
    assert_eq!(m(&action["projectedBalance"]), "5400.00");
    // The checking account by a part of its name: December's flows.
    let (g, _) = app
        .read(
            &user,
            "get_account_forecast",
            json!({"accountName": "giro", "months": 1}),
        )
        .await;
    let dec = &g["monthly"][0];
    assert_eq!(g["isCumulative"], false);
    assert_eq!(
        (
            m(&dec["income"]),
            m(&dec["expenses"]),
            m(&dec["transfersOut"]),
            m(&dec["net"])
        ),
        (
            "2500.00".into(),
            "912.99".into(),
            "200.00".into(),
            "1387.01".into()
        )
    );
    assert_eq!(dec["balance"], Value::Null);
    // An account id works as well, and a model's name in accountId too.
    let (by_id, _) = app
        .read(&user, "get_account_forecast", json!({"accountId": s.giro}))
        .await;
    assert_eq!(by_id["months"], 12);
    assert_eq!(by_id["account"]["name"], "Girokonto");
    let (mixed, _) = app
        .read(
            &user,
            "get_account_forecast",
            json!({"accountId": "Tagesgeld"}),
        )
        .await;
    assert_eq!(mixed["account"]["name"], "Tagesgeld");

    // The reserve plan: the yearly insurance, 100 a month.
    let (r, line) = app.read(&user, "get_reserve_plan", json!({})).await;
    assert_eq!(line, "looked at your reserve plan");
    assert_eq!(r["monthlyTotal"], "100.00");
    assert_eq!(r["entries"][0]["name"], "Versicherung");
    assert_eq!(r["entries"][0]["frequency"], "yearly");
    assert_eq!(r["entries"][0]["nextDueDate"], "2027-03-01");
    let plan = app.ok(&user, "getReservePlan", json!({})).await;
    for field in ["monthlyTotal", "targetTotal", "potsTotal", "gapTotal"] {
        assert_eq!(m(&plan[field]), m(&r[field]), "{field}");
    }

    // November's spending by category: 900 + 12.99 + 12.40.
    let (c, line) = app.read(&user, "spending_by_category", json!({})).await;
    assert_eq!(
        line,
        "looked at your spending by category for November 2026"
    );
    assert_eq!(c["expenses"], "925.39");
    let cats: Vec<(String, String, Value)> = c["categories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().into(),
                m(&x["amount"]),
                x["budget"].clone(),
            )
        })
        .collect();
    assert_eq!(
        cats,
        vec![
            ("Wohnen".into(), "900.00".into(), Value::Null),
            ("Freizeit".into(), "12.99".into(), json!("50.00")),
            ("Uncategorised".into(), "12.40".into(), Value::Null),
        ]
    );

    // Subscriptions.
    let (subs, line) = app.read(&user, "list_subscriptions", json!({})).await;
    assert_eq!(line, "looked at your subscriptions");
    assert_eq!(subs["monthlyTotal"], "12.99");
    assert_eq!(subs["yearlyTotal"], "155.88");
    assert_eq!(subs["subscriptions"][0]["name"], "Netflix");
    assert_eq!(subs["subscriptions"][0]["active"], true);

    // German lines.
    app.set_locale(&user, "de").await;
    let (_, line) = app
        .read(
            &user,
            "get_account_forecast",
            json!({"accountName": "Tagesgeld"}),
        )
        .await;
    assert_eq!(line, "Prognose für Tagesgeld angesehen");
    let (c, _) = app.read(&user, "spending_by_category", json!({})).await;
    assert_eq!(c["categories"][2]["name"], "Ohne Kategorie");

    // "Wie viel darf ich diesen Monat noch für Freizeit ausgeben?"
    let (b, line) = app.read(&user, "list_budgets", json!({})).await;
    assert_eq!(line, "Budgets für November 2026 angesehen");
    assert_eq!(b["month"], "2026-11");
    assert_eq!(b["budgets"][0]["name"], "Freizeit");
    assert_eq!(m(&b["budgets"][0]["available"]), "50.00");
    assert_eq!(m(&b["budgets"][0]["spent"]), "12.99");
    assert_eq!(m(&b["budgets"][0]["remaining"]), "37.01");
    assert_eq!(b["budgets"][0]["status"], "ok");
    let (before, _) = app
        .read(&user, "list_budgets", json!({"year": 2026, "month": 10}))
        .await;
    assert_eq!(before["budgets"], json!([]), "set from this month on");
}

#[tokio::test]
async fn insights_are_listed_in_the_users_language() {
    let app = spawn_app().await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2025, 6, 20, 6, 0, 0).unwrap());
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    app.ok(&user, "createIncome", json!({"name": "Minijob", "amount": 500, "frequency": "monthly", "startDate": "2025-06-01", "accountId": a})).await;
    app.ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2025-06-01", "accountId": a})).await;
    cashkeeper::app::insights::run(&app.state).await;

    let (en, line) = app.read(&user, "list_insights", json!({})).await;
    assert_eq!(line, "looked at your insights");
    let list = en["insights"].as_array().unwrap();
    let budget = list
        .iter()
        .find(|i| i["type"] == "budget_warning")
        .expect("950 out against 500 in");
    assert_eq!(budget["severity"], "critical");
    assert_eq!(budget["isRead"], false);
    let stored = app.ok(&user, "listInsights", json!({})).await;
    assert_eq!(stored.as_array().unwrap().len(), list.len());
    let german_title = stored
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == budget["id"])
        .unwrap()["title"]
        .clone();
    assert_ne!(
        budget["title"], german_title,
        "English made from the finding"
    );
    assert!(budget["message"].as_str().unwrap().contains("€"));

    app.set_locale(&user, "de").await;
    let (de, line) = app.read(&user, "list_insights", json!({})).await;
    assert_eq!(line, "Hinweise angesehen");
    let budget_de = de["insights"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "budget_warning")
        .unwrap()
        .clone();
    assert_eq!(budget_de["title"], german_title, "German as stored");
}

#[tokio::test]
async fn list_payments_stops_at_200_and_says_so() {
    let app = spawn_app().await;
    set_today(&app);
    let user = app.new_user().await;
    let giro = app.account(&user, "Girokonto", "EUR").await;
    // Four weekly items: 4 × 53 due dates in 2026.
    for name in ["A", "B", "C", "D"] {
        app.ok(&user, "createExpense", json!({"name": name, "amount": 1, "frequency": "weekly", "startDate": "2026-01-01", "accountId": giro})).await;
    }
    let (p, _) = app
        .read(
            &user,
            "list_payments",
            json!({"from": "2026-01-01", "to": "2026-12-31"}),
        )
        .await;
    assert_eq!(p["truncated"], true);
    assert_eq!(p["count"], 200);
    assert_eq!(p["payments"].as_array().unwrap().len(), 200);
    assert_eq!(p["payments"][0]["date"], "2026-01-01");
    // A whole year is one call: 365 days after the first.
    let (p, _) = app
        .read(
            &user,
            "list_payments",
            json!({"from": "2026-01-01", "to": "2027-01-01"}),
        )
        .await;
    assert_eq!(p["truncated"], true);
    // Within the limit, nothing is cut.
    let (p, _) = app
        .read(
            &user,
            "list_payments",
            json!({"from": "2026-01-01", "to": "2026-01-31"}),
        )
        .await;
    assert_eq!(
        (p["count"].clone(), p["truncated"].clone()),
        (json!(20), json!(false))
    );
}

#[tokio::test]
async fn bad_calls_fail_with_a_message_that_names_the_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    scenario(&app, &user).await;
    let other = app.new_user().await;
    let others_account = app.account(&other, "Depot", "EUR").await;

    for (name, args, expected) in [
        ("get_summary", "{not json", "arguments: not valid JSON"),
        ("get_summary", "[1, 2]", "arguments: must be a JSON object"),
        (
            "get_summary",
            r#"{"month": 13}"#,
            "month: must be a whole number from 1 to 12",
        ),
        (
            "list_payments",
            r#"{"from": "2026-11-01"}"#,
            "to: is required",
        ),
        (
            "list_payments",
            r#"{"from": "2026-11-01", "to": "2026-10-01"}"#,
            "to: must not be before from",
        ),
        (
            "list_payments",
            r#"{"from": "2026-01-01", "to": "2027-01-02"}"#,
            "to: must be at most 365 days after from",
        ),
        (
            "list_payments",
            r#"{"from": "soon", "to": "2027-01-01"}"#,
            "from: must be a date YYYY-MM-DD",
        ),
        ("search", "{}", "query: is required"),
        ("get_account_forecast", "{}", "accountId: is required"),
        (
            "get_account_forecast",
            r#"{"accountName": "Depot"}"#,
            "accountName: no account \"Depot\"; the accounts are: Girokonto, Tagesgeld",
        ),
        (
            "get_account_forecast",
            r#"{"accountName": "Tagesgeld", "months": 30}"#,
            "months: must be a whole number from 1 to 24",
        ),
        (
            "get_account_forecast",
            r#"{"accountName": "t"}"#,
            "accountName: \"t\" matches several accounts (Girokonto, Tagesgeld); give accountId",
        ),
        ("transfer_money", "{}", "unknown tool \"transfer_money\""),
    ] {
        let e = app.tool_fails(&user, name, args).await;
        assert!(e.starts_with(expected), "{name} {args}: {e}");
    }
    // Another user's account is unknown, and nothing of it shows.
    let e = app
        .tool_fails(
            &user,
            "get_account_forecast",
            &json!({ "accountId": others_account }).to_string(),
        )
        .await;
    assert!(e.starts_with("accountId: no account"), "{e}");
    assert!(!e.contains("Depot"), "{e}");
}

/// Calls `previewTool` as `user`.
async fn preview(app: &TestApp, user: &TestUser, tool: &str, arguments: Value) -> Value {
    app.ok(
        user,
        "previewTool",
        json!({ "tool": tool, "arguments": arguments }),
    )
    .await
}

/// The preview's single error, for a refused one.
fn refusal(p: &Value) -> String {
    assert_eq!(p["valid"], false, "{p}");
    assert_eq!(p["record"], Value::Null);
    let errors = p["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{p}");
    errors[0].as_str().unwrap().to_string()
}

#[tokio::test]
async fn previews_validate_like_the_actions_and_write_nothing() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let s = scenario(&app, &user).await;
    let other = app.new_user().await;
    let others_account = app.account(&other, "Fremd", "EUR").await;
    let others_expense = id(&app
        .ok(
            &other,
            "createDailyExpense",
            json!({"name": "x", "amount": 1, "date": "2026-11-01", "accountId": others_account}),
        )
        .await);
    let before = app.records(&user).await;
    let others_before = app.records(&other).await;

    let bakery = id(&app.ok(&user, "listDailyExpenses", json!({})).await[0]);
    let expenses = app.ok(&user, "listExpenses", json!({})).await;
    let rent = id(expenses
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "Miete")
        .unwrap());
    let salary = id(&app.ok(&user, "listIncomes", json!({})).await[0]);
    let transfer = id(&app.ok(&user, "listTransfers", json!({})).await[0]);

    // create_daily_expense, in German.
    app.set_locale(&user, "de").await;
    let p = preview(
        &app,
        &user,
        "create_daily_expense",
        json!({"name": "Bäckerei", "amount": "12,40", "date": "23.11.2026", "account_id": s.giro, "extra": 1}),
    )
    .await;
    assert_eq!(p["tool"], "create_daily_expense");
    assert_eq!(p["valid"], true, "{p}");
    assert_eq!(p["errors"], json!([]));
    assert_eq!(
        p["summary"],
        "Einzelausgabe 12,40\u{a0}€ bei Bäckerei am 23.11.2026 · Konto „Girokonto“ · ohne Kategorie",
        "the card names the account and the category it books on"
    );
    assert_eq!(
        p["record"],
        json!({"name": "Bäckerei", "amount": "12.40", "currency": "EUR", "date": "2026-11-23",
               "accountId": s.giro, "categoryId": null, "merchant": "", "notes": ""})
    );
    assert_eq!(p["action"], "createDailyExpense");
    assert_eq!(
        p["arguments"],
        json!({"name": "Bäckerei", "amount": "12,40", "date": "2026-11-23", "accountId": s.giro}),
        "the tidied arguments, the tool's fields only"
    );
    app.set_locale(&user, "en").await;

    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "create_daily_expense",
            json!({"name": "B", "amount": 0, "date": "2026-11-23", "accountId": s.giro}),
            "amount: must be greater than 0",
        ),
        (
            "create_daily_expense",
            json!({"name": "B", "amount": true, "date": "2026-11-23", "accountId": s.giro}),
            "amount: must be a number such as 12.50",
        ),
        (
            "create_daily_expense",
            json!({"name": "B", "amount": 1, "date": "2026-11-23", "accountId": others_account}),
            "accountId: not found",
        ),
        (
            "create_daily_expense",
            json!({"amount": 1, "date": "2026-11-23", "accountId": s.giro}),
            "name: is required",
        ),
        (
            "update_daily_expense",
            json!({"id": others_expense, "amount": 2}),
            "not found",
        ),
        (
            "update_daily_expense",
            json!({"amount": 2}),
            "id: is required",
        ),
        (
            "update_daily_expense",
            json!({"id": bakery, "date": "2026-02-30"}),
            "date: must be a valid date YYYY-MM-DD",
        ),
        (
            "create_expense",
            json!({"name": "Gym", "amount": 30, "frequency": "once", "startDate": "2026-12-01", "accountId": s.giro}),
            "frequency: must be weekly, monthly, quarterly, half_yearly or yearly",
        ),
        (
            "create_expense",
            json!({"name": "Gym", "amount": 30, "frequency": "monthly", "startDate": "2026-12-01", "accountId": s.giro, "isSubscription": "maybe"}),
            "isSubscription: must be true or false",
        ),
        (
            "update_expense",
            json!({"id": rent, "endDate": "2025-01-01"}),
            "endDate: must not be before startDate",
        ),
        ("update_expense", json!({"id": others_expense}), "not found"),
        (
            "create_income",
            json!({"name": "Bonus", "amount": "1.234", "frequency": "once", "startDate": "2026-12-01", "accountId": s.giro}),
            "amount: must have at most two decimals",
        ),
        (
            "update_income",
            json!({"id": salary, "accountId": others_account}),
            "accountId: not found",
        ),
        (
            "create_transfer",
            json!({"fromAccountId": s.giro, "toAccountId": s.giro, "amount": 5, "frequency": "once", "startDate": "2026-12-01"}),
            "toAccountId: must be another account than fromAccountId",
        ),
        (
            "update_transfer",
            json!({"id": transfer, "toAccountId": others_account}),
            "toAccountId: not found",
        ),
    ];
    for (tool, args, expected) in &cases {
        let p = preview(&app, &user, tool, args.clone()).await;
        let e = refusal(&p);
        assert!(e.starts_with(expected), "{tool} {args}: {e}");
        assert!(
            p["summary"].as_str().unwrap().contains(expected),
            "{}",
            p["summary"]
        );
        // The action itself says the same.
        let action = p["action"].as_str().unwrap();
        let said = app.refused(&user, action, p["arguments"].clone()).await;
        assert_eq!(said, e, "{tool}: the action refuses alike");
    }

    // A refused preview speaks the person's language, as the action does.
    app.set_locale(&user, "de").await;
    let p = preview(
        &app,
        &user,
        "create_income",
        json!({"name": "Bonus", "amount": 0, "frequency": "once", "startDate": "2026-12-01", "accountId": s.giro}),
    )
    .await;
    assert_eq!(refusal(&p), "amount: muss größer als 0 sein");
    assert_eq!(
        p["summary"],
        "Einnahme nicht möglich: amount: muss größer als 0 sein"
    );
    let said = app
        .refused(&user, "createIncome", p["arguments"].clone())
        .await;
    assert_eq!(said, "amount: muss größer als 0 sein");
    app.set_locale(&user, "en").await;

    // Valid previews of every write tool.
    let valid: Vec<(&str, Value, &str)> = vec![
        ("update_daily_expense", json!({"id": bakery, "amount": 15}), "Change: One-time expense €15.00 at Bäckerei on 5\u{a0}Nov\u{a0}2026 · account “Girokonto” · no category (was €12.40)"),
        ("create_expense", json!({"name": "Gym", "amount": 30, "frequency": "Monthly", "startDate": "2026-12-01", "accountId": s.giro}), "Recurring expense “Gym” €30.00 monthly from 1\u{a0}Dec\u{a0}2026 · account “Girokonto” · no category"),
        ("update_expense", json!({"id": rent, "endDate": "2027-06-30"}), "Change: Recurring expense “Miete” €900.00 monthly from 1\u{a0}Jan\u{a0}2026 until 30\u{a0}Jun\u{a0}2027 · account “Girokonto” · category “Wohnen”"),
        ("create_income", json!({"name": "Bonus", "amount": 500, "frequency": "once", "startDate": "2026-12-15", "accountId": s.giro}), "Income “Bonus” €500.00 on 15\u{a0}Dec\u{a0}2026 · account “Girokonto”"),
        ("update_income", json!({"id": salary, "amount": "2600"}), "Change: Income “Gehalt” €2,600.00 monthly from 1\u{a0}Jan\u{a0}2026 · account “Girokonto” (was €2,500.00)"),
        ("create_transfer", json!({"fromAccountId": s.giro, "toAccountId": s.tagesgeld, "amount": 100, "frequency": "yearly", "startDate": "2026-12-01"}), "Transfer €100.00 from Girokonto to Tagesgeld yearly from 1\u{a0}Dec\u{a0}2026"),
        ("update_transfer", json!({"id": transfer, "note": "Sparen"}), "Change: Transfer €200.00 from Girokonto to Tagesgeld monthly from 1\u{a0}Jan\u{a0}2026"),
    ];
    for (tool, args, summary) in &valid {
        let p = preview(&app, &user, tool, args.clone()).await;
        assert_eq!(p["valid"], true, "{tool}: {p}");
        assert_eq!(p["summary"], *summary, "{tool}");
        if tool.starts_with("update_") {
            assert_eq!(p["record"]["id"], args["id"], "{tool}");
        } else {
            assert!(p["record"].get("id").is_none(), "{tool}");
        }
    }
    let p = preview(
        &app,
        &user,
        "update_expense",
        json!({"id": rent, "endDate": "2027-06-30"}),
    )
    .await;
    assert_eq!(p["record"]["amount"], "900.00");
    assert_eq!(p["record"]["categoryId"], s.wohnen.as_str(), "kept");

    // previewTool's own input.
    for (body, expected) in [
        (
            json!({"tool": "get_summary", "arguments": {}}),
            "tool: \"get_summary\" is a read tool",
        ),
        (
            json!({"tool": "drop_everything"}),
            "tool: \"drop_everything\" is not a tool",
        ),
        (json!({"arguments": {}}), "tool: is required"),
        (
            json!({"tool": "create_income", "arguments": [1]}),
            "arguments: must be a JSON object",
        ),
    ] {
        let e = app.refused(&user, "previewTool", body.clone()).await;
        assert!(e.starts_with(expected), "{body}: {e}");
    }
    // Arguments as JSON text work too.
    let p = preview(
        &app,
        &user,
        "create_income",
        json!(json!({"name": "Bonus", "amount": 5, "frequency": "once", "startDate": "2026-12-01", "accountId": s.giro}).to_string()),
    )
    .await;
    assert_eq!(p["valid"], true, "{p}");

    // Nothing was written, for either user.
    assert_eq!(app.records(&user).await, before);
    assert_eq!(app.records(&other).await, others_before);
}

#[tokio::test]
async fn confirming_sends_the_arguments_to_the_action_which_writes_the_previewed_record() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let s = scenario(&app, &user).await;
    let bakery = id(&app.ok(&user, "listDailyExpenses", json!({})).await[0]);
    let calls = vec![
        (
            "create_daily_expense",
            json!({"name": "Brötchen", "amount": 3.2, "currency": "eur", "date": "2026-11-23", "accountId": s.giro, "categoryId": s.wohnen, "merchant": "Bäckerei Müller", "notes": "Sonntag"}),
        ),
        (
            "update_daily_expense",
            json!({"id": bakery, "amount": "13.10", "merchant": "Bäcker"}),
        ),
        (
            "create_expense",
            json!({"name": "Gym", "amount": "29.90", "frequency": "monthly", "startDate": "2026-12-01", "endDate": "2027-11-30", "accountId": s.giro, "categoryId": s.wohnen, "isSubscription": true, "notes": "Vertrag"}),
        ),
        (
            "create_income",
            json!({"name": "Bonus", "amount": 500, "frequency": "once", "startDate": "2026-12-15", "accountId": s.tagesgeld, "notes": "Q4"}),
        ),
        (
            "create_transfer",
            json!({"fromAccountId": s.tagesgeld, "toAccountId": s.giro, "amount": 50, "frequency": "quarterly", "startDate": "2027-01-01", "endDate": "2027-12-31", "note": "zurück"}),
        ),
    ];
    for (tool, args) in calls {
        let p = preview(&app, &user, tool, args).await;
        assert_eq!(p["valid"], true, "{tool}: {p}");
        let stored = app
            .ok(&user, p["action"].as_str().unwrap(), p["arguments"].clone())
            .await;
        for (key, value) in p["record"].as_object().unwrap() {
            let got = &stored[key];
            if key == "amount" {
                assert_eq!(m(got), m(value), "{tool}.{key}");
            } else {
                assert_eq!(got, value, "{tool}.{key}");
            }
        }
    }
}

#[tokio::test]
async fn the_chat_gets_a_proposal_for_a_valid_write_and_the_refusal_otherwise() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let s = scenario(&app, &user).await;
    let other = app.new_user().await;
    let others_account = app.account(&other, "Fremd", "EUR").await;
    let others_income = id(&app
        .ok(&other, "createIncome", json!({"name": "x", "amount": 1, "frequency": "once", "startDate": "2026-11-01", "accountId": others_account}))
        .await);
    let before = app.records(&user).await;

    // Sloppy, as a local model sends it: the object's JSON in a string,
    // snake_case, a German date, a decimal comma.
    let sloppy = json!(
        json!({"name": "Bäckerei", "amount": "12,40", "date": "23.11.2026", "account_id": s.giro})
            .to_string()
    )
    .to_string();
    match app.tool(&user, "create_daily_expense", &sloppy).await {
        Outcome::Proposed { arguments, preview } => {
            assert!(preview.valid);
            assert_eq!(preview.tool, "create_daily_expense");
            assert_eq!(
                preview.summary,
                "One-time expense €12.40 at Bäckerei on 23\u{a0}Nov\u{a0}2026 · account “Girokonto” · no category"
            );
            assert_eq!(arguments["date"], "2026-11-23");
            assert_eq!(arguments["accountId"], s.giro.as_str());
            // Confirm: the arguments as they are.
            let stored = app.ok(&user, "createDailyExpense", arguments).await;
            assert_eq!(m(&stored["amount"]), "12.40");
            app.ok(&user, "deleteDailyExpense", json!({"id": id(&stored)}))
                .await;
        }
        _ => panic!("a valid write is proposed"),
    }
    let refused = [
        (
            "create_daily_expense",
            json!({"name": "B", "amount": -1, "date": "2026-11-23", "accountId": s.giro}),
            "amount: must be greater than 0",
        ),
        (
            "create_daily_expense",
            json!({"name": "B", "amount": 1, "date": "2026-11-23", "accountId": others_account}),
            "accountId: not found",
        ),
        (
            "update_income",
            json!({"id": others_income, "amount": 5}),
            "not found",
        ),
        (
            "create_expense",
            json!({"name": "B", "amount": 1, "frequency": "fortnightly", "startDate": "2026-11-23", "accountId": s.giro}),
            "frequency: must be weekly",
        ),
    ];
    for (tool, args, expected) in refused {
        let e = app.tool_fails(&user, tool, &args.to_string()).await;
        assert!(e.starts_with(expected), "{tool}: {e}");
    }
    assert_eq!(app.records(&user).await, before, "nothing written");
}

/// A read tool runs within the read budget of the read actions: past it the
/// tool fails with the busy words, and the connection is free again.
#[tokio::test]
async fn a_read_tool_past_the_read_budget_fails_as_busy() {
    let dir = tempfile::tempdir().unwrap();
    let app = spawn_app_in(dir, |_| {}).await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    app.many_daily_expenses(&user, &giro, "2026-03", 2000, 1234)
        .await;
    let (found, _) = app.read(&user, "search", json!({"query": "Einkauf"})).await;
    assert!(found.to_string().contains("Einkauf"), "{found}");

    let dir = app.stop().await;
    let app = spawn_app_in(dir, |c| c.read_budget = Some(std::time::Duration::ZERO)).await;
    let message = app
        .tool_fails(&user, "search", r#"{"query": "Einkauf"}"#)
        .await;
    assert_eq!(
        message,
        "the service is busy right now; please try again in a few seconds"
    );
}
