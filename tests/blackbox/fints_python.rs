//! Two peers this project did not write, from python-fints (PyPI):
//! python-fints the client against the test suite's mock bank, and the
//! client of cashkeeper against python-fints' own mock bank (its
//! tests/conftest.py). `.ci/fints-python` installs both into
//! `target/fints-python-<version>`, where the tests find them (or
//! `CASHKEEPER_FINTS_PYTHON` names the interpreter); without them the tests
//! skip loudly, unless `CASHKEEPER_FINTS_PY_TEST=required`.

use crate::fints_bank::*;
use cashkeeper::config::Secret;
use cashkeeper::domain::import::statement;
use cashkeeper::services::fints::{
    BankState, BankTarget, Client, ClientConfig, Credentials, Outcome, Statement,
};
use rust_decimal::Decimal;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Stdio;
use std::str::FromStr;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The release `.ci/fints-python` installs.
const FINTS_VERSION: &str = "5.0.1";

fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CASHKEEPER_FINTS_PYTHON") {
        return Some(PathBuf::from(p));
    }
    // Where .ci/fints-python puts it: beside the build output.
    let installed = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(|target| target.join(format!("fints-python-{FINTS_VERSION}/bin/python")));
    if let Some(p) = installed.filter(|p| p.exists()) {
        return Some(p);
    }
    if std::env::var("CASHKEEPER_FINTS_PY_TEST").as_deref() == Ok("required") {
        panic!("python-fints is required but CASHKEEPER_FINTS_PYTHON is not set (bash .ci/fints-python)");
    }
    eprintln!(
        "!!! SKIPPED: python-fints peers (set CASHKEEPER_FINTS_PYTHON, see .ci/fints-python)"
    );
    None
}

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fints")
        .join(name)
}

/// python-fints' own mock bank (its tests/conftest.py) on loopback: the
/// process, which ends when its stdin closes, and its URL.
async fn python_mock_bank(python: &std::path::Path) -> (tokio::process::Child, String) {
    let mock_dir = std::env::var_os("CASHKEEPER_FINTS_PY_MOCK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            // <venv>/bin/python → <venv>/mockbank, without resolving the
            // venv's symbolic link to the system interpreter.
            python
                .parent()
                .and_then(|p| p.parent())
                .unwrap()
                .join("mockbank")
        });
    let mut child = tokio::process::Command::new(python)
        .arg(script("python_mock_bank.py"))
        .arg(&mock_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = lines
        .next_line()
        .await
        .unwrap()
        .expect("the mock bank's URL");
    // The rest of what it prints is read, so it never writes to a closed pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

#[tokio::test]
async fn fints_python_client_reads_our_mock_bank() {
    let Some(python) = python() else { return };
    let bank = MockBank::start(Scenario {
        bookings: 5,
        per_page: 2,
        ..Scenario::default()
    })
    .await;
    let out = tokio::process::Command::new(&python)
        .arg(script("python_client.py"))
        .args([&bank.url, BANK_CODE, LOGIN, PIN, "MOCKPRODUCT123456789"])
        .kill_on_drop(true)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "python-fints failed:\n{stderr}");
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    assert_eq!(v["accounts"][0]["iban"], IBAN, "{v}");
    assert_eq!(v["accounts"][0]["bic"], BIC, "{v}");
    let txs = v["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 5, "{v}");
    for (i, t) in txs.iter().enumerate() {
        let amount = Decimal::from_str(t["amount"].as_str().unwrap()).unwrap();
        assert_eq!(amount, Decimal::new(booking_cents(i), 2), "{t}");
        assert_eq!(t["date"], format!("2024-02-{:02}", booking_day(i)), "{t}");
    }
    let total = OPENING + (0..5).map(booking_cents).sum::<i64>();
    assert_eq!(
        Decimal::from_str(v["balance"]["amount"].as_str().unwrap()).unwrap(),
        Decimal::new(total, 2)
    );
    assert_eq!(v["balance"]["currency"], "EUR");
    // It followed the continuation points and ended its dialogs.
    assert_eq!(bank.seen.lock().unwrap().touchdowns.len(), 2);
    bank.assert_all_ended();
}

#[tokio::test]
async fn fints_our_client_reads_python_fints_mock_bank() {
    let Some(python) = python() else { return };
    let (mut child, url) = python_mock_bank(&python).await;
    let client = Client::new(
        ClientConfig {
            product_id: "MOCKPRODUCT123456789".into(),
            product_version: "0.1".into(),
            timeout: Duration::from_secs(30),
        },
        BankTarget {
            url,
            bank_code: "12345678".into(),
        },
        Credentials {
            login: "test1".into(),
            customer_id: None,
            pin: Secret::new("1234"),
        },
    )
    .unwrap();
    let Outcome::Done(done) = client.connect(BankState::default()).await.unwrap() else {
        panic!("expected done");
    };
    assert_eq!(done.state.bank_name.as_deref(), Some("Test Bank"));
    assert_eq!(done.state.tan_method.as_deref(), Some("942"));
    let ibans: Vec<_> = done
        .accounts
        .iter()
        .map(|a| a.iban.clone().unwrap_or_default())
        .collect();
    assert_eq!(ibans, ["DE111234567800000001", "DE111234567800000002"]);
    assert_eq!(done.accounts[0].bic.as_deref(), Some("GENODE23X42"));
    assert_eq!(done.accounts[1].name.as_deref(), Some("Tagesgeld"));
    let account = done.accounts[0].clone();
    let Outcome::Done(f) = client
        .fetch(done.state, &account, None, None)
        .await
        .unwrap()
    else {
        panic!("expected done");
    };
    assert_eq!(f.pages, 2);
    let Statement::Mt940(bytes) = f.statement else {
        panic!("expected MT940");
    };
    let parsed = statement::read(&bytes).unwrap();
    let rows: Vec<_> = parsed
        .accounts
        .iter()
        .flat_map(|a| a.rows.clone())
        .collect();
    let amounts: Vec<_> = rows.iter().map(|r| r.amount.unwrap().to_string()).collect();
    assert_eq!(amounts, ["182.34", "100.03", "100.00"]);
    assert!(
        rows[0].memo.contains("Test Ueberweisung 1"),
        "{}",
        rows[0].memo
    );
    drop(child.stdin.take());
    let _ = child.wait().await;
}

/// The whole way through the actions against a bank this project did not
/// write: connect, see both accounts, link one, sync: its three bookings
/// wait in one batch from the bank; confirmed, a second sync adds nothing.
#[tokio::test]
async fn fints_python_mock_bank_through_the_actions_stages_its_three_bookings() {
    let Some(python) = python() else { return };
    let (mut child, url) = python_mock_bank(&python).await;
    let app = crate::fints_bank::bank_app().await;
    let user = app.new_user().await;
    let conn = app
        .ok(
            &user,
            "connectBank",
            serde_json::json!({"bankCode": "12345678", "url": url, "loginName": "test1", "pin": "1234"}),
        )
        .await;
    assert_eq!(conn["state"], "ready", "{conn}");
    let ibans: Vec<_> = conn["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["iban"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(ibans, ["DE111234567800000001", "DE111234567800000002"]);
    let id = conn["id"].as_str().unwrap().to_string();
    let account = app
        .ok(
            &user,
            "createAccount",
            serde_json::json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": 0}),
        )
        .await["id"]
        .clone();
    app.ok(
        &user,
        "linkBankAccount",
        serde_json::json!({"id": id, "iban": "DE111234567800000001", "accountId": account}),
    )
    .await;
    let synced = app
        .ok(
            &user,
            "syncBank",
            serde_json::json!({"id": id, "pin": "1234"}),
        )
        .await;
    assert_eq!(synced["state"], "done", "{synced}");
    assert_eq!(synced["batches"][0]["counts"]["new"], 3, "{synced}");
    let batch_id = synced["batches"][0]["batchId"].clone();
    let batch = app
        .ok(
            &user,
            "getImport",
            serde_json::json!({"id": batch_id, "limit": 100}),
        )
        .await;
    assert_eq!(batch["source"], "fints", "{batch}");
    let mut amounts: Vec<Decimal> = batch["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Decimal::from_str(&r["amount"].to_string().replace('"', "")).unwrap())
        .collect();
    amounts.sort();
    let want: Vec<Decimal> = ["100.00", "100.03", "182.34"]
        .iter()
        .map(|a| Decimal::from_str(a).unwrap())
        .collect();
    assert_eq!(amounts, want, "{batch}");
    // Confirmed, the same bookings again are duplicates: nothing new.
    app.ok(
        &user,
        "confirmImport",
        serde_json::json!({"id": batch_id, "setBalance": false}),
    )
    .await;
    let again = app
        .ok(
            &user,
            "syncBank",
            serde_json::json!({"id": id, "pin": "1234"}),
        )
        .await;
    assert_eq!(again["batches"][0]["counts"]["new"], 0, "{again}");
    drop(child.stdin.take());
    let _ = child.wait().await;
}
