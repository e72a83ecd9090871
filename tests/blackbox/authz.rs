//! The authorization matrix, generated from the action registry: every
//! action a signed-in user can call, given another user's ids, answers
//! exactly as it does for ids that exist nowhere, and changes nothing of
//! the other user's. A new action is covered without a test of its own.

use crate::support::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// Every id-carrying field an action input may have, and the record kind
/// whose id it takes.
const REFERENCES: [(&str, &str); 7] = [
    ("accountId", "account"),
    ("fromAccountId", "account"),
    ("toAccountId", "account2"),
    ("moveTo", "account2"),
    ("categoryId", "category"),
    ("expenseId", "expense"),
    ("dailyExpenseId", "daily"),
];

/// A user with one record of every kind; kind → id.
async fn household(app: &TestApp, user: &TestUser) -> HashMap<&'static str, String> {
    let mut ids = HashMap::new();
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    ids.insert("account", app.account(user, "Giro", "EUR").await);
    ids.insert("account2", app.account(user, "Spar", "EUR").await);
    ids.insert(
        "category",
        id(app
            .ok(
                user,
                "createCategory",
                json!({"name": "Food", "icon": "🍞", "color": "#aa5500"}),
            )
            .await),
    );
    ids.insert(
        "expense",
        id(app
            .ok(
                user,
                "createExpense",
                json!({"name": "Insurance", "amount": "120", "frequency": "yearly",
                       "startDate": "2026-01-15", "accountId": ids["account"], "categoryId": ids["category"],
                       "termEnd": "2027-01-14", "noticeMonths": 3}),
            )
            .await),
    );
    ids.insert(
        "daily",
        id(app
            .ok(
                user,
                "createDailyExpense",
                json!({"name": "Bakery", "amount": "3.20", "date": "2026-11-02",
                       "accountId": ids["account"], "merchant": "Bäckerei Schmidt"}),
            )
            .await),
    );
    ids.insert(
        "income",
        id(app
            .ok(
                user,
                "createIncome",
                json!({"name": "Salary", "amount": "2500", "frequency": "monthly",
                       "startDate": "2026-01-01", "accountId": ids["account"]}),
            )
            .await),
    );
    ids.insert(
        "transfer",
        id(app
            .ok(
                user,
                "createTransfer",
                json!({"fromAccountId": ids["account"], "toAccountId": ids["account2"], "amount": "100",
                       "frequency": "monthly", "startDate": "2026-01-01"}),
            )
            .await),
    );
    ids.insert(
        "token",
        id(app
            .ok(
                user,
                "createApiToken",
                json!({"name": "HA", "expiresInDays": null, "password": user.password}),
            )
            .await),
    );
    app.ok(
        user,
        "setReservePot",
        json!({"expenseId": ids["expense"], "amount": "40"}),
    )
    .await;
    ids
}

/// Everything the user can see of their own data.
async fn snapshot(app: &TestApp, user: &TestUser) -> Value {
    let mut all = Map::new();
    for list in [
        "listAccounts",
        "listCategories",
        "listExpenses",
        "listDailyExpenses",
        "listIncomes",
        "listTransfers",
        "listApiTokens",
        "listInsights",
        "getReservePlan",
        "getSettings",
    ] {
        all.insert(list.into(), app.ok(user, list, json!({})).await);
    }
    all.insert(
        "hints".into(),
        app.ok(
            user,
            "getMerchantCategoryHints",
            json!({"merchant": "Bäckerei Schmidt"}),
        )
        .await,
    );
    Value::Object(all)
}

/// An input with every field an action might read: `id` and the references
/// from `ids`, the rest plausible values.
fn input(id: &str, refs: &HashMap<&'static str, String>) -> Value {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    // A new name each call: creating succeeds for both calls of a pair.
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut v = json!({
        "id": id,
        "name": format!("Probe {n}"), "amount": "1.00", "currency": "EUR", "frequency": "monthly",
        "startDate": "2026-01-01", "date": "2026-01-02", "type": "checking", "balance": "1",
        "icon": "🧪", "color": "#123456", "merchant": "Bäckerei Schmidt", "query": "Probe",
        "months": 3, "year": 2026, "month": 1, "note": "n", "notes": "n",
        "expiresInDays": 30, "isSubscription": true,
    });
    for (field, kind) in REFERENCES {
        v[field] = json!(refs[kind]);
    }
    v
}

/// What a reply says, without the parts that differ between any two calls.
fn outcome(r: &ActionReply) -> (u16, Value, Value) {
    (
        r.status.as_u16(),
        r.body["success"].clone(),
        r.body["error"].clone(),
    )
}

#[tokio::test]
async fn another_users_ids_answer_exactly_like_unknown_ids() {
    let app = spawn_app().await;
    let (owner, intruder) = (app.new_user().await, app.new_user().await);
    let theirs = household(&app, &owner).await;
    let own = household(&app, &intruder).await;
    let before = snapshot(&app, &owner).await;

    let unknown: HashMap<&'static str, String> = theirs
        .keys()
        .map(|k| (*k, uuid::Uuid::new_v4().to_string()))
        .collect();
    let registry = cashkeeper::actions::catalogue();
    let mut names: Vec<&str> = registry
        .names()
        .copied()
        .filter(|n| !registry.get(n).unwrap().public && *n != "logout")
        .collect();
    names.sort();
    assert!(names.len() > 30, "the registry lists the session actions");

    let mut compared = 0;
    for name in &names {
        let mut kinds: Vec<&&str> = theirs.keys().collect();
        kinds.sort();
        for kind in kinds {
            // The other user's record of this kind as `id`, and their
            // records as every reference; then the same with unknown ids.
            let foreign = input(&theirs[*kind], &theirs);
            let control = input(&unknown[*kind], &unknown);
            let a = app
                .action(name, foreign.clone(), Some(&intruder.cookie))
                .await;
            let b = app.action(name, control, Some(&intruder.cookie)).await;
            assert_eq!(
                outcome(&a),
                outcome(&b),
                "{name} with the owner's {kind} id: {foreign}"
            );
            compared += 1;
            // Deleting one's own record changes the next call's answer.
            if name.starts_with("delete") || name.starts_with("revoke") {
                continue;
            }
            // The intruder's own record as `id`, the owner's as references.
            let foreign = input(&own[*kind], &theirs);
            let control = input(&own[*kind], &unknown);
            let a = app
                .action(name, foreign.clone(), Some(&intruder.cookie))
                .await;
            let b = app.action(name, control, Some(&intruder.cookie)).await;
            assert_eq!(
                outcome(&a),
                outcome(&b),
                "{name} with own {kind} id and the owner's references: {foreign}"
            );
            compared += 1;
        }
    }
    assert!(compared > 300, "{compared} comparisons");
    assert_eq!(
        snapshot(&app, &owner).await,
        before,
        "the owner's data changed"
    );
}
