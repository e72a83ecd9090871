//! Loading an export in chunks: other users write between its chunks, a
//! load refused halfway through leaves nothing but the default categories,
//! and a load the service stopped in is taken back when it starts again.

use crate::export::{data_json, export_of, load, rezip, unzip};
use crate::support::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// The user's rows in the tables a load writes, and their search index and
/// month sums.
fn footprint(app: &TestApp, user_id: &str) -> Vec<(String, i64)> {
    let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
    let mut out = Vec::new();
    for table in [
        "accounts",
        "balance_history",
        "categories",
        "budgets",
        "expenses",
        "daily_expenses",
        "incomes",
        "merchant_categories",
        "daily_expense_months",
        "export_loads",
    ] {
        let n = c
            .query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE user_id = ?1"),
                [user_id],
                |r| r.get(0),
            )
            .unwrap();
        out.push((table.to_string(), n));
    }
    let fts: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM daily_expenses_fts WHERE rowid IN
               (SELECT rowid FROM daily_expenses WHERE user_id = ?1)",
            [user_id],
            |r| r.get(0),
        )
        .unwrap();
    out.push(("daily_expenses_fts".to_string(), fts));
    out
}

fn count(footprint: &[(String, i64)], table: &str) -> i64 {
    footprint.iter().find(|(t, _)| t == table).unwrap().1
}

/// An export of a user with an account and `n` one-time expenses.
async fn archive_of(app: &TestApp, n: u32) -> Vec<u8> {
    let owner = app.new_user().await;
    let account = app.account(&owner, "Giro", "EUR").await;
    app.many_daily_expenses(&owner, &account, "2026-03", n, 250)
        .await;
    export_of(app, &owner).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn loading_an_export_of_100000_records_lets_other_users_write_between_its_chunks() {
    const RECORDS: u32 = 100_000;
    let app = Arc::new(spawn_app().await);
    let archive = archive_of(&app, RECORDS).await;
    let fresh = app.new_user().await;

    let loading = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let during = Arc::new(AtomicUsize::new(0));
    let mut writers = Vec::new();
    for _ in 0..2 {
        let user = app.new_user().await;
        let account = app.account(&user, "Giro", "EUR").await;
        let (app, loading, done, during) =
            (app.clone(), loading.clone(), done.clone(), during.clone());
        writers.push(tokio::spawn(async move {
            let mut failures = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let started_during = loading.load(Ordering::SeqCst);
                let r = app
                    .action(
                        "createDailyExpense",
                        json!({"name": "Bäcker", "amount": "2.50", "date": "2026-03-01",
                               "accountId": account}),
                        Some(&user.cookie),
                    )
                    .await;
                if !r.ok() {
                    failures.push(format!("{} {}", r.status, r.body));
                } else if started_during && !done.load(Ordering::SeqCst) {
                    during.fetch_add(1, Ordering::SeqCst);
                }
            }
            failures
        }));
    }
    loading.store(true, Ordering::SeqCst);
    let (status, reply) = load(&app, Some(&fresh.cookie), archive).await;
    done.store(true, Ordering::SeqCst);
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["tables"]["daily_expenses"], RECORDS, "{reply}");
    for w in writers {
        let failures = w.await.unwrap();
        assert!(failures.is_empty(), "failed writes: {failures:?}");
    }
    // One transaction for the whole archive lets each writer finish at
    // most the one write it waited with; chunks let them write between.
    let during = during.load(Ordering::SeqCst);
    assert!(
        during > 10,
        "{during} writes of other users during the load"
    );
    let f = footprint(&app, &fresh.id);
    assert_eq!(count(&f, "daily_expenses"), RECORDS as i64);
    assert_eq!(count(&f, "export_loads"), 0);
}

#[tokio::test]
async fn a_load_refused_halfway_leaves_nothing_but_the_default_categories() {
    let app = spawn_app().await;
    let archive = archive_of(&app, 6_000).await;
    let files = unzip(&archive);
    let category = data_json(&files)["tables"]["categories"][0]["id"].clone();
    // Two memories of one merchant: the database refuses the second, after
    // the first chunk of 5,000 rows is written.
    let bad = rezip(&files, |data: &mut Value| {
        let row = json!({"merchant": "rewe", "category_id": category, "uses": 1,
                         "updated_at": "2026-03-01T00:00:00Z"});
        data["tables"]["merchant_categories"] = json!([row.clone(), row]);
    });
    let fresh = app.new_user().await;
    let before = footprint(&app, &fresh.id);
    assert!(count(&before, "categories") > 0, "the default categories");

    let (status, reply) = load(&app, Some(&fresh.cookie), bad).await;
    assert_eq!(status, 400, "{reply}");
    assert!(
        reply["error"].as_str().unwrap().starts_with("file: "),
        "{reply}"
    );
    assert_eq!(footprint(&app, &fresh.id), before, "nothing is left");

    // The good archive loads after it.
    let (status, reply) = load(&app, Some(&fresh.cookie), archive).await;
    assert_eq!(status, 200, "{reply}");
    let after = footprint(&app, &fresh.id);
    assert_eq!(count(&after, "daily_expenses"), 6_000);
    assert_eq!(count(&after, "daily_expenses_fts"), 6_000);
}

#[tokio::test]
async fn a_load_the_service_stopped_in_is_taken_back_when_it_starts_again() {
    let app = spawn_app().await;
    let archive = archive_of(&app, 7_000).await;
    let fresh = app.new_user().await;
    let before = footprint(&app, &fresh.id);
    let (status, reply) = load(&app, Some(&fresh.cookie), archive).await;
    assert_eq!(status, 200, "{reply}");
    // As a load leaves the database when the service stops before its last
    // transaction: its rows written, its mark still there.
    let marks: serde_json::Map<String, Value> = {
        let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
        let mut marks = serde_json::Map::new();
        for table in [
            "accounts",
            "categories",
            "daily_expenses",
            "balance_history",
        ] {
            let newest: i64 = c
                .query_row(
                    &format!("SELECT COALESCE(MAX(rowid), 0) FROM {table} WHERE user_id <> ?1"),
                    [&fresh.id],
                    |r| r.get(0),
                )
                .unwrap();
            marks.insert(table.to_string(), json!(newest));
        }
        c.execute(
            "INSERT INTO export_loads (user_id, marks, started_at) VALUES (?1, ?2, '2026-01-01')",
            rusqlite::params![fresh.id, Value::Object(marks.clone()).to_string()],
        )
        .unwrap();
        marks
    };
    assert!(!marks.is_empty());
    let dir = app.stop().await;
    let app = spawn_app_in(dir, |_| {}).await;
    // Served once the start's housekeeping is done.
    assert_eq!(app.get("/api/v1/health", None).await.status(), 200);
    let after = footprint(&app, &fresh.id);
    assert_eq!(count(&after, "daily_expenses"), 0, "{after:?}");
    assert_eq!(count(&after, "daily_expenses_fts"), 0, "{after:?}");
    assert_eq!(count(&after, "daily_expense_months"), 0, "{after:?}");
    assert_eq!(count(&after, "accounts"), 0, "{after:?}");
    assert_eq!(count(&after, "export_loads"), 0, "{after:?}");
    assert_eq!(
        count(&after, "categories"),
        count(&before, "categories"),
        "the default categories are back"
    );
}
