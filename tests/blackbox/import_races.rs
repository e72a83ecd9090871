//! Imports against each other and against everyone else: the same
//! statement staged twice and confirmed at once is booked once, and
//! reconciling a file of thousands of rows of one amount against thousands
//! of records of that amount on the same days neither holds the write lock
//! nor makes another user's write fail.

use crate::support::*;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn mapping() -> Value {
    json!({"date": "Datum", "amount": "Betrag", "payee": "Empfänger", "memo": "Zweck",
           "dateFormat": "%d.%m.%Y", "decimalSeparator": ","})
}

/// A statement of `rows` card payments of `payee` numbered 0 to
/// `rows - 1`, `day(i)` and `amount(i)` each.
fn statement(
    rows: usize,
    payee: &str,
    day: impl Fn(usize) -> chrono::NaiveDate,
    amount: impl Fn(usize) -> String,
) -> String {
    let mut out = String::from("Datum;Betrag;Empfänger;Zweck\n");
    for i in 0..rows {
        out.push_str(&format!(
            "{};{};{payee} {i};Karte\n",
            day(i).format("%d.%m.%Y"),
            amount(i)
        ));
    }
    out
}

async fn stage(app: &TestApp, user: &TestUser, account: &str, csv: &str) -> String {
    let batch = app
        .ok(
            user,
            "stageImport",
            json!({"accountId": account, "fileName": "umsaetze.csv", "csv": csv,
                   "mapping": mapping()}),
        )
        .await;
    batch["id"].as_str().unwrap().to_string()
}

/// The one-time expenses of the account, and how many distinct import keys
/// they carry.
fn expenses_of(app: &TestApp, account: &str) -> (i64, i64) {
    let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
    c.query_row(
        "SELECT COUNT(*), COUNT(DISTINCT import_key) FROM daily_expenses WHERE account_id = ?1",
        [account],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_statement_staged_twice_and_confirmed_at_once_from_two_sessions_is_booked_once() {
    const ROWS: usize = 6_000;
    let app = Arc::new(spawn_app().await);
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let second_session = app
        .login(&user.email, &user.password)
        .await
        .session_cookie()
        .unwrap();
    let first = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let csv = statement(
        ROWS,
        "Laden",
        |i| first + chrono::Duration::days((i % 300) as i64),
        |i| format!("-{},{:02}", 1 + i % 90, i % 100),
    );
    let a = stage(&app, &user, &account, &csv).await;
    let b = stage(&app, &user, &account, &csv).await;

    let confirm = |id: String, cookie: String| {
        let app = app.clone();
        tokio::spawn(async move {
            app.action("confirmImport", json!({"id": id}), Some(&cookie))
                .await
        })
    };
    let (ra, rb) = tokio::join!(
        confirm(a.clone(), user.cookie.clone()),
        confirm(b.clone(), second_session)
    );
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    for r in [&ra, &rb] {
        assert_eq!(r.status, 200, "{}", r.body);
    }
    assert_eq!(
        expenses_of(&app, &account),
        (ROWS as i64, ROWS as i64),
        "the statement's money is in the account once"
    );
    // Each confirm that went through says what it wrote; together, the file.
    let imported: u64 = [&ra, &rb]
        .iter()
        .filter(|r| r.ok())
        .map(|r| r.data()["imported"].as_u64().unwrap())
        .sum();
    assert_eq!(imported, ROWS as u64, "{} | {}", ra.body, rb.body);
    // The one confirmed second found every row written by the first.
    let later = [&ra, &rb]
        .into_iter()
        .find(|r| r.ok() && r.data()["imported"] == 0)
        .expect("one confirm wrote nothing");
    assert_eq!(later.data()["batch"]["counts"]["duplicate"], ROWS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_confirm_waits_for_an_interrupted_confirm_of_the_same_account_to_be_finished() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let first = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let csv = statement(20, "Laden", |_| first, |i| format!("-{i},50"));
    let a = stage(&app, &user, &account, &csv).await;
    let b = stage(&app, &user, &account, &csv).await;
    // Batch a as a confirm leaves it when the service stops after its first
    // transaction.
    let c = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
    c.execute(
        "UPDATE import_batches SET confirmed_at = '2026-01-02T00:00:00Z' WHERE id = ?1",
        [&a],
    )
    .unwrap();
    let refused = app
        .action("confirmImport", json!({"id": b}), Some(&user.cookie))
        .await;
    assert!(!refused.ok(), "{}", refused.body);
    assert!(
        refused.error().unwrap().contains("another import"),
        "{}",
        refused.body
    );
    assert_eq!(expenses_of(&app, &account).0, 0);
    // Finished, the other is compared with what it wrote.
    let done = app.ok(&user, "confirmImport", json!({"id": a})).await;
    assert_eq!(done["imported"], 20);
    let again = app.ok(&user, "confirmImport", json!({"id": b})).await;
    assert_eq!(again["imported"], 0, "{again}");
    assert_eq!(expenses_of(&app, &account), (20, 20));
}

/// Rows and records of one amount on one day, with payees that are not
/// alike: each row has thousands of candidates in its window, and none
/// matches.
const EQUAL_AMOUNTS: usize = 40_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reconciling_40000_rows_against_40000_records_of_one_amount_lets_other_users_write() {
    let app = Arc::new(spawn_app().await);
    let user = app.new_user().await;
    let account = app.account(&user, "Giro", "EUR").await;
    let day = chrono::NaiveDate::from_ymd_opt(2026, 3, 10).unwrap();
    app.daily_expenses_on(&user, &account, EQUAL_AMOUNTS as u32, 100, move |_| day)
        .await;
    let csv = statement(EQUAL_AMOUNTS, "Laden", |_| day, |_| "-1,00".to_string());
    let batch = stage(&app, &user, &account, &csv).await;

    let other = app.new_user().await;
    let other_account = app.account(&other, "Giro", "EUR").await;
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (app, done) = (app.clone(), done.clone());
        tokio::spawn(async move {
            let (mut failures, mut writes) = (Vec::new(), 0);
            while !done.load(Ordering::SeqCst) {
                let r = app
                    .action(
                        "createDailyExpense",
                        json!({"name": "Bäcker", "amount": "2.50", "date": "2026-03-01",
                               "accountId": other_account}),
                        Some(&other.cookie),
                    )
                    .await;
                if !r.ok() {
                    failures.push(format!("{} {}", r.status, r.body));
                }
                writes += 1;
            }
            (failures, writes)
        })
    };
    let reconciled = app.ok(&user, "reconcileImport", json!({"id": batch})).await;
    let confirmed = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    done.store(true, Ordering::SeqCst);
    let (failures, writes) = writer.await.unwrap();
    assert!(failures.is_empty(), "failed writes: {failures:?}");
    assert!(writes > 0);
    assert_eq!(reconciled["counts"]["new"], EQUAL_AMOUNTS, "{reconciled}");
    assert_eq!(confirmed["imported"], EQUAL_AMOUNTS);
    assert_eq!(
        expenses_of(&app, &account).0,
        2 * EQUAL_AMOUNTS as i64,
        "the records and the rows, each once"
    );
}
