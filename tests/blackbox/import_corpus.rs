//! Conformance: every real bank export of the folder named by
//! `CASHKEEPER_BANK_CSV_DIR` (default `../shared/bank-csv` beside the
//! repository) is staged through `stageImport` with its raw bytes, and the
//! staged rows must be what `expected.json` says a careful reader gets:
//! dates, amounts, payees and memos, in file order. Where a format has no
//! payee column (`expected.json` has an empty payee) a payee taken from the
//! booking text is accepted if that text contains it. When the folder is
//! missing the test fails, unless `CASHKEEPER_BANK_CSV_DIR=skip` asks to
//! skip it.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("CASHKEEPER_BANK_CSV_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bank-csv"),
    }
}

/// Inner runs of whitespace as one space, for the lenient payee check.
fn squeeze(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[tokio::test]
async fn every_bank_export_of_the_corpus_stages_as_expected() {
    let dir = corpus_dir();
    if dir.as_os_str() == "skip" {
        eprintln!("\n!!! SKIPPED on request: CASHKEEPER_BANK_CSV_DIR=skip !!!\n");
        return;
    }
    let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap_or_else(|e| {
        panic!(
            "no bank CSV corpus at {} ({e}): put it there, name its folder in \
             CASHKEEPER_BANK_CSV_DIR, or set CASHKEEPER_BANK_CSV_DIR=skip",
            dir.display()
        )
    });
    let expected: serde_json::Map<String, Value> = serde_json::from_str(&expected).unwrap();
    assert!(
        expected.len() >= 31,
        "the corpus lists {} files",
        expected.len()
    );
    let failures = stage_as_expected(&dir, &expected, Corpus::Shared).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The CSV exports of the repository's own test data (`tests/fixtures/csv`,
/// listed in its `expected.json` as the corpus lists its files): layouts
/// the corpus has no file of (`docs/import-formats.md`). Their payees are
/// compared exactly.
#[tokio::test]
async fn our_own_bank_exports_stage_as_expected() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/csv");
    let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    let expected: serde_json::Map<String, Value> = serde_json::from_str(&expected).unwrap();
    assert!(expected.len() >= 5, "{} files", expected.len());
    let failures = stage_as_expected(&dir, &expected, Corpus::Own).await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Which folder is staged: the shared corpus of real exports (each German
/// bank's layout must be known, and a payee taken from the booking text
/// is accepted where the format has no payee column), or our own files.
#[derive(Clone, Copy, PartialEq)]
enum Corpus {
    Shared,
    Own,
}

/// Stages every file `expected` names from `dir` and compares its rows
/// with what `expected` says; what differs, one line a row.
async fn stage_as_expected(
    dir: &std::path::Path,
    expected: &serde_json::Map<String, Value>,
    corpus: Corpus,
) -> Vec<String> {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let account = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();

    let mut failures = Vec::new();
    for (file, want) in expected {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let staged = app
            .action(
                "stageImport",
                json!({"accountId": account, "fileName": file, "csvBase64": STANDARD.encode(&bytes)}),
                Some(&user.cookie),
            )
            .await;
        if !staged.ok() {
            failures.push(format!("{file}: refused: {}", staged.body));
            continue;
        }
        let batch = staged.data()["id"].as_str().unwrap().to_string();
        let format = staged.data()["format"].clone();
        if corpus == Corpus::Shared && file.starts_with("de-") && format["bank"].is_null() {
            failures.push(format!(
                "{file}: a German bank's layout is not recognised: {format}"
            ));
        }
        let rows = app
            .ok(&user, "getImport", json!({"id": batch, "limit": 1000}))
            .await["rows"]
            .as_array()
            .unwrap()
            .clone();
        // Rows without a date or an amount are the file's unreadable or
        // undated (pending) rows: shown as errors, never in expected.json.
        let (read, unread): (Vec<&Value>, Vec<&Value>) = rows
            .iter()
            .partition(|r| !r["date"].is_null() && !r["amount"].is_null());
        for r in &unread {
            assert_eq!(r["status"], "error", "{file}: {r}");
            assert!(
                r["reason"].as_str().is_some_and(|s| !s.is_empty()),
                "{file}: {r}"
            );
        }
        let want = want.as_array().unwrap();
        if read.len() != want.len() {
            failures.push(format!(
                "{file}: {} rows read, {} expected ({} unreadable)",
                read.len(),
                want.len(),
                unread.len()
            ));
            continue;
        }
        for (i, (got, want)) in read.iter().zip(want).enumerate() {
            let amount = format!("{:.2}", got["amount"].as_f64().unwrap());
            let mut wrong = Vec::new();
            if got["date"] != want["date"] {
                wrong.push(format!("date {} ≠ {}", got["date"], want["date"]));
            }
            if amount != want["amount"].as_str().unwrap() {
                wrong.push(format!("amount {amount} ≠ {}", want["amount"]));
            }
            if got["memo"] != want["memo"] {
                wrong.push(format!("memo {} ≠ {}", got["memo"], want["memo"]));
            }
            let (payee, want_payee) = (
                got["payee"].as_str().unwrap(),
                want["payee"].as_str().unwrap(),
            );
            let payee_ok = payee == want_payee
                || (corpus == Corpus::Shared
                    && want_payee.is_empty()
                    && squeeze(want["memo"].as_str().unwrap()).contains(&squeeze(payee)));
            if !payee_ok {
                wrong.push(format!("payee {payee:?} ≠ {want_payee:?}"));
            }
            if !wrong.is_empty() {
                failures.push(format!("{file} row {i}: {}", wrong.join("; ")));
            }
        }
        // A zero amount is a notice: staged, shown, never written.
        for r in &read {
            if r["amount"].as_f64() == Some(0.0) {
                assert_eq!(r["status"], "error", "{file}: {r}");
            }
        }
        eprintln!(
            "{file:42} {:22} {:>3} rows",
            format["bank"].as_str().unwrap_or("-"),
            read.len()
        );
        // Nothing waits for a confirm afterwards (at most ten may).
        app.ok(&user, "cancelImport", json!({"id": batch})).await;
    }
    failures
}
