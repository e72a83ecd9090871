//! Upgrades: `tests/fixtures/release.db` is a database written by this
//! release (the demo household, a document, an API token), and
//! `release.json` what its actions answered then. A later binary must open
//! it, apply every migration it brings, and answer the same for every
//! record. `CASHKEEPER_WRITE_FIXTURE=1` writes both files anew (when a
//! release changes the schema; commit them with it).

use crate::support::*;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};

const EMAIL: &str = "fixture@example.org";
const PASSWORD: &str = "fixture password";
/// What a person keeps, as the actions list it; nothing that depends on today.
const LISTS: &[&str] = &[
    "getSettings",
    "listAccounts",
    "listCategories",
    "listExpenses",
    "listDailyExpenses",
    "listIncomes",
    "listTransfers",
    "listDocuments",
    "listApiTokens",
    "listImports",
];

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

async fn snapshot(app: &TestApp, cookie: &str) -> Value {
    let mut out = Map::new();
    for name in LISTS {
        // One page holds every entry of the fixture (listDailyExpenses pages).
        let input = if *name == "listDailyExpenses" {
            json!({"limit": 1000})
        } else {
            json!({})
        };
        let r = app.action(name, input, Some(cookie)).await;
        out.insert(name.to_string(), r.data().clone());
    }
    Value::Object(out)
}

async fn write_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
        .env_clear()
        .env("RUST_LOG", "warn")
        .env("CASHKEEPER_DATA_DIR", dir.path())
        .args(["demo", "--email", EMAIL, "--password-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{PASSWORD}\n").as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let app = spawn_app_in(dir, |_| {}).await;
    let cookie = app.login(EMAIL, PASSWORD).await.session_cookie().unwrap();
    app.action(
        "uploadDocument",
        json!({"fileName": "Mietvertrag.pdf", "dataBase64": "JVBERi0xLjcKJeLjz9M="}),
        Some(&cookie),
    )
    .await
    .data();
    app.action(
        "createApiToken",
        json!({"name": "Home Assistant", "expiresInDays": null, "password": PASSWORD}),
        Some(&cookie),
    )
    .await
    .data();
    let snap = snapshot(&app, &cookie).await;
    cashkeeper::store::backups::write(app.data_dir(), &fixtures().join("release.db")).unwrap();
    let _ = std::fs::remove_dir_all(fixtures().join("release.documents"));
    std::fs::write(
        fixtures().join("release.json"),
        serde_json::to_string_pretty(&snap).unwrap() + "\n",
    )
    .unwrap();
    eprintln!("wrote tests/fixtures/release.db and release.json");
}

#[tokio::test]
async fn a_database_of_this_release_opens_migrated_with_every_record() {
    if std::env::var_os("CASHKEEPER_WRITE_FIXTURE").is_some() {
        write_fixture().await;
    }
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("release.json")).unwrap())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures().join("release.db"),
        dir.path().join("cashkeeper.db"),
    )
    .unwrap();
    let app = spawn_app_in(dir, |_| {}).await;

    // Every migration of this binary is applied.
    let db = app.data_dir().join("cashkeeper.db");
    let applied: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT MAX(version) FROM refinery_schema_history",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(applied, cashkeeper::store::backups::newest_version());

    let r = app.login(EMAIL, PASSWORD).await;
    assert!(r.ok(), "the fixture's user signs in: {}", r.body);
    let now = snapshot(&app, &r.session_cookie().unwrap()).await;
    for name in LISTS {
        assert!(
            answers_the_same(&expected[name], &now[name]),
            "{name} changed across the upgrade:\nbefore: {}\nafter:  {}",
            expected[name],
            now[name]
        );
    }
    let daily = now["listDailyExpenses"].as_array().unwrap().len();
    assert!(
        daily > 100,
        "the fixture holds the demo year: {daily} one-time expenses"
    );
}

/// Whether `after` answers everything `before` did, the same: every field
/// of every object is still there with the same value. Fields a newer
/// version adds (e.g. `twoFactor` of `getSettings`) are allowed.
fn answers_the_same(before: &serde_json::Value, after: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => b
            .iter()
            .all(|(k, v)| a.get(k).is_some_and(|w| answers_the_same(v, w))),
        (Value::Array(b), Value::Array(a)) => {
            b.len() == a.len() && b.iter().zip(a).all(|(v, w)| answers_the_same(v, w))
        }
        _ => before == after,
    }
}

/// The upgrade keeps a subscription's last known price change as its price
/// history (migrations/V12__earlier_amounts.sql): the past stays at the old
/// price. A change made on the day the subscription was entered counts as a
/// typo fixed, and a recurring expense that is no subscription keeps none.
#[tokio::test]
async fn the_upgrade_turns_a_subscriptions_last_price_change_into_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cashkeeper.db");
    std::fs::copy(fixtures().join("release.db"), &db).unwrap();
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        // As the V5 trigger left them: Netflix raised on 1 Jun 2026 from
        // 12.99; Spotify fixed on the day it was entered; rent changed too.
        c.execute_batch(
            "UPDATE expenses SET previous_amount_cents = 1299, amount_changed_at = '2026-06-01T09:00:00Z',
                                 created_at = '2025-11-12T08:00:00Z'
              WHERE name = 'Netflix';
             UPDATE expenses SET previous_amount_cents = 199, amount_changed_at = created_at
              WHERE name = 'Spotify Family';
             UPDATE expenses SET previous_amount_cents = 100000, amount_changed_at = '2026-06-01T09:00:00Z',
                                 created_at = '2025-01-01T08:00:00Z'
              WHERE is_subscription = 0 AND frequency = 'monthly';",
        )
        .unwrap();
    }
    let app = spawn_app_in(dir, |_| {}).await;
    let cookie = app.login(EMAIL, PASSWORD).await.session_cookie().unwrap();
    let expenses = app.action("listExpenses", json!({}), Some(&cookie)).await;
    let history = |name: &str| -> Value {
        expenses
            .data()
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["earlierAmounts"]
            .clone()
    };
    assert_eq!(
        history("Netflix"),
        json!([{"until": "2026-06-01", "amount": 12.99}])
    );
    assert_eq!(history("Spotify Family"), json!([]));
    let others: Vec<Value> = expenses
        .data()
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["isSubscription"] == false)
        .map(|e| e["earlierAmounts"].clone())
        .collect();
    assert!(others.iter().all(|h| h == &json!([])), "{others:?}");
}
