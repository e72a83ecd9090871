//! Statement files (CAMT, MT940, OFX, QIF) through `stageImport`: the real
//! bank statements of the folder named by `CASHKEEPER_BANK_STATEMENTS_DIR`
//! (default `../shared/bank-statements` beside the repository) must stage
//! as its `expected.json` says, and a statement's account and closing
//! balance work as `docs/import.md` says. When the folder is missing the
//! corpus test fails, unless `CASHKEEPER_BANK_STATEMENTS_DIR=skip` asks to
//! skip it.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    match std::env::var_os("CASHKEEPER_BANK_STATEMENTS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bank-statements"),
    }
}

/// Runs of whitespace as one space, trimmed: MT940 pads and wraps its lines.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text without any whitespace, for MT940 subfields joined across breaks.
fn dense(s: &str) -> String {
    s.split_whitespace().collect()
}

async fn account(app: &TestApp, user: &TestUser, currency: &str) -> String {
    app.ok(
        user,
        "createAccount",
        json!({"name": format!("Konto {currency}"), "type": "checking", "currency": currency}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn stage_input(account: &str, file: &str, bytes: &[u8], iban: Option<&str>) -> Value {
    let mut input =
        json!({"accountId": account, "fileName": file, "csvBase64": STANDARD.encode(bytes)});
    if let Some(iban) = iban {
        input["accountIban"] = json!(iban);
    }
    input
}

#[tokio::test]
async fn every_statement_of_the_corpus_stages_as_expected() {
    let dir = corpus_dir();
    if dir.as_os_str() == "skip" {
        eprintln!("\n!!! SKIPPED on request: CASHKEEPER_BANK_STATEMENTS_DIR=skip !!!\n");
        return;
    }
    let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap_or_else(|e| {
        panic!(
            "no bank statement corpus at {} ({e}): put it there, name its folder in \
             CASHKEEPER_BANK_STATEMENTS_DIR, or set CASHKEEPER_BANK_STATEMENTS_DIR=skip",
            dir.display()
        )
    });
    let expected: serde_json::Map<String, Value> = serde_json::from_str(&expected).unwrap();
    assert!(
        expected.len() >= 18,
        "the corpus lists {} files",
        expected.len()
    );
    stage_as_expected(&dir, &expected).await;
}

/// The statement files of the repository's own test data
/// (`tests/fixtures/statements`, listed in its `expected.json` as the corpus
/// lists its files): shapes of banks the corpus has no file of.
#[tokio::test]
async fn our_own_statement_files_stage_as_expected() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/statements");
    let expected = std::fs::read_to_string(dir.join("expected.json")).unwrap();
    let expected: serde_json::Map<String, Value> = serde_json::from_str(&expected).unwrap();
    assert!(!expected.is_empty());
    stage_as_expected(&dir, &expected).await;
}

/// Stages every file `expected` names from `dir` and compares its rows,
/// accounts and closing balance with what `expected` says.
async fn stage_as_expected(dir: &Path, expected: &serde_json::Map<String, Value>) {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let mut accounts: BTreeMap<String, String> = BTreeMap::new();
    let mut failures = Vec::new();
    for (file, want) in expected {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let kind = want["format"].as_str().unwrap();
        let want_rows = want["transactions"].as_array().unwrap();
        // The account's currency is the statement's (QIF states none).
        let currency = want_rows[0]["currency"].as_str().unwrap().to_string();
        if !accounts.contains_key(&currency) {
            let id = account(&app, &user, &currency).await;
            accounts.insert(currency.clone(), id);
        }
        let target = accounts[&currency].clone();
        let ids: Vec<String> = want["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();

        // A file of several accounts names them all when none is chosen.
        if ids.len() > 1 {
            let refused = app
                .action(
                    "stageImport",
                    stage_input(&target, file, &bytes, None),
                    Some(&user.cookie),
                )
                .await;
            let error = refused.body["error"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if refused.ok()
                || !error.starts_with("accountIban: ")
                || !ids.iter().all(|id| error.contains(id.as_str()))
            {
                failures.push(format!(
                    "{file}: several accounts not refused by name: {}",
                    refused.body
                ));
            }
        }

        let mut rows: Vec<Value> = Vec::new();
        let mut closings: Vec<Value> = Vec::new();
        let mut empty_accounts = 0;
        let picks: Vec<Option<&str>> = if ids.len() > 1 {
            ids.iter().map(|id| Some(id.as_str())).collect()
        } else {
            vec![None]
        };
        for pick in picks {
            let staged = app
                .action(
                    "stageImport",
                    stage_input(&target, file, &bytes, pick),
                    Some(&user.cookie),
                )
                .await;
            if !staged.ok() {
                // An account of the file without a single booking.
                let no_rows = staged.body["error"]
                    .as_str()
                    .is_some_and(|e| e.contains("no bookings"));
                if !(pick.is_some() && no_rows) {
                    failures.push(format!("{file} ({pick:?}): refused: {}", staged.body));
                }
                empty_accounts += 1;
                continue;
            }
            let format = staged.data()["format"].clone();
            if format["kind"] != kind {
                failures.push(format!("{file}: kind {} ≠ {kind}", format["kind"]));
            }
            for field in ["delimiter", "decimalSeparator", "dateFormat", "headerLine"] {
                if !format[field].is_null() {
                    failures.push(format!(
                        "{file}: {field} is {} for a statement",
                        format[field]
                    ));
                }
            }
            if let Some(pick) = pick {
                if format["accountIban"] != pick {
                    failures.push(format!(
                        "{file}: accountIban {} ≠ {pick}",
                        format["accountIban"]
                    ));
                }
            }
            if !format["closingBalance"].is_null() {
                closings.push(format["closingBalance"].clone());
            }
            let batch = staged.data()["id"].as_str().unwrap().to_string();
            let got = app
                .ok(&user, "getImport", json!({"id": batch, "limit": 1000}))
                .await["rows"]
                .as_array()
                .unwrap()
                .clone();
            rows.extend(got);
            app.ok(&user, "cancelImport", json!({"id": batch})).await;
        }

        // The closing balance: the file's (for several accounts, one of theirs).
        match (&want["closingBalance"], closings.as_slice()) {
            (Value::Null, []) => {}
            (Value::Null, got) => failures.push(format!(
                "{file}: closing balance {got:?} where none is stated"
            )),
            (w, got) => {
                let found = got.iter().any(|c| {
                    c["date"] == w["date"]
                        && format!("{:.2}", c["amount"].as_f64().unwrap())
                            == w["amount"].as_str().unwrap()
                });
                // For several accounts the one stated may be of an account
                // without bookings, which is not staged.
                if !found && empty_accounts == 0 {
                    failures.push(format!("{file}: closing balance {got:?} ≠ {w}"));
                }
            }
        }

        // The rows of all its accounts, in file order.
        rows.sort_by_key(|r| r["line"].as_u64().unwrap());
        if rows.len() != want_rows.len() {
            failures.push(format!(
                "{file}: {} rows staged, {} expected",
                rows.len(),
                want_rows.len()
            ));
            continue;
        }
        let mt940 = kind == "mt940";
        for (i, (got, want)) in rows.iter().zip(want_rows).enumerate() {
            let mut wrong = Vec::new();
            if got["date"] != want["date"] {
                wrong.push(format!("date {} ≠ {}", got["date"], want["date"]));
            }
            let amount = got["amount"].as_f64().map(|a| format!("{a:.2}"));
            if amount.as_deref() != want["amount"].as_str() {
                wrong.push(format!("amount {amount:?} ≠ {}", want["amount"]));
            }
            if got["currency"] != want["currency"] {
                wrong.push(format!(
                    "currency {} ≠ {}",
                    got["currency"], want["currency"]
                ));
            }
            for field in ["payee", "memo"] {
                let (g, w) = (got[field].as_str().unwrap(), want[field].as_str().unwrap());
                let same = if mt940 {
                    squeeze(g) == squeeze(w) || dense(g) == dense(w)
                } else {
                    g == w
                };
                if !same {
                    wrong.push(format!("{field} {g:?} ≠ {w:?}"));
                }
            }
            if got["status"] == "error" {
                wrong.push(format!("staged as an error: {}", got["reason"]));
            }
            if !wrong.is_empty() {
                failures.push(format!("{file} row {i}: {}", wrong.join("; ")));
            }
        }
        eprintln!("{file:48} {kind:9} {:>3} rows", rows.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Two accounts' statements in one MT940 file, with German `?` subfields.
pub const TWO_ACCOUNTS: &str = "\
:20:STARTUMS
:25:10020030/1234567890
:28C:1/1
:60F:C241129EUR1000,00
:61:2412021202DR23,99NMSCNONREF
:86:106?00KARTENZAHLUNG?20REWE Markt sagt danke?32REWE Markt GmbH
:62F:C241202EUR976,01
-
:20:STARTUMS
:25:10020030/9999999999
:28C:1/1
:60F:C241129EUR50,00
:61:2412031203CR10,00NMSCNONREF
:86:166?00GUTSCHRIFT?20Taschengeld?32Oma Erna
:62F:C241203EUR60,00
-
";

#[tokio::test]
async fn a_statement_names_its_account_and_can_set_the_balance_at_the_confirm() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app
        .ok(
            &user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "700.00"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let file = TWO_ACCOUNTS.as_bytes();

    // Several accounts and none chosen: refused, naming both.
    let e = app
        .refused(
            &user,
            "stageImport",
            stage_input(&giro, "umsatz.sta", file, None),
        )
        .await;
    assert!(e.starts_with("accountIban: "), "{e}");
    assert!(
        e.contains("10020030/1234567890") && e.contains("10020030/9999999999"),
        "{e}"
    );
    // One the file does not hold: refused, naming those it holds.
    let e = app
        .refused(
            &user,
            "stageImport",
            stage_input(&giro, "umsatz.sta", file, Some("DE00 1234")),
        )
        .await;
    assert!(
        e.starts_with("accountIban: ") && e.contains("10020030/9999999999"),
        "{e}"
    );

    let staged = app
        .ok(
            &user,
            "stageImport",
            stage_input(&giro, "umsatz.sta", file, Some("10020030/1234567890")),
        )
        .await;
    assert_eq!(staged["format"]["kind"], "mt940");
    assert_eq!(staged["format"]["accountIban"], "10020030/1234567890");
    assert_eq!(
        staged["format"]["closingBalance"],
        json!({"date": "2024-12-02", "amount": 976.01, "currency": "EUR"})
    );
    assert_eq!(staged["rowCount"], 1);
    let batch = staged["id"].as_str().unwrap().to_string();
    let rows = app.ok(&user, "getImport", json!({"id": batch})).await["rows"].clone();
    assert_eq!(rows[0]["payee"], "REWE Markt GmbH");
    assert_eq!(rows[0]["memo"], "REWE Markt sagt danke");
    assert_eq!(rows[0]["amount"], json!(-23.99));
    app.ok(&user, "cancelImport", json!({"id": batch})).await;

    // The same file again into the same account: the account read before.
    let again = app
        .ok(
            &user,
            "stageImport",
            stage_input(&giro, "umsatz.sta", file, None),
        )
        .await;
    assert_eq!(again["format"]["accountIban"], "10020030/1234567890");
    let batch = again["id"].as_str().unwrap().to_string();
    app.ok(&user, "reconcileImport", json!({"id": batch})).await;

    // The page offers the file's balance, in German.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let page = app
        .get(&format!("/import?batch={batch}"), Some(&user.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(page.contains("MT940"), "the format is named");
    assert!(
        page.contains("Kontostand laut Datei"),
        "the balance is shown"
    );
    assert!(
        page.contains("Kontostand von Giro auf 976,01"),
        "the balance is offered"
    );
    // The file's balance is older than the one typed today: not ticked.
    assert!(!page.contains(r#"id="import-set-balance" type="checkbox" checked"#));
    // A newer one is.
    let newer = TWO_ACCOUNTS.replace(":62F:C241202", ":62F:C491202");
    let staged = app
        .ok(
            &user,
            "stageImport",
            stage_input(
                &giro,
                "neu.sta",
                newer.as_bytes(),
                Some("10020030/1234567890"),
            ),
        )
        .await;
    let page = app
        .get(
            &format!("/import?batch={}", staged["id"].as_str().unwrap()),
            Some(&user.cookie),
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(r#"id="import-set-balance" type="checkbox" checked"#),
        "ticked"
    );
    app.ok(&user, "cancelImport", json!({"id": staged["id"]}))
        .await;

    // Without setBalance the typed balance stays.
    let confirmed = app.ok(&user, "confirmImport", json!({"id": batch})).await;
    assert_eq!(confirmed["imported"], 1);
    assert_eq!(confirmed["balanceSet"], false);
    let balance = |accounts: Value| {
        accounts
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == giro.as_str())
            .unwrap()["balance"]
            .clone()
    };
    assert_eq!(
        balance(app.ok(&user, "listAccounts", json!({})).await),
        json!(700.00)
    );

    // With it, the balance becomes the file's.
    let other = app
        .ok(
            &user,
            "stageImport",
            stage_input(&giro, "umsatz.sta", file, Some("10020030/9999999999")),
        )
        .await;
    let batch = other["id"].as_str().unwrap().to_string();
    app.ok(&user, "reconcileImport", json!({"id": batch})).await;
    let confirmed = app
        .ok(
            &user,
            "confirmImport",
            json!({"id": batch, "setBalance": true}),
        )
        .await;
    assert_eq!(confirmed["balanceSet"], true);
    assert_eq!(
        balance(app.ok(&user, "listAccounts", json!({})).await),
        json!(60.00)
    );

    // A balance in another currency than the account's is not set.
    let franken = account(&app, &user, "CHF").await;
    let staged = app
        .ok(
            &user,
            "stageImport",
            stage_input(&franken, "umsatz.sta", file, Some("10020030/9999999999")),
        )
        .await;
    let batch = staged["id"].as_str().unwrap().to_string();
    let e = app
        .refused(
            &user,
            "confirmImport",
            json!({"id": batch, "setBalance": true}),
        )
        .await;
    assert!(e.starts_with("setBalance: "), "{e}");
}

#[tokio::test]
async fn a_broken_statement_is_refused_naming_the_file_and_its_line() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = account(&app, &user, "EUR").await;
    let cut = "<?xml version=\"1.0\"?>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\">\n<BkToCstmrStmt>\n<Stmt>\n";
    let e = app
        .refused(
            &user,
            "stageImport",
            stage_input(&giro, "auszug.xml", cut.as_bytes(), None),
        )
        .await;
    assert!(e.starts_with("csvBase64: "), "{e}");
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let e = app
        .refused(
            &user,
            "stageImport",
            stage_input(&giro, "auszug.xml", cut.as_bytes(), None),
        )
        .await;
    assert!(
        e.starts_with("csvBase64: ") && !e.contains(" file "),
        "German: {e}"
    );
}

/// English says "an OFX" (said "oh"), not "a OFX".
#[tokio::test]
async fn a_statements_refusal_says_an_ofx() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = account(&app, &user, "EUR").await;
    // An OFX file without a statement.
    let ofx = "OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><SIGNONMSGSRSV1></SIGNONMSGSRSV1></OFX>\n";
    let e = app
        .refused(
            &user,
            "stageImport",
            stage_input(&giro, "konto.ofx", ofx.as_bytes(), None),
        )
        .await;
    assert!(
        e.starts_with("csvBase64: is an OFX file that cannot be read from line"),
        "{e}"
    );
}

/// What a file of every new kind of bad input gets: a refusal naming the
/// field, or rows marked as errors; never a failure of the service.
#[tokio::test]
async fn bad_statements_get_a_refusal_or_error_rows() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = account(&app, &user, "EUR").await;
    let stage = |name: &'static str, bytes: Vec<u8>| {
        let input = stage_input(&giro, name, &bytes, None);
        let (app, cookie) = (&app, user.cookie.clone());
        async move { app.action("stageImport", input, Some(&cookie)).await }
    };

    // Entities that would expand to gigabytes are never expanded.
    let mut bomb =
        String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE d [\n<!ENTITY a \"aaaaaaaaaa\">\n");
    for i in 1..10 {
        let prev = if i == 1 {
            "a".to_string()
        } else {
            format!("e{}", i - 1)
        };
        bomb.push_str(&format!(
            "<!ENTITY e{i} \"{}\">\n",
            format!("&{prev};").repeat(10)
        ));
    }
    bomb.push_str(
        "]>\n<Document xmlns=\"urn:iso:std:iso:20022:tech:xsd:camt.053.001.02\"><BkToCstmrStmt><Stmt>\
         <Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>\
         <Ntry><Amt Ccy=\"EUR\">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>\
         <BookgDt><Dt>2024-11-02</Dt></BookgDt><NtryDtls><TxDtls><RmtInf><Ustrd>&e9;</Ustrd></RmtInf>\
         </TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>\n",
    );
    let r = stage("bomb.xml", bomb.into_bytes()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    if r.ok() {
        let rows = app
            .ok(&user, "getImport", json!({"id": r.data()["id"]}))
            .await["rows"]
            .clone();
        assert!(rows.to_string().len() < 10_000, "an entity was expanded");
        app.ok(&user, "cancelImport", json!({"id": r.data()["id"]}))
            .await;
    } else {
        assert!(
            r.body["error"].as_str().unwrap().starts_with("csvBase64: "),
            "{}",
            r.body
        );
    }

    // A broken :61: line: that row cannot be read, the others can.
    let broken = TWO_ACCOUNTS.split("-\n").next().unwrap().replace(
        ":61:2412021202DR23,99NMSCNONREF",
        ":61:24X2021202DR23,99NMSCNONREF",
    ) + ":61:2412051205DR5,00NMSCNONREF\n:86:106?20Bäckerei?32Bäcker Meier\n-\n";
    let r = stage("kaputt.sta", broken.into_bytes()).await;
    assert!(r.ok(), "{}", r.body);
    let rows = app
        .ok(&user, "getImport", json!({"id": r.data()["id"]}))
        .await["rows"]
        .clone();
    let statuses: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["error", "new"], "{rows}");
    assert_eq!(rows[1]["payee"], "Bäcker Meier");
    app.ok(&user, "cancelImport", json!({"id": r.data()["id"]}))
        .await;

    // QIF whose last record lacks its closing `^`.
    let qif = "!Type:Bank\nD11/02/2024\nT-23.99\nPREWE\n^\nD11/03/2024\nT-5.00\nPBäcker\n";
    let r = stage("konto.qif", qif.as_bytes().to_vec()).await;
    assert!(r.ok(), "{}", r.body);
    assert_eq!(r.data()["rowCount"], 2);
    assert_eq!(r.data()["format"]["kind"], "qif");
    app.ok(&user, "cancelImport", json!({"id": r.data()["id"]}))
        .await;

    // A statement downloaded as PDF is named as what it is, in German too.
    app.ok(&user, "updateSettings", json!({"locale": "de"}))
        .await;
    let r = stage(
        "auszug.pdf",
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj".to_vec(),
    )
    .await;
    let e = r.body["error"].as_str().unwrap().to_string();
    assert!(e.starts_with("csvBase64: ist ein PDF-Dokument"), "{e}");
}
