//! The money core through its actions: accounts, categories, recurring and
//! one-time expenses, subscriptions, incomes, transfers, dashboard, search,
//! merchant learning; bad input and cross-user isolation for each.

use crate::support::*;
use serde_json::{json, Value};

/// The dashboard's cashflow `field` (`income`, `expenses`) of the month of
/// `day`, as text with two decimals.
async fn cashflow(app: &TestApp, user: &TestUser, day: chrono::NaiveDate, field: &str) -> String {
    use chrono::Datelike;
    let r = app
        .ok(
            user,
            "getDashboard",
            json!({"year": day.year(), "month": day.month()}),
        )
        .await;
    m(&r["cashflow"][field])
}

/// An amount of a reply, as text with two decimals.
fn m(v: &Value) -> String {
    format!(
        "{:.2}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

/// A percentage of a reply, as text with one decimal.
fn pct(v: &Value) -> String {
    format!(
        "{:.1}",
        v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
    )
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn accounts_are_created_listed_updated_and_keep_the_users_balance() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Girokonto", "type": "checking", "currency": "eur", "balance": 1234.5}),
        )
        .await;
    assert_eq!(a["currency"], "EUR");
    assert_eq!(a["type"], "checking");
    assert_eq!(m(&a["balance"]), "1234.50");
    // On the wire, amounts are numbers with exactly two decimals.
    let raw = app.raw(&user, "listAccounts", json!({})).await;
    assert!(raw.contains("\"balance\":1234.50"), "{raw}");
    assert_eq!(id(&a).len(), 36);
    let updated = app
        .ok(
            &user,
            "updateAccount",
            json!({"id": id(&a), "balance": "-20.10", "type": "savings"}),
        )
        .await;
    assert_eq!(m(&updated["balance"]), "-20.10");
    assert_eq!(updated["name"], "Girokonto", "fields left out stay");
    assert_eq!(updated["type"], "savings");
    // Entries never change the balance.
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Bäcker", "amount": "3.20", "date": "2026-01-05", "accountId": id(&a)}),
    )
    .await;
    let list = app.ok(&user, "listAccounts", json!({})).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(m(&list[0]["balance"]), "-20.10");
}

/// On the wire, the amounts of recurring and one-time records are numbers
/// with exactly two decimals, as clients have always read them.
#[tokio::test]
async fn record_amounts_are_numbers_with_two_decimals_on_the_wire() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let b = app.account(&user, "Tagesgeld", "EUR").await;
    let plan = |amount: &str| json!({"amount": amount, "frequency": "monthly", "startDate": "2026-01-01", "accountId": a});
    let mut expense = plan("12.3");
    expense["name"] = json!("Hausrat");
    let mut income = plan("1234.5");
    income["name"] = json!("Gehalt");
    for (create, body, list, amount) in [
        ("createExpense", expense, "listExpenses", "12.30"),
        ("createIncome", income, "listIncomes", "1234.50"),
        (
            "createTransfer",
            json!({"fromAccountId": a, "toAccountId": b, "amount": 100, "frequency": "monthly", "startDate": "2026-01-01"}),
            "listTransfers",
            "100.00",
        ),
        (
            "createDailyExpense",
            json!({"name": "Rad", "amount": "1234.5", "date": "2026-01-05", "accountId": a}),
            "listDailyExpenses",
            "1234.50",
        ),
    ] {
        let wanted = format!("\"amount\":{amount},");
        let made = app.raw(&user, create, body).await;
        assert!(made.contains(&wanted), "{create}: {made}");
        let listed = app.raw(&user, list, json!({})).await;
        assert!(listed.contains(&wanted), "{list}: {listed}");
    }
}

#[tokio::test]
async fn account_input_errors_name_the_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    for (body, field) in [
        (
            json!({"type": "checking", "currency": "EUR"}),
            "name: is required",
        ),
        (
            json!({"name": "A", "type": "crypto", "currency": "EUR"}),
            "type: ",
        ),
        (
            json!({"name": "A", "type": "checking", "currency": "XYZ"}),
            "currency: unknown currency",
        ),
        (
            json!({"name": "A", "type": "checking"}),
            "currency: is required",
        ),
        (
            json!({"name": "A", "type": "checking", "currency": "EUR", "balance": "12.345"}),
            "balance: must have at most two decimals",
        ),
        (
            json!({"name": "A", "type": "checking", "currency": "EUR", "balance": "lots"}),
            "balance: must be a number",
        ),
        (
            json!({"name": "x".repeat(101), "type": "checking", "currency": "EUR"}),
            "name: must be at most 100",
        ),
    ] {
        let err = app.refused(&user, "createAccount", body.clone()).await;
        assert!(err.starts_with(field), "{body}: {err}");
    }
}

#[tokio::test]
async fn an_account_in_use_is_not_deleted_unless_its_entries_move() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let b = app.account(&user, "Tagesgeld", "EUR").await;
    let e = app
        .ok(&user, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2026-01-01", "accountId": a}))
        .await;
    app.ok(&user, "createTransfer", json!({"fromAccountId": a, "toAccountId": b, "amount": 100, "frequency": "monthly", "startDate": "2026-01-01"}))
        .await;
    let err = app.refused(&user, "deleteAccount", json!({"id": a})).await;
    assert!(
        err.contains("1 recurring expenses") && err.contains("1 transfers"),
        "{err}"
    );
    assert_eq!(
        app.ok(&user, "listAccounts", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );

    app.ok(&user, "deleteAccount", json!({"id": a, "moveTo": b}))
        .await;
    let expenses = app.ok(&user, "listExpenses", json!({})).await;
    assert_eq!(expenses[0]["id"], e["id"]);
    assert_eq!(expenses[0]["accountId"], b.as_str());
    // The transfer from a to b would now run from b to b: it is gone.
    assert_eq!(app.ok(&user, "listTransfers", json!({})).await, json!([]));
}

#[tokio::test]
async fn a_new_user_gets_default_categories_in_their_language() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let names: Vec<&str> = cats
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 10);
    assert!(names.contains(&"Groceries"), "{names:?}");
    let german = app
        .reply(
            app.client
                .post(app.url("/actions/register"))
                .header("content-type", "application/json")
                .header("accept-language", "de")
                .body(json!({"email": unique_email(), "password": "correct horse"}).to_string()),
        )
        .await;
    let cookie = german.session_cookie().unwrap();
    let cats = app.action("listCategories", json!({}), Some(&cookie)).await;
    assert!(cats
        .data()
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["name"] == "Lebensmittel"));
}

#[tokio::test]
async fn categories_validate_and_deleting_one_leaves_entries_uncategorised() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let k = app
        .ok(
            &user,
            "createCategory",
            json!({"name": "Haustier", "icon": "🐕", "color": "#AA3300"}),
        )
        .await;
    assert_eq!(k["color"], "#aa3300");
    for (body, field) in [
        (json!({"name": "X", "color": "red"}), "color: "),
        (json!({"name": "X", "icon": "dog"}), "icon: "),
        (json!({"icon": "🐕"}), "name: is required"),
        (
            json!({"name": "haustier"}),
            "name: a category with this name exists",
        ),
        (
            json!({"name": "Y", "monthlyLimit": -5}),
            "monthlyLimit: must be greater than 0",
        ),
    ] {
        let err = app.refused(&user, "createCategory", body.clone()).await;
        assert!(err.starts_with(field), "{body}: {err}");
    }
    let a = app.account(&user, "Giro", "EUR").await;
    let d = app
        .ok(&user, "createDailyExpense", json!({"name": "Futter", "amount": "25", "date": "2026-01-10", "accountId": a, "categoryId": id(&k)}))
        .await;
    app.ok(&user, "deleteCategory", json!({"id": id(&k)})).await;
    let list = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(list[0]["id"], d["id"]);
    assert_eq!(list[0]["categoryId"], Value::Null);
}

#[tokio::test]
async fn recurring_expenses_round_trip_every_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let cat = id(&cats[0]);
    let e = app
        .ok(
            &user,
            "createExpense",
            json!({
                "name": "Hausrat", "amount": "89.90", "currency": "EUR", "frequency": "yearly",
                "startDate": "2026-03-31", "endDate": "2030-03-31", "accountId": a,
                "categoryId": cat, "isSubscription": false, "notes": "Police 123"
            }),
        )
        .await;
    assert_eq!(m(&e["amount"]), "89.90");
    assert_eq!(e["frequency"], "yearly");
    assert_eq!(e["startDate"], "2026-03-31");
    assert_eq!(e["endDate"], "2030-03-31");
    assert_eq!(e["categoryId"], cat.as_str());
    assert_eq!(e["notes"], "Police 123");
    // Partial update; null clears the end date.
    let u = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id(&e), "amount": 95, "endDate": null}),
        )
        .await;
    assert_eq!(m(&u["amount"]), "95.00");
    assert_eq!(u["endDate"], Value::Null);
    assert_eq!(u["frequency"], "yearly");
    app.ok(&user, "deleteExpense", json!({"id": id(&e)})).await;
    assert_eq!(app.ok(&user, "listExpenses", json!({})).await, json!([]));
    assert_eq!(
        app.refused(&user, "deleteExpense", json!({"id": id(&e)}))
            .await,
        "not found"
    );
}

#[tokio::test]
async fn bad_expense_input_names_the_field_and_writes_nothing() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let other = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let foreign_account = app.account(&other, "Fremd", "EUR").await;
    let foreign_cat = id(&app.ok(&other, "listCategories", json!({})).await[0]);
    let base = json!({"name": "Miete", "amount": "950", "frequency": "monthly", "startDate": "2026-01-01", "accountId": a});
    let cases: Vec<(Value, &str)> = vec![
        (json!({"amount": -5}), "amount: must be greater than 0"),
        (json!({"amount": 0}), "amount: must be greater than 0"),
        (json!({"amount": "zehn"}), "amount: must be a number"),
        (json!({"amount": [1]}), "amount: must be a number"),
        (
            json!({"amount": "1000000000"}),
            "amount: must be at most 999,999,999.99",
        ),
        (
            json!({"amount": 1e12}),
            "amount: must be at most 999,999,999.99",
        ),
        (
            json!({"amount": "9.999"}),
            "amount: must have at most two decimals",
        ),
        (json!({"currency": "ABC"}), "currency: unknown currency"),
        (
            json!({"startDate": "2026-02-30"}),
            "startDate: must be a valid date",
        ),
        (json!({"startDate": "yesterday"}), "startDate: "),
        (
            json!({"endDate": "2025-12-31"}),
            "endDate: must not be before startDate",
        ),
        (json!({"frequency": "once"}), "frequency: "),
        (json!({"frequency": "daily"}), "frequency: "),
        (
            json!({"accountId": "00000000-0000-0000-0000-000000000000"}),
            "accountId: not found",
        ),
        (
            json!({"accountId": foreign_account}),
            "accountId: not found",
        ),
        (json!({"categoryId": foreign_cat}), "categoryId: not found"),
        (json!({"name": ""}), "name: is required"),
        (json!({"name": 5}), "name: "),
        (
            json!({"notes": "n".repeat(2001)}),
            "notes: must be at most 2000",
        ),
    ];
    for (patch, expected) in cases {
        let mut body = base.clone();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        let err = app.refused(&user, "createExpense", body.clone()).await;
        assert!(err.starts_with(expected), "{patch}: {err}");
    }
    let mut missing = base.clone();
    missing.as_object_mut().unwrap().remove("startDate");
    assert_eq!(
        app.refused(&user, "createExpense", missing).await,
        "startDate: is required"
    );
    assert_eq!(app.ok(&user, "listExpenses", json!({})).await, json!([]));
}

#[tokio::test]
async fn another_users_records_behave_like_unknown_ids() {
    let app = spawn_app().await;
    let alice = app.new_user().await;
    let bob = app.new_user().await;
    let a = app.account(&alice, "Giro", "EUR").await;
    let a2 = app.account(&alice, "Spar", "EUR").await;
    let cat = id(&app
        .ok(&alice, "createCategory", json!({"name": "Privat"}))
        .await);
    let exp = id(&app
        .ok(&alice, "createExpense", json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2026-01-01", "accountId": a}))
        .await);
    let daily = id(&app
        .ok(
            &alice,
            "createDailyExpense",
            json!({"name": "Kino", "amount": 12, "date": "2026-01-03", "accountId": a}),
        )
        .await);
    let inc = id(&app
        .ok(&alice, "createIncome", json!({"name": "Gehalt", "amount": 3000, "frequency": "monthly", "startDate": "2026-01-31", "accountId": a}))
        .await);
    let tr = id(&app
        .ok(&alice, "createTransfer", json!({"fromAccountId": a, "toAccountId": a2, "amount": 100, "frequency": "once", "startDate": "2026-01-15"}))
        .await);
    for (kind, rid) in [
        ("Account", &a),
        ("Category", &cat),
        ("Expense", &exp),
        ("DailyExpense", &daily),
        ("Income", &inc),
        ("Transfer", &tr),
    ] {
        let upd = app
            .refused(
                &bob,
                &format!("update{kind}"),
                json!({"id": rid, "name": "hacked", "note": "x"}),
            )
            .await;
        assert_eq!(upd, "not found", "update{kind}");
        let del = app
            .refused(&bob, &format!("delete{kind}"), json!({"id": rid}))
            .await;
        assert_eq!(del, "not found", "delete{kind}");
        let unknown = app
            .refused(
                &bob,
                &format!("delete{kind}"),
                json!({"id": "6c1f3bd4-1c2b-4a7e-9d4e-2b8e3f0a9c11"}),
            )
            .await;
        assert_eq!(unknown, del, "{kind}: foreign and unknown look the same");
    }
    for list in [
        "listAccounts",
        "listExpenses",
        "listDailyExpenses",
        "listIncomes",
        "listTransfers",
    ] {
        assert_eq!(app.ok(&bob, list, json!({})).await, json!([]), "{list}");
    }
    let bobs_cats = app.ok(&bob, "listCategories", json!({})).await;
    assert!(bobs_cats
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["name"] != "Privat"));
    assert_eq!(
        app.ok(&bob, "search", json!({"query": "Miete"})).await,
        json!([])
    );
    // Bob cannot book onto Alice's account either.
    let err = app
        .refused(
            &bob,
            "createDailyExpense",
            json!({"name": "x", "amount": 1, "date": "2026-01-01", "accountId": a}),
        )
        .await;
    assert_eq!(err, "accountId: not found");
    // Alice's records are untouched.
    assert_eq!(
        app.ok(&alice, "listExpenses", json!({})).await[0]["name"],
        "Miete"
    );
    assert_eq!(
        app.ok(&alice, "listTransfers", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn incomes_once_or_recurring_and_transfers_need_two_accounts() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let b = app.account(&user, "Depot", "USD").await;
    let once = app
        .ok(&user, "createIncome", json!({"name": "Bonus", "amount": "500", "frequency": "once", "startDate": "2026-03-15", "endDate": "2027-01-01", "accountId": a}))
        .await;
    assert_eq!(once["frequency"], "once");
    assert_eq!(
        once["endDate"], "2026-03-15",
        "a one-off ends where it starts"
    );
    let same = app
        .refused(&user, "createTransfer", json!({"fromAccountId": a, "toAccountId": a, "amount": 10, "frequency": "once", "startDate": "2026-01-01"}))
        .await;
    assert!(same.starts_with("toAccountId: "), "{same}");
    let t = app
        .ok(&user, "createTransfer", json!({"fromAccountId": b, "toAccountId": a, "amount": 10, "frequency": "monthly", "startDate": "2026-01-01", "note": "ETF"}))
        .await;
    assert_eq!(t["currency"], "USD", "in the source account's currency");
    let moved = app
        .ok(
            &user,
            "updateTransfer",
            json!({"id": id(&t), "fromAccountId": a, "toAccountId": b}),
        )
        .await;
    assert_eq!(moved["currency"], "EUR");
    let err = app
        .refused(
            &user,
            "updateTransfer",
            json!({"id": id(&t), "toAccountId": a}),
        )
        .await;
    assert!(err.starts_with("toAccountId: "), "{err}");
}

#[tokio::test]
async fn subscriptions_have_their_own_list_with_monthly_and_yearly_totals() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let day = app.state.clock.today().to_string();
    for (name, amount, freq, sub) in [
        ("Netflix", "12.99", "monthly", true),
        ("Zeitung", "120", "yearly", true),
        ("Miete", "950", "monthly", false),
    ] {
        app.ok(&user, "createExpense", json!({"name": name, "amount": amount, "frequency": freq, "startDate": day, "accountId": a, "isSubscription": sub}))
            .await;
    }
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    let list = subs["subscriptions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|s| s["isSubscription"] == true));
    assert_eq!(m(&subs["monthlyTotal"]), "22.99");
    assert_eq!(m(&subs["yearlyTotal"]), "275.88");
    let zeitung = list.iter().find(|s| s["name"] == "Zeitung").unwrap();
    assert_eq!(m(&zeitung["monthlyAmount"]), "10.00");
    assert_eq!(m(&zeitung["yearlyAmount"]), "120.00");
}

#[tokio::test]
async fn the_yearly_figure_of_subscriptions_counts_a_scheduled_price_change() {
    let app = spawn_app().await;
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z").unwrap();
    app.state.clock.set(at.with_timezone(&chrono::Utc));
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let e = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
                   "startDate": "2024-01-15", "accountId": a, "isSubscription": true}),
        )
        .await;
    // 15.99 from next month: every payment of the next twelve months.
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id(&e), "amount": "15.99", "amountFrom": "2026-12-01"}),
    )
    .await;
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    assert_eq!(
        m(&subs["monthlyTotal"]),
        "13.99",
        "a month at today's price"
    );
    assert_eq!(
        m(&subs["yearlyTotal"]),
        "191.88",
        "12 × 15.99, not 12 × 13.99"
    );
    assert_eq!(m(&subs["subscriptions"][0]["yearlyAmount"]), "191.88");
    // The page shows the same figure and says which twelve months it means.
    let page = app.page(&user, "/subscriptions").await;
    assert!(page.contains("191.88"), "{page}");
    assert!(!page.contains("167.88"), "{page}");
    assert!(page.contains("Total in the next 12 months"), "{page}");
    // A raise from later in the year counts from then.
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id(&e), "amount": "13.99", "amountFrom": "2024-01-15"}),
    )
    .await;
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id(&e), "amount": "15.99", "amountFrom": "2027-03-01"}),
    )
    .await;
    let subs = app.ok(&user, "listSubscriptions", json!({})).await;
    // December, January, February at 13.99; March to November at 15.99.
    assert_eq!(m(&subs["yearlyTotal"]), "185.88");
}

#[tokio::test]
async fn one_time_expenses_filter_by_month_and_category() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let (food, fun) = (id(&cats[0]), id(&cats[1]));
    for (name, date, cat) in [
        ("A", "2026-01-31", Some(&food)),
        ("B", "2026-02-01", Some(&food)),
        ("C", "2026-02-28", Some(&fun)),
        ("D", "2026-02-15", None),
    ] {
        let mut body = json!({"name": name, "amount": 10, "date": date, "accountId": a});
        if let Some(c) = cat {
            body["categoryId"] = json!(c);
        }
        app.ok(&user, "createDailyExpense", body).await;
    }
    let feb = app
        .ok(&user, "listDailyExpenses", json!({"month": "2026-02"}))
        .await;
    let names: Vec<&str> = feb
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["C", "D", "B"], "newest first");
    let feb_food = app
        .ok(
            &user,
            "listDailyExpenses",
            json!({"month": "2026-02", "categoryId": food}),
        )
        .await;
    assert_eq!(feb_food.as_array().unwrap().len(), 1);
    let none = app
        .ok(&user, "listDailyExpenses", json!({"categoryId": "none"}))
        .await;
    assert_eq!(none[0]["name"], "D");
    let range = app
        .ok(
            &user,
            "listDailyExpenses",
            json!({"from": "2026-01-31", "to": "2026-02-01"}),
        )
        .await;
    assert_eq!(range.as_array().unwrap().len(), 2);
    assert!(app
        .refused(&user, "listDailyExpenses", json!({"month": "2026-13"}))
        .await
        .starts_with("month: "));
    assert!(app
        .refused(
            &user,
            "listDailyExpenses",
            json!({"from": "2026-02-02", "to": "2026-02-01"})
        )
        .await
        .starts_with("to: "));
}

#[tokio::test]
async fn a_known_merchant_preselects_its_category() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let groceries = cats
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Groceries")
        .unwrap();
    let gid = id(groceries);
    let hint = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "REWE Markt 1234 Berlin"}),
        )
        .await;
    assert_eq!(hint["categoryId"], Value::Null);
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Einkauf", "merchant": "REWE Markt 0815 München", "amount": "23.10", "date": "2026-01-05", "accountId": a, "categoryId": gid}),
    )
    .await;
    let hint = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "rewe  markt 1234 berlin"}),
        )
        .await;
    assert_eq!(hint["merchant"], "rewe markt");
    assert_eq!(hint["categoryId"], gid.as_str());
    let prefix = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "Rew"}),
        )
        .await;
    assert_eq!(prefix["suggestions"][0]["merchant"], "rewe markt");
    assert_eq!(prefix["suggestions"][0]["category"]["name"], "Groceries");

    // Explicit learning overrides.
    let fun = id(cats
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Leisure")
        .unwrap());
    app.ok(
        &user,
        "learnMerchantCategory",
        json!({"merchant": "REWE Markt", "categoryId": fun}),
    )
    .await;
    let hint = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "REWE MARKT"}),
        )
        .await;
    assert_eq!(hint["categoryId"], fun.as_str());
    assert_eq!(hint["similarTo"], Value::Null, "an exact match");
    // Written shorter or with a typo, it is still that merchant; another
    // one, or a name too short to guess from, is not.
    for typed in ["Rewe", "REWE Makrt", "Rewe Markt City 12"] {
        let hint = app
            .ok(
                &user,
                "getMerchantCategoryHints",
                json!({"merchant": typed}),
            )
            .await;
        assert_eq!(hint["categoryId"], fun.as_str(), "{typed}");
        assert_eq!(hint["similarTo"], "rewe markt", "{typed}");
    }
    for typed in ["Aldi Süd", "Re"] {
        let hint = app
            .ok(
                &user,
                "getMerchantCategoryHints",
                json!({"merchant": typed}),
            )
            .await;
        assert_eq!(hint["categoryId"], Value::Null, "{typed}");
    }
    let other = app.new_user().await;
    let err = app
        .refused(
            &other,
            "learnMerchantCategory",
            json!({"merchant": "x", "categoryId": fun}),
        )
        .await;
    assert_eq!(err, "categoryId: not found");
    let hint = app
        .ok(
            &other,
            "getMerchantCategoryHints",
            json!({"merchant": "REWE MARKT"}),
        )
        .await;
    assert_eq!(hint["categoryId"], Value::Null, "learning is per user");
}

#[tokio::test]
async fn search_ranks_exact_and_prefix_matches_first_across_record_types() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Supermarkt Kino", "amount": 5, "date": "2026-01-01", "accountId": a}),
    )
    .await;
    app.ok(&user, "createDailyExpense", json!({"name": "Popcorn", "notes": "im kino", "amount": 5, "date": "2026-01-02", "accountId": a})).await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Kinoabend", "amount": 15, "date": "2026-01-03", "accountId": a}),
    )
    .await;
    app.ok(&user, "createExpense", json!({"name": "Kino", "amount": 9.99, "frequency": "monthly", "startDate": "2026-01-01", "accountId": a})).await;
    app.ok(&user, "createDailyExpense", json!({"name": "Tickets", "merchant": "CinemaxX Kino 12", "amount": 5, "date": "2026-01-04", "accountId": a})).await;
    let hits = app.ok(&user, "search", json!({"query": "kino"})).await;
    let names: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[0], "Kino");
    assert_eq!(names[1], "Kinoabend");
    assert_eq!(names[2], "Supermarkt Kino");
    assert_eq!(names.len(), 5, "{names:?}");
    assert_eq!(hits[0]["kind"], "expense");
    assert_eq!(hits[1]["kind"], "dailyExpense");
    assert_eq!(
        app.refused(&user, "search", json!({"query": "  "})).await,
        "query: is required"
    );
    assert_eq!(
        app.ok(&user, "search", json!({"query": "%"})).await,
        json!([])
    );
}

#[tokio::test]
async fn the_dashboard_adds_up_a_hand_worked_month() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let cats = app.ok(&user, "listCategories", json!({})).await;
    let housing = id(cats
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "Housing")
        .unwrap());
    // March 2025: salary on the (clamped) 31st, rent, yearly insurance due
    // in March, a quarterly fee due in Feb/May, a one-time purchase, a bonus.
    for (action, body) in [
        (
            "createIncome",
            json!({"name": "Gehalt", "amount": 3000, "frequency": "monthly", "startDate": "2025-01-31", "accountId": a}),
        ),
        (
            "createIncome",
            json!({"name": "Bonus", "amount": 500, "frequency": "once", "startDate": "2025-03-15", "accountId": a}),
        ),
        (
            "createExpense",
            json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2025-01-01", "accountId": a, "categoryId": housing}),
        ),
        (
            "createExpense",
            json!({"name": "Versicherung", "amount": 600, "frequency": "yearly", "startDate": "2025-03-10", "accountId": a}),
        ),
        (
            "createExpense",
            json!({"name": "Gebühr", "amount": 30, "frequency": "quarterly", "startDate": "2025-02-28", "accountId": a}),
        ),
        (
            "createExpense",
            json!({"name": "Streaming", "amount": "12.99", "frequency": "monthly", "startDate": "2024-06-15", "accountId": a, "isSubscription": true}),
        ),
        (
            "createDailyExpense",
            json!({"name": "Schuhe", "amount": "129.99", "date": "2025-03-20", "accountId": a}),
        ),
    ] {
        app.ok(&user, action, body).await;
    }
    let d = app
        .ok(&user, "getDashboard", json!({"year": 2025, "month": 3}))
        .await;
    assert_eq!(d["currency"], "EUR");
    assert_eq!(m(&d["cashflow"]["income"]), "3500.00");
    // 950 + 600 + 12.99 + 129.99
    assert_eq!(m(&d["cashflow"]["expenses"]), "1692.98");
    assert_eq!(m(&d["cashflow"]["surplus"]), "1807.02");
    // February: 3000 in, 950 + 30 + 12.99 out.
    assert_eq!(pct(&d["cashflow"]["incomeChangePct"]), "16.7");
    assert_eq!(pct(&d["cashflow"]["expensesChangePct"]), "70.5");
    // Reserve: 950 + 50 + 10 + 12.99 + 129.99
    assert_eq!(m(&d["reserve"]["expenses"]), "1152.98");
    assert_eq!(m(&d["recurring"]["fixedCostsMonthly"]), "1010.00");
    assert_eq!(d["recurring"]["fixedCostsCount"], 3);
    assert_eq!(m(&d["recurring"]["subscriptionsMonthly"]), "12.99");
    assert_eq!(d["byCategory"][0]["category"]["name"], "Housing");
    assert_eq!(m(&d["byCategory"][0]["amount"]), "950.00");
    assert_eq!(d["months"].as_array().unwrap().len(), 12);
    assert_eq!(d["months"][11]["month"], 3);
    assert_eq!(m(&d["months"][10]["expenses"]), "992.99");
    assert_eq!(m(&d["totalAssets"]), "1000.00");
    assert_eq!(d["hasMultiCurrency"], false);
    let bad = app
        .refused(&user, "getDashboard", json!({"year": 2025, "month": 13}))
        .await;
    assert!(bad.starts_with("month: "), "{bad}");
}

#[tokio::test]
async fn next_payments_leave_out_todays_purchases_and_past_one_offs() {
    let app = spawn_app().await;
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-27T12:00:00Z").unwrap();
    app.state.clock.set(at.with_timezone(&chrono::Utc));
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    // Four purchases made today, one planned for tomorrow.
    for (name, date) in [
        ("Bäcker", "2026-11-27"),
        ("Drogerie", "2026-11-27"),
        ("Tankstelle", "2026-11-27"),
        ("Kiosk", "2026-11-27"),
        ("Konzertkarte", "2026-11-28"),
    ] {
        app.ok(
            &user,
            "createDailyExpense",
            json!({"name": name, "amount": "12.50", "date": date, "accountId": a}),
        )
        .await;
    }
    for (action, body) in [
        (
            "createExpense",
            json!({"name": "Miete", "amount": 950, "frequency": "monthly", "startDate": "2026-01-27", "accountId": a}),
        ),
        (
            "createExpense",
            json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly", "startDate": "2026-01-30", "accountId": a, "isSubscription": true}),
        ),
        (
            "createIncome",
            json!({"name": "Steuererstattung", "amount": 300, "frequency": "once", "startDate": "2026-06-15", "accountId": a}),
        ),
    ] {
        app.ok(&user, action, body).await;
    }
    let d = app.ok(&user, "getDashboard", json!({})).await;
    let next: Vec<(&str, &str)> = d["upcoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["date"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    // The rent due today may still go out; today's purchases are paid.
    assert_eq!(
        next,
        vec![
            ("2026-11-27", "Miete"),
            ("2026-11-28", "Konzertkarte"),
            ("2026-11-30", "Netflix"),
        ]
    );
    // Today's purchases still count in the month.
    assert_eq!(
        m(&d["cashflow"]["expenses"]),
        format!("{:.2}", 950.0 + 13.99 + 5.0 * 12.5)
    );
    // The incomes page names no past one-off as next due.
    let page = app.page(&user, "/incomes").await;
    assert!(page.contains("was due 15\u{a0}Jun\u{a0}2026"), "{page}");
}

#[tokio::test]
async fn foreign_currency_entries_are_converted_to_the_base_currency() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "US", "USD").await;
    let usd = app.state.rates.current().rate("USD").unwrap();
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Hotel", "amount": "100", "date": "2026-01-10", "accountId": a}),
    )
    .await;
    let d = app
        .ok(&user, "getDashboard", json!({"year": 2026, "month": 1}))
        .await;
    assert_eq!(d["hasMultiCurrency"], true);
    let expected = cashkeeper::domain::money::round(rust_decimal::Decimal::from(100) / usd);
    assert_eq!(m(&d["cashflow"]["expenses"]), format!("{expected:.2}"));
}

#[tokio::test]
async fn three_decimals_that_are_more_than_cents_are_refused_for_their_decimals_not_as_thousands() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let expense = |amount: &str| {
        json!({"name": "Rad", "amount": amount, "date": "2026-01-05", "accountId": a,
               "_localized": ["amount"]})
    };
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    for (typed, says) in [
        ("0,001", "amount: höchstens zwei Nachkommastellen"),
        (
            "1,005",
            "amount: höchstens zwei Nachkommastellen; für den Tausenderbetrag 1.005 schreiben",
        ),
        (
            "1,000",
            "amount: ist mehrdeutig: 1.000 für den Tausenderbetrag, 1,00 für den kleinen",
        ),
    ] {
        assert_eq!(
            app.refused(&user, "createDailyExpense", expense(typed))
                .await,
            says,
            "{typed}"
        );
    }
    app.ok(&user, "updateSettings", json!({"locale": "en"}))
        .await;
    assert_eq!(
        app.refused(&user, "createDailyExpense", expense("1.005"))
            .await,
        "amount: must have at most two decimals; for the thousands write 1,005"
    );
    assert_eq!(
        app.refused(&user, "createDailyExpense", expense("0.001"))
            .await,
        "amount: must have at most two decimals"
    );
}

#[tokio::test]
async fn amounts_the_pages_mark_are_read_in_the_users_language_and_the_api_stays_canonical() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let a = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
        )
        .await;
    let expense = |amount: &str, localized: bool| {
        let mut body =
            json!({"name": "Rad", "amount": amount, "date": "2026-01-05", "accountId": id(&a)});
        if localized {
            body["_localized"] = json!(["amount"]);
        }
        body
    };
    // As a German page sends it: "1.500" is fifteen hundred.
    let made = app
        .ok(&user, "createDailyExpense", expense("1.500", true))
        .await;
    assert_eq!(m(&made["amount"]), "1500.00");
    let made = app
        .ok(&user, "createDailyExpense", expense("1.234,56", true))
        .await;
    assert_eq!(m(&made["amount"]), "1234.56");
    // The API without the marker keeps canonical numbers.
    let made = app
        .ok(&user, "createDailyExpense", expense("1.50", false))
        .await;
    assert_eq!(m(&made["amount"]), "1.50");

    // What could mean two amounts is refused, naming the field, in German.
    for (typed, says) in [
        ("1,500", "amount: ist mehrdeutig: 1.500"),
        ("13.99", "amount: Cent mit Komma schreiben: 13,99"),
        ("zwölf", "amount: muss ein Betrag sein"),
    ] {
        let r = app
            .action(
                "createDailyExpense",
                expense(typed, true),
                Some(&user.cookie),
            )
            .await;
        assert!(r.error().unwrap().starts_with(says), "{typed}: {}", r.body);
    }
    let r = app
        .action(
            "createDailyExpense",
            json!({"name": "x", "amount": "1", "_localized": "amount"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.error().unwrap().starts_with("_localized: "), "{}", r.body);
    let listed = app.ok(&user, "listDailyExpenses", json!({})).await;
    assert_eq!(
        listed.as_array().map_or(0, Vec::len),
        3,
        "nothing refused was written: {listed}"
    );
}

#[tokio::test]
async fn errors_speak_the_users_language_and_keep_naming_the_field() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createDailyExpense",
            json!({"amount": "3"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(
        r.error(),
        Some("name: is required"),
        "English stays: {}",
        r.body
    );
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let r = app
        .action(
            "createDailyExpense",
            json!({"amount": "3"}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("name: bitte ausfüllen"), "{}", r.body);

    // Before sign-in, the browser's language decides.
    let r = app
        .reply(
            app.client
                .post(app.url("/actions/login"))
                .header("content-type", "application/json")
                .header("accept-language", "de-DE,de;q=0.9")
                .body(json!({"email": user.email, "password": "not the password"}).to_string()),
        )
        .await;
    assert_eq!(
        r.error(),
        Some("E-Mail-Adresse oder Passwort stimmt nicht"),
        "{}",
        r.body
    );
}

#[tokio::test]
async fn a_one_time_expense_with_a_merchant_needs_no_name() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
        )
        .await;
    let made = app
        .ok(
            &user,
            "createDailyExpense",
            json!({"name": "", "merchant": "Bäckerei Schmidt", "amount": "3.20", "date": "2026-01-05", "accountId": id(&a)}),
        )
        .await;
    assert_eq!(made["name"], "Bäckerei Schmidt");
    assert_eq!(made["merchant"], "Bäckerei Schmidt");
    let r = app
        .action(
            "createDailyExpense",
            json!({"name": " ", "merchant": "", "amount": "3.20", "date": "2026-01-05", "accountId": id(&a)}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("name: is required"), "{}", r.body);
}

#[tokio::test]
async fn merchant_hints_offer_the_users_own_spellings_most_used_first() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
        )
        .await;
    for (merchant, times) in [
        ("Bäckerei Schmidt", 3),
        ("Bäckerei Müller", 1),
        ("Baumarkt Obi", 2),
    ] {
        for _ in 0..times {
            app.ok(
                &user,
                "createDailyExpense",
                json!({"merchant": merchant, "amount": "3", "date": "2026-01-05", "accountId": id(&a)}),
            )
            .await;
        }
    }
    let hints = app
        .ok(
            &user,
            "getMerchantCategoryHints",
            json!({"merchant": "Bäck"}),
        )
        .await;
    assert_eq!(
        hints["names"],
        json!(["Bäckerei Schmidt", "Bäckerei Müller"])
    );
    let hints = app
        .ok(&user, "getMerchantCategoryHints", json!({"merchant": "ba"}))
        .await;
    assert_eq!(
        hints["names"],
        json!(["Baumarkt Obi"]),
        "ASCII letters in any case"
    );
    let other = app.new_user().await;
    let hints = app
        .ok(
            &other,
            "getMerchantCategoryHints",
            json!({"merchant": "Bäck"}),
        )
        .await;
    assert_eq!(
        hints["names"],
        json!([]),
        "another user's merchants stay theirs"
    );
}

#[tokio::test]
async fn a_price_change_from_a_day_leaves_the_months_before_it_as_they_were() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let today = app.state.clock.today();
    let month = |d: chrono::NaiveDate, n: i32| cashkeeper::domain::recurrence::add_months(d, n);
    let first = cashkeeper::domain::recurrence::month_start(today);
    // Due on the 1st of each month from a year ago.
    let start = month(first, -12);
    let e = app
        .ok(
            &user,
            "createExpense",
            json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
                   "startDate": start.to_string(), "accountId": a, "isSubscription": true}),
        )
        .await;
    let id = e["id"].as_str().unwrap();
    let expenses_of = |d| cashflow(&app, &user, d, "expenses");

    // 15.99 from the start of last month: the month before keeps 13.99.
    let last_month = month(first, -1);
    let updated = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id, "amount": "15.99", "amountFrom": last_month.to_string()}),
        )
        .await;
    assert_eq!(m(&updated["amount"]), "15.99");
    let earlier = updated["earlierAmounts"].as_array().unwrap();
    assert_eq!(earlier.len(), 1, "{updated}");
    assert_eq!(earlier[0]["until"], last_month.to_string());
    assert_eq!(m(&earlier[0]["amount"]), "13.99");
    assert_eq!(expenses_of(month(first, -2)).await, "13.99");
    assert_eq!(expenses_of(last_month).await, "15.99");
    assert_eq!(expenses_of(first).await, "15.99");

    // A new amount with no day applies from today: this month's payment
    // (on the 1st, before today or today) keeps 15.99 unless today is the 1st.
    app.ok(&user, "updateExpense", json!({"id": id, "amount": "17.99"}))
        .await;
    let this_month = if today == first { "17.99" } else { "15.99" };
    assert_eq!(expenses_of(first).await, this_month);
    assert_eq!(expenses_of(month(first, 1)).await, "17.99");
    assert_eq!(expenses_of(month(first, -2)).await, "13.99");
    // Editing something else keeps the history.
    app.ok(
        &user,
        "updateExpense",
        json!({"id": id, "notes": "family plan"}),
    )
    .await;
    assert_eq!(expenses_of(month(first, -2)).await, "13.99");

    // The edit page shows the history; the list shows today's amount.
    let page = app
        .get(&format!("/expenses?edit={id}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("Amount history"), "{page}");
    assert!(page.contains("name=\"amountFrom\""));

    // A bad day is refused by name and changes nothing.
    let bad = app
        .refused(
            &user,
            "updateExpense",
            json!({"id": id, "amount": "20", "amountFrom": "2026-02-31"}),
        )
        .await;
    assert!(bad.starts_with("amountFrom: "), "{bad}");
    assert_eq!(expenses_of(month(first, 1)).await, "17.99");

    // From the start date on: a correction of every payment, no history.
    let fixed = app
        .ok(
            &user,
            "updateExpense",
            json!({"id": id, "amount": "9.99", "amountFrom": start.to_string()}),
        )
        .await;
    assert_eq!(fixed["earlierAmounts"], json!([]));
    assert_eq!(expenses_of(month(first, -2)).await, "9.99");

    // Incomes too: a raise from this month leaves last month's salary.
    let i = app
        .ok(
            &user,
            "createIncome",
            json!({"name": "Gehalt", "amount": "3000", "frequency": "monthly",
                   "startDate": start.to_string(), "accountId": a}),
        )
        .await;
    app.ok(
        &user,
        "updateIncome",
        json!({"id": i["id"], "amount": "3200", "amountFrom": first.to_string()}),
    )
    .await;
    let income_of = |d| cashflow(&app, &user, d, "income");
    assert_eq!(income_of(last_month).await, "3000.00");
    assert_eq!(income_of(first).await, "3200.00");

    // Deleting the item deletes its history with it.
    app.ok(&user, "deleteIncome", json!({"id": i["id"]})).await;
    let left: i64 = app
        .state
        .db
        .run(|c| Ok(c.query_row("SELECT COUNT(*) FROM earlier_amounts", [], |r| r.get(0))?))
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[tokio::test]
async fn the_accounts_page_names_what_fell_due_since_a_balance_was_set() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let today = app.state.clock.today();
    let html = app
        .get("/accounts", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    let shown_today = cashkeeper::i18n::format::date(today, cashkeeper::domain::locale::Locale::En);
    assert!(html.contains(&format!("Set on {shown_today}.")), "{html}");

    // Set ten days ago; since then a purchase of 50 and a salary of 100.
    let ten_days_ago = today - chrono::Duration::days(10);
    let set_at = format!("{ten_days_ago}T08:00:00Z");
    let id = a.clone();
    app.state
        .db
        .run(move |c| {
            c.execute(
                "UPDATE accounts SET balance_set_at = ?1 WHERE id = ?2",
                [&set_at, &id],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let day = |n: i64| (today - chrono::Duration::days(n)).to_string();
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Rad", "amount": "50", "date": day(5), "accountId": a}),
    )
    .await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Before", "amount": "70", "date": day(12), "accountId": a}),
    )
    .await;
    app.ok(&user, "createIncome", json!({"name": "Pay", "amount": "100", "frequency": "once", "startDate": day(2), "accountId": a})).await;
    let html = app
        .get("/accounts", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("Due since: €50.00 (2×)"), "{html}");

    // Setting the balance again starts over; a rename does not.
    app.ok(
        &user,
        "updateAccount",
        json!({"id": a, "name": "Girokonto"}),
    )
    .await;
    let html = app
        .get("/accounts", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(html.contains("(2×)"));
    app.ok(
        &user,
        "updateAccount",
        json!({"id": a, "balance": "1234.50"}),
    )
    .await;
    let html = app
        .get("/accounts", Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        html.contains(&format!("Set on {shown_today}.")) && !html.contains("(2×)"),
        "{html}"
    );

    // Set long ago: the day only. Unknown (an account kept before the day
    // was recorded): nothing.
    for (set_at, says) in [
        (
            Some(format!("{}T08:00:00Z", today - chrono::Duration::days(200))),
            true,
        ),
        (None, false),
    ] {
        let id = a.clone();
        app.state
            .db
            .run(move |c| {
                c.execute(
                    "UPDATE accounts SET balance_set_at = ?1 WHERE id = ?2",
                    rusqlite::params![set_at, id],
                )?;
                Ok(())
            })
            .await
            .unwrap();
        let html = app
            .get("/accounts", Some(&user.cookie))
            .await
            .text()
            .await
            .unwrap();
        assert!(!html.contains("Due since"), "{html}");
        assert_eq!(html.contains("Set on "), says, "{html}");
    }
}

#[tokio::test]
async fn a_record_with_several_bad_fields_hears_of_all_of_them_in_the_users_language() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let a = app.account(&user, "Giro", "EUR").await;
    let r = app
        .action(
            "createExpense",
            json!({"name": "", "amount": "-3", "frequency": "daily", "startDate": "2026-01-01", "accountId": a}),
            Some(&user.cookie),
        )
        .await;
    assert_eq!(r.body["success"], false);
    let errors: Vec<&str> = r.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[0].starts_with("name: "));
    assert!(errors[1].starts_with("amount: "));
    assert!(errors[2].starts_with("frequency: "));
    assert_eq!(r.body["error"], errors[0]);
    // Accounts and categories too.
    for (action, body, fields) in [
        (
            "createAccount",
            json!({"name": "", "type": "bank", "currency": "XXX"}),
            vec!["name", "type", "currency"],
        ),
        (
            "createCategory",
            json!({"name": "", "icon": "🛒", "color": "red", "monthlyLimit": "-1"}),
            vec!["name", "color", "monthlyLimit"],
        ),
    ] {
        let r = app.action(action, body, Some(&user.cookie)).await;
        let got: Vec<&str> = r.body["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("{action}: {}", r.body))
            .iter()
            .map(|e| e.as_str().unwrap().split(':').next().unwrap())
            .collect();
        assert_eq!(got, fields, "{action}");
    }
    // One bad field: the envelope as before.
    let r = app
        .action(
            "createDailyExpense",
            json!({"name": "Brot", "amount": "0", "date": "2026-01-01", "accountId": a}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.body.get("errors").is_none(), "{}", r.body);
    assert!(r.error().unwrap().starts_with("amount: "));
    // In German, each in German; a transfer too.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let r = app
        .action(
            "createTransfer",
            json!({"fromAccountId": a, "toAccountId": a, "amount": "x", "frequency": "monthly"}),
            Some(&user.cookie),
        )
        .await;
    let errors: Vec<&str> = r.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(
        errors,
        [
            "toAccountId: muss ein anderes Konto sein als das, von dem umgebucht wird",
            "amount: muss eine Zahl sein, etwa 12,50",
            "startDate: bitte ausfüllen"
        ]
    );
}
