//! "Export my data": `exportData`, `GET /api/export` and `cashkeeper
//! export`: one zip with every record of the user as JSON and CSV and the
//! documents' files; nothing of another user, no password or token hash.

use crate::support::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::{json, Value};
use std::io::{Cursor, Read};

pub(crate) const PDF: &str = "JVBERi0xLjcKJeLjz9M=";

pub(crate) fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut f = zip.by_index(i).unwrap();
            let mut data = Vec::new();
            f.read_to_end(&mut data).unwrap();
            (f.name().unwrap().to_string(), data)
        })
        .collect()
}

pub(crate) fn data_json(files: &[(String, Vec<u8>)]) -> Value {
    let (_, bytes) = files.iter().find(|(n, _)| n == "data.json").unwrap();
    serde_json::from_slice(bytes).unwrap()
}

pub(crate) async fn household(app: &TestApp, user: &TestUser, name: &str) -> String {
    let account = app
        .ok(
            user,
            "createAccount",
            json!({"name": format!("{name}konto"), "type": "checking", "currency": "EUR"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        user,
        "createDailyExpense",
        json!({"name": format!("{name} Bäcker"), "amount": "3.20", "date": "2026-11-02",
               "accountId": account, "merchant": format!("{name} Backstube")}),
    )
    .await;
    app.ok(
        user,
        "createExpense",
        json!({"name": format!("{name} Miete"), "amount": 900, "frequency": "monthly",
               "startDate": "2026-01-01", "accountId": account}),
    )
    .await;
    app.ok(
        user,
        "uploadDocument",
        json!({"fileName": format!("{name}-Vertrag.pdf"), "dataBase64": PDF}),
    )
    .await["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn the_archive_holds_every_record_and_document_of_its_owner_only() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    let ben = app.new_user().await;
    let doc = household(&app, &anna, "Anna").await;
    household(&app, &ben, "Ben").await;
    app.token(&anna, json!(null)).await;

    let r = app.ok(&anna, "exportData", json!({})).await;
    assert_eq!(r["downloadUrl"], "/api/export");
    assert_eq!(app.get("/api/export", None).await.status(), 401);

    let res = app.get("/api/export", Some(&anna.cookie)).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/zip");
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        disposition.starts_with("attachment; filename=\"cashkeeper-export-"),
        "{disposition}"
    );
    assert_eq!(res.headers()["cache-control"], "no-store");
    let files = unzip(&res.bytes().await.unwrap());

    let data = data_json(&files);
    assert_eq!(data["format"], "cashkeeper-export");
    assert_eq!(data["version"], 3);
    assert_eq!(data["user"]["email"], anna.email);
    let tables = &data["tables"];
    assert_eq!(tables["accounts"][0]["name"], "Annakonto");
    assert_eq!(tables["daily_expenses"][0]["amount_cents"], 320);
    assert_eq!(tables["expenses"][0]["name"], "Anna Miete");
    assert_eq!(tables["documents"][0]["id"], doc.as_str());
    assert!(
        tables["categories"].as_array().unwrap().len() > 3,
        "the default categories"
    );

    // The CSV files read in a spreadsheet: a header, amounts as decimals.
    let (_, csv) = files
        .iter()
        .find(|(n, _)| n == "csv/daily_expenses.csv")
        .unwrap();
    let csv = String::from_utf8(csv.clone()).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.contains(",amount,") && !header.contains("user_id"),
        "{header}"
    );
    assert!(
        csv.contains(",3.20,") && csv.contains("Anna Bäcker"),
        "{csv}"
    );

    // The document's bytes, under its id and name.
    let (_, pdf) = files
        .iter()
        .find(|(n, _)| n == &format!("documents/{doc}/Anna-Vertrag.pdf"))
        .expect("the document is in the archive");
    assert_eq!(pdf, &STANDARD.decode(PDF).unwrap());

    // Nothing of Ben, no credential of Anna.
    let ben_id = app.user_id(&ben).await.as_str().to_string();
    for (name, bytes) in &files {
        let text = String::from_utf8_lossy(bytes);
        for secret in [
            "Ben",
            &ben_id,
            "$argon2",
            "password_hash",
            "token_hash",
            "csk_",
        ] {
            assert!(!text.contains(secret), "{secret} in {name}");
        }
    }
}

#[tokio::test]
async fn the_command_writes_the_same_archive_and_names_an_unknown_email() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    household(&app, &anna, "Anna").await;
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("anna.zip");
    let data_dir = app.data_dir().to_path_buf();
    let (email, o) = (anna.email.clone(), out.clone());
    let run = move |email: String| {
        let (d, o) = (data_dir.clone(), o.clone());
        std::process::Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
            .env_clear()
            .env("RUST_LOG", "warn")
            .env("CASHKEEPER_DATA_DIR", d)
            .args(["export", "--email", &email, "--out", o.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let r2 = run.clone();
    let output = tokio::task::spawn_blocking(move || r2(email))
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("1 documents"));

    let from_cli = data_json(&unzip(&std::fs::read(&out).unwrap()));
    let res = app.get("/api/export", Some(&anna.cookie)).await;
    let from_page = data_json(&unzip(&res.bytes().await.unwrap()));
    assert_eq!(from_cli["tables"], from_page["tables"]);
    assert_eq!(from_cli["user"], from_page["user"]);

    let output = tokio::task::spawn_blocking(move || run("nobody@example.org".into()))
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--email: no user nobody@example.org"));
}

fn cli(data_dir: &std::path::Path, args: &[&str], stdin: Option<&str>) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
        .env_clear()
        .env("RUST_LOG", "warn")
        .env("CASHKEEPER_DATA_DIR", data_dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn an_archive_imported_into_a_fresh_instance_exports_the_same_data() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    household(&app, &anna, "Anna").await;
    let accounts = app.ok(&anna, "listAccounts", json!({})).await;
    let giro = accounts[0]["id"].as_str().unwrap().to_string();
    let savings = app
        .ok(
            &anna,
            "createAccount",
            json!({"name": "Tagesgeld", "type": "savings", "currency": "EUR"}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        &anna,
        "createTransfer",
        json!({"fromAccountId": giro, "toAccountId": savings, "amount": 200,
               "frequency": "monthly", "startDate": "2026-01-01"}),
    )
    .await;
    app.ok(
        &anna,
        "createIncome",
        json!({"name": "Gehalt", "amount": 2500, "frequency": "monthly",
               "startDate": "2026-01-01", "accountId": giro}),
    )
    .await;
    // An import, confirmed: its entries skip the insert triggers.
    let csv = "Datum;Betrag;Empfänger\n03.11.2026;-12,50;Kiosk Morgenrot\n";
    let batch = app
        .ok(
            &anna,
            "stageImport",
            json!({"accountId": giro, "fileName": "k.csv", "csv": csv,
                   "mapping": {"date": "Datum", "amount": "Betrag", "payee": "Empfänger"}}),
        )
        .await["id"]
        .clone();
    app.ok(&anna, "confirmImport", json!({"id": batch})).await;
    let first = app
        .get("/api/export", Some(&anna.cookie))
        .await
        .bytes()
        .await
        .unwrap();
    let archive_dir = tempfile::tempdir().unwrap();
    let archive = archive_dir.path().join("anna.zip");
    std::fs::write(&archive, &first).unwrap();

    // A fresh instance.
    let fresh = tempfile::tempdir().unwrap();
    let (d, a, e) = (
        fresh.path().to_path_buf(),
        archive.clone(),
        anna.email.clone(),
    );
    let out = tokio::task::spawn_blocking(move || {
        cli(
            &d,
            &["import-user", "--email", &e, a.to_str().unwrap()],
            None,
        )
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("set-password"));
    let (d, e) = (fresh.path().to_path_buf(), anna.email.clone());
    let out = tokio::task::spawn_blocking(move || {
        cli(
            &d,
            &["user", "set-password", "--email", &e, "--password-stdin"],
            Some("new instance pw\n"),
        )
    })
    .await
    .unwrap();
    assert!(out.status.success());

    let app2 = spawn_app_in(fresh, |_| {}).await;
    let cookie = app2
        .login(&anna.email, "new instance pw")
        .await
        .session_cookie()
        .unwrap();
    let second = app2
        .get("/api/export", Some(&cookie))
        .await
        .bytes()
        .await
        .unwrap();
    let (a, b) = (unzip(&first), unzip(&second));
    for k in ["email", "name", "locale", "baseCurrency"] {
        assert_eq!(data_json(&a)["user"][k], data_json(&b)["user"][k], "{k}");
    }
    // Every record has a new id, and every reference the new id of the
    // record it names: with the ids numbered in order of appearance, the
    // tables, the CSV files and the documents are the same.
    let (na, nb) = (same_ids(&a), same_ids(&b));
    assert_ne!(a, b, "new ids");
    assert_eq!(na.len(), nb.len());
    for (x, y) in na.iter().zip(&nb) {
        assert_eq!(x.0, y.0);
        assert_eq!(
            String::from_utf8_lossy(&x.1),
            String::from_utf8_lossy(&y.1),
            "{}",
            x.0
        );
    }
    let doc = b
        .iter()
        .find_map(|(n, _)| n.strip_prefix("documents/"))
        .and_then(|rest| rest.split_once('/'))
        .map(|(id, _)| id.to_string())
        .expect("the document in the second archive");
    // Search and month views work on what was loaded.
    let hits = app2
        .action("search", json!({"query": "Morgenrot"}), Some(&cookie))
        .await;
    assert_eq!(hits.data().as_array().unwrap().len(), 1);
    let file = app2
        .get(&format!("/api/documents/{doc}"), Some(&cookie))
        .await;
    assert_eq!(file.status(), 200);
}

#[tokio::test]
async fn damaged_foreign_and_clashing_archives_are_refused_and_leave_nothing() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    household(&app, &anna, "Anna").await;
    let bytes = app
        .get("/api/export", Some(&anna.cookie))
        .await
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.zip");
    std::fs::write(&good, &bytes).unwrap();
    let truncated = dir.path().join("truncated.zip");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let foreign = dir.path().join("foreign.zip");
    {
        let mut z = zip::ZipWriter::new(std::fs::File::create(&foreign).unwrap());
        z.start_file("notes.txt", zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut z, b"hello").unwrap();
        z.finish().unwrap();
    }
    let data_dir = app.data_dir().to_path_buf();
    let db = data_dir.join("cashkeeper.db");
    let count = |email: &str| -> i64 {
        rusqlite::Connection::open(&db)
            .unwrap()
            .query_row(
                "SELECT COUNT(*) FROM users WHERE email = ?1",
                [email],
                |r| r.get(0),
            )
            .unwrap()
    };
    for (file, says) in [
        (&truncated, "not a cashkeeper export"),
        (&foreign, "has no data.json"),
    ] {
        let (d, f) = (data_dir.clone(), file.clone());
        let out = tokio::task::spawn_blocking(move || {
            cli(
                &d,
                &[
                    "import-user",
                    "--email",
                    "copy@example.org",
                    f.to_str().unwrap(),
                ],
                None,
            )
        })
        .await
        .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(says), "{}: {err}", file.display());
        assert_eq!(count("copy@example.org"), 0, "nothing half-imported");
    }
    // Anna's own archive loads on her instance beside her records: every
    // record gets a new id.
    let (d, f) = (data_dir.clone(), good.clone());
    let out = tokio::task::spawn_blocking(move || {
        cli(
            &d,
            &[
                "import-user",
                "--email",
                "copy@example.org",
                f.to_str().unwrap(),
            ],
            None,
        )
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(count("copy@example.org"), 1);
    let accounts: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row(
            "SELECT COUNT(DISTINCT id) FROM accounts WHERE name = 'Annakonto'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(accounts, 2, "the copy's account has an id of its own");

    // A user who has records already is not overwritten.
    let (d, f, e) = (data_dir.clone(), good.clone(), anna.email.clone());
    let out = tokio::task::spawn_blocking(move || {
        cli(
            &d,
            &["import-user", "--email", &e, f.to_str().unwrap()],
            None,
        )
    })
    .await
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has records already"));
    assert_eq!(
        app.ok(&anna, "listAccounts", json!({}))
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// `user`'s archive, as "Export my data" downloads it.
pub(crate) async fn export_of(app: &TestApp, user: &TestUser) -> Vec<u8> {
    let res = app.get("/api/export", Some(&user.cookie)).await;
    assert_eq!(res.status(), 200);
    res.bytes().await.unwrap().to_vec()
}

pub(crate) async fn load(app: &TestApp, cookie: Option<&str>, bytes: Vec<u8>) -> (u16, Value) {
    app.load_archive(cookie, &bytes).await
}

#[tokio::test]
async fn settings_load_an_export_into_an_account_without_records() {
    let old = spawn_app().await;
    let anna = old.new_user().await;
    household(&old, &anna, "Anna").await;
    old.ok(
        &anna,
        "updateSettings",
        json!({"locale": "de", "name": "Anna A."}),
    )
    .await;
    let bytes = export_of(&old, &anna).await;

    let new = spawn_app().await;
    let moved = new.new_user().await;
    new.ok(&moved, "updateSettings", json!({"name": "Anna"}))
        .await;
    assert_eq!(load(&new, None, bytes.clone()).await.0, 401);
    let (status, body) = load(&new, Some(&moved.cookie), b"not a zip at all".to_vec()).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .starts_with("file: is not a cashkeeper export"),
        "{body}"
    );

    let (status, body) = load(&new, Some(&moved.cookie), bytes.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["documents"], 1);
    // What was loaded, per table, and said in words.
    assert_eq!(body["tables"]["accounts"], 1, "{body}");
    assert_eq!(body["tables"]["daily_expenses"], 1, "{body}");
    assert_eq!(body["tables"]["documents"], 1, "{body}");
    assert!(body["records"].as_u64().unwrap() > 5, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("Export loaded: 1 account, 1 recurring expense, 1 one-time expense, ")
            && message.ends_with(" categories, 1 document."),
        "{body}"
    );
    let accounts = new.ok(&moved, "listAccounts", json!({})).await;
    assert_eq!(accounts[0]["name"], "Annakonto");
    // The account keeps the name and the language its person chose.
    let settings = new.ok(&moved, "getSettings", json!({})).await;
    assert_eq!(
        (settings["locale"].as_str(), settings["name"].as_str()),
        (Some("en"), Some("Anna"))
    );
    assert_eq!(settings["email"], moved.email.as_str(), "the sign-in stays");

    // Not a second time: the account has records now; said in the user's
    // language, and nothing is lost.
    new.ok(&moved, "updateSettings", json!({"locale": "de"}))
        .await;
    let (status, body) = load(&new, Some(&moved.cookie), bytes).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"],
        "file: dein Konto hat schon Einträge: ein Export lässt sich nur in ein Konto ohne \
         Einträge laden (etwa ein neu angelegtes); ist es dein eigener Export, sind seine \
         Einträge schon hier",
        "{body}"
    );
    assert_eq!(counts(&new, &moved), [1, 1, 1, 1], "nothing lost");
}

/// `user`'s accounts, recurring and one-time expenses and documents, counted
/// in the database.
fn counts(app: &TestApp, user: &TestUser) -> Vec<i64> {
    let db = rusqlite::Connection::open(app.data_dir().join("cashkeeper.db")).unwrap();
    ["accounts", "expenses", "daily_expenses", "documents"]
        .iter()
        .map(|t| {
            db.query_row(
                &format!("SELECT COUNT(*) FROM {t} WHERE user_id = ?1"),
                [&user.id],
                |r| r.get(0),
            )
            .unwrap()
        })
        .collect()
}

#[tokio::test]
async fn ones_own_export_loaded_twice_on_the_same_instance_says_why_and_loses_nothing() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    household(&app, &anna, "Anna").await;
    app.ok(
        &anna,
        "updateSettings",
        json!({"locale": "de", "name": "Anna A.", "baseCurrency": "CHF"}),
    )
    .await;
    let bytes = export_of(&app, &anna).await;
    let before = counts(&app, &anna);
    assert_eq!(before, [1, 1, 1, 1]);
    for _ in 0..2 {
        let (status, body) = load(&app, Some(&anna.cookie), bytes.clone()).await;
        assert_eq!(status, 400, "{body}");
        let error = body["error"].as_str().unwrap();
        assert!(
            error.starts_with("file: dein Konto hat schon Einträge")
                && error.contains("ist es dein eigener Export"),
            "{error}"
        );
        assert!(
            !error.contains("UNIQUE") && !error.contains("constraint"),
            "{error}"
        );
        assert_eq!(counts(&app, &anna), before, "nothing lost, nothing doubled");
    }

    // A second account on the same instance takes it: new ids for all, a
    // report of what came, the archive's base currency said.
    let copy = app.new_user().await;
    app.ok(
        &copy,
        "updateSettings",
        json!({"locale": "de", "name": "Kopie"}),
    )
    .await;
    let (status, body) = load(&app, Some(&copy.cookie), bytes.clone()).await;
    assert_eq!(status, 200, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(
        message.starts_with("Export geladen: 1 Konto, 1 wiederkehrende Ausgabe, 1 Einzelausgabe, ")
            && message.ends_with(" Kategorien, 1 Dokument. Basiswährung jetzt CHF."),
        "{message}"
    );
    assert_eq!(body["baseCurrency"], "CHF");
    assert_eq!(counts(&app, &copy), before);
    let settings = app.ok(&copy, "getSettings", json!({})).await;
    assert_eq!(settings["name"], "Kopie", "not renamed");
    let (status, body) = load(&app, Some(&copy.cookie), bytes).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(counts(&app, &copy), before);
    assert_eq!(counts(&app, &anna), before);
}

/// `files` (data.json first, then by name) with every id replaced by
/// `#n`, numbered in order of first appearance, and data.json's head (the
/// export's time) left out: two archives of the same data written with
/// different ids compare equal.
pub(crate) fn same_ids(files: &[(String, Vec<u8>)]) -> Vec<(String, Vec<u8>)> {
    let mut ordered: Vec<(String, Vec<u8>)> = files.to_vec();
    ordered.sort_by_key(|(n, _)| (n != "data.json", n.clone()));
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut number = |text: &str| -> String {
        let mut out = String::new();
        let mut rest = text;
        while !rest.is_empty() {
            let candidate = rest.get(..36).filter(|c| {
                c.char_indices().all(|(i, ch)| {
                    if [8, 13, 18, 23].contains(&i) {
                        ch == '-'
                    } else {
                        ch.is_ascii_hexdigit()
                    }
                })
            });
            if let Some(id) = candidate {
                let n = seen.len();
                let n = *seen.entry(id.to_string()).or_insert(n);
                out.push_str(&format!("#{n}"));
                rest = &rest[36..];
            } else {
                let ch = rest.chars().next().unwrap();
                out.push(ch);
                rest = &rest[ch.len_utf8()..];
            }
        }
        out
    };
    ordered
        .into_iter()
        .map(|(name, bytes)| {
            let bytes = if name == "data.json" {
                let data: Value = serde_json::from_slice(&bytes).unwrap();
                serde_json::to_vec_pretty(&data["tables"]).unwrap()
            } else {
                bytes
            };
            let bytes = match String::from_utf8(bytes) {
                Ok(text) => number(&text).into_bytes(),
                Err(e) => e.into_bytes(),
            };
            (number(&name), bytes)
        })
        .collect()
}

/// The archive `files` with its data.json changed by `edit`.
pub(crate) fn rezip(files: &[(String, Vec<u8>)], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut data = data_json(files);
    edit(&mut data);
    let mut out = Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut out);
        for (name, bytes) in files {
            z.start_file(name.as_str(), zip::write::SimpleFileOptions::default())
                .unwrap();
            let bytes = if name == "data.json" {
                serde_json::to_vec(&data).unwrap()
            } else {
                bytes.clone()
            };
            std::io::Write::write_all(&mut z, &bytes).unwrap();
        }
        z.finish().unwrap();
    }
    out.into_inner()
}

#[tokio::test]
async fn price_histories_travel_and_an_archive_cannot_reach_another_users_records() {
    // Anna's archive, with a price change of her subscription.
    let source = spawn_app().await;
    let anna = source.new_user().await;
    household(&source, &anna, "Anna").await;
    let account = source.ok(&anna, "listAccounts", json!({})).await[0]["id"].clone();
    let sub = source
        .ok(
            &anna,
            "createExpense",
            json!({"name": "Netflix", "amount": "13.99", "frequency": "monthly",
            "startDate": "2025-01-05", "accountId": account, "isSubscription": true}),
        )
        .await["id"]
        .clone();
    source
        .ok(
            &anna,
            "updateExpense",
            json!({"id": sub, "amount": "15.99", "amountFrom": "2026-01-01"}),
        )
        .await;
    let files = unzip(
        &source
            .get("/api/export", Some(&anna.cookie))
            .await
            .bytes()
            .await
            .unwrap(),
    );
    assert_eq!(
        data_json(&files)["tables"]["earlier_amounts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Another instance, where Carl has an expense of his own.
    let target = spawn_app().await;
    let carl = target.new_user().await;
    let carl_account = target.account(&carl, "Carlkonto", "EUR").await;
    let carls = target
        .ok(
            &carl,
            "createExpense",
            json!({"name": "Carl Miete", "amount": 700, "frequency": "monthly",
            "startDate": "2025-01-01", "accountId": carl_account}),
        )
        .await["id"]
        .clone();
    let dir = tempfile::tempdir().unwrap();
    let import = |name: &str, bytes: Vec<u8>, email: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let (d, email) = (target.data_dir().to_path_buf(), email.to_string());
        async move {
            tokio::task::spawn_blocking(move || {
                cli(
                    &d,
                    &["import-user", "--email", &email, file.to_str().unwrap()],
                    None,
                )
            })
            .await
            .unwrap()
        }
    };

    // A history row pointing at Carl's expense is refused, and nothing stays.
    let crafted = rezip(&files, |d| {
        d["tables"]["earlier_amounts"]
            .as_array_mut()
            .unwrap()
            .push(json!({"expense_id": carls, "income_id": null, "until": "2025-06-01", "amount_cents": 100}));
    });
    let out = import("crafted.zip", crafted, "mallory@example.org").await;
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not in this archive"), "{err}");
    let carl_view = target.ok(&carl, "listExpenses", json!({})).await;
    assert_eq!(carl_view[0]["earlierAmounts"], json!([]));

    // The archive as it is carries the history along.
    let out = import("anna.zip", rezip(&files, |_| {}), "anna2@example.org").await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = rusqlite::Connection::open(target.data_dir().join("cashkeeper.db")).unwrap();
    let rows: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM earlier_amounts e JOIN users u ON u.id = e.user_id
             WHERE u.email = 'anna2@example.org' AND e.until = '2026-01-01' AND e.amount_cents = 1399",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(rows, 1);

    // An archive of version 1 (before price histories) gets the earlier
    // price its subscription kept, as the upgrade gives it.
    let old = rezip(&files, |d| {
        d["version"] = json!(1);
        let tables = d["tables"].as_object_mut().unwrap();
        tables.remove("earlier_amounts");
        for e in tables["expenses"].as_array_mut().unwrap() {
            if e["name"] == "Netflix" {
                e["created_at"] = json!("2025-01-05T10:00:00Z");
                e["previous_amount_cents"] = json!(1299);
                e["amount_changed_at"] = json!("2025-09-01T10:00:00Z");
            }
        }
    });
    let third = spawn_app().await;
    let file = dir.path().join("old.zip");
    std::fs::write(&file, old).unwrap();
    let d = third.data_dir().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        cli(
            &d,
            &[
                "import-user",
                "--email",
                "anna3@example.org",
                file.to_str().unwrap(),
            ],
            None,
        )
    })
    .await
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = rusqlite::Connection::open(third.data_dir().join("cashkeeper.db")).unwrap();
    let seeded: (String, i64) = db
        .query_row("SELECT until, amount_cents FROM earlier_amounts", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(seeded, ("2025-09-01".to_string(), 1299));
}

/// Budgets travel with their months and rollover, and an archive from
/// before budgets turns each category's monthly limit into its budget.
#[tokio::test]
async fn budgets_travel_and_an_old_archives_monthly_limit_becomes_a_budget() {
    let source = spawn_app().await;
    let anna = source.new_user().await;
    household(&source, &anna, "Anna").await;
    let food = source
        .ok(&anna, "createCategory", json!({"name": "Lebensmittel"}))
        .await["id"]
        .clone();
    source
        .ok(
            &anna,
            "setBudget",
            json!({"categoryId": food, "amount": 400, "from": "2025-01", "rollover": true}),
        )
        .await;
    source
        .ok(
            &anna,
            "setBudget",
            json!({"categoryId": food, "amount": 350, "from": "2025-06", "rollover": true}),
        )
        .await;
    let files = unzip(
        &source
            .get("/api/export", Some(&anna.cookie))
            .await
            .bytes()
            .await
            .unwrap(),
    );
    let budgets = data_json(&files)["tables"]["budgets"].clone();
    assert_eq!(budgets.as_array().unwrap().len(), 2, "{budgets}");
    assert!(files.iter().any(|(n, _)| n == "csv/budgets.csv"));

    let target = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    let import = |name: &str, bytes: Vec<u8>, email: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let (d, email) = (target.data_dir().to_path_buf(), email.to_string());
        async move {
            tokio::task::spawn_blocking(move || {
                cli(
                    &d,
                    &["import-user", "--email", &email, file.to_str().unwrap()],
                    None,
                )
            })
            .await
            .unwrap()
        }
    };
    let rows = |email: &'static str| {
        let db = rusqlite::Connection::open(target.data_dir().join("cashkeeper.db")).unwrap();
        let mut s = db
            .prepare(
                "SELECT b.month, b.amount_cents, b.rollover FROM budgets b
                 JOIN users u ON u.id = b.user_id JOIN categories k ON k.id = b.category_id
                 WHERE u.email = ?1 AND k.user_id = u.id ORDER BY b.month",
            )
            .unwrap();
        s.query_map([email], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<Vec<(String, i64, bool)>>>()
            .unwrap()
    };
    let out = import("anna.zip", rezip(&files, |_| {}), "anna2@example.org").await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        rows("anna2@example.org"),
        vec![
            ("2025-01".into(), 40000, true),
            ("2025-06".into(), 35000, true)
        ]
    );

    // An archive of version 2: no budgets, a monthly limit on the category.
    let old = rezip(&files, |d| {
        d["version"] = json!(2);
        d["tables"].as_object_mut().unwrap().remove("budgets");
        for k in d["tables"]["categories"].as_array_mut().unwrap() {
            if k["name"] == "Lebensmittel" {
                k["monthly_limit_cents"] = json!(25000);
                k["created_at"] = json!("2024-11-20T10:00:00Z");
            }
        }
    });
    let out = import("old.zip", old, "anna3@example.org").await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        rows("anna3@example.org"),
        vec![("2024-11".into(), 25000, false)]
    );
}

async fn history(app: &TestApp, user: &TestUser, account: Value) -> Value {
    app.ok(user, "listBalanceHistory", json!({"accountId": account}))
        .await
}

#[tokio::test]
async fn balance_histories_travel_and_an_older_archive_gets_one_balance_per_account() {
    let source = spawn_app().await;
    let anna = source.new_user().await;
    let giro = source
        .ok(
            &anna,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "100"}),
        )
        .await["id"]
        .clone();
    source.state.clock.advance(chrono::Duration::days(1));
    source
        .ok(
            &anna,
            "updateAccount",
            json!({"id": giro, "balance": "-150.25"}),
        )
        .await;
    let before = history(&source, &anna, giro.clone()).await;
    assert_eq!(before.as_array().unwrap().len(), 2, "{before}");
    let files = unzip(
        &source
            .get("/api/export", Some(&anna.cookie))
            .await
            .bytes()
            .await
            .unwrap(),
    );
    let rows = data_json(&files)["tables"]["balance_history"].clone();
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
    assert_eq!(rows[0]["account_id"], giro);
    assert_eq!(rows[1]["balance_cents"], -15025);
    assert!(rows[0].get("user_id").is_none());
    let (_, csv) = files
        .iter()
        .find(|(n, _)| n == "csv/balance_history.csv")
        .expect("a CSV of the balances");
    let csv = String::from_utf8(csv.clone()).unwrap();
    assert!(
        csv.starts_with("account_id,date,balance,recorded_at\n") && csv.contains(",-150.25,"),
        "{csv}"
    );

    // Loaded elsewhere, the account has the same history under its new id.
    let target = spawn_app().await;
    let moved = target.new_user().await;
    let (status, body) = load(&target, Some(&moved.cookie), rezip(&files, |_| {})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tables"]["balance_history"], 2, "{body}");
    let account = target.ok(&moved, "listAccounts", json!({})).await[0]["id"].clone();
    assert_ne!(account, giro);
    assert_eq!(history(&target, &moved, account).await, before);

    // An archive from before balance histories: each account's balance
    // from its creation day, as the upgrade gives it.
    let old = rezip(&files, |d| {
        d["version"] = json!(2);
        d["tables"]
            .as_object_mut()
            .unwrap()
            .remove("balance_history");
    });
    let third = target.new_user().await;
    let (status, body) = load(&target, Some(&third.cookie), old).await;
    assert_eq!(status, 200, "{body}");
    let account = target.ok(&third, "listAccounts", json!({})).await[0].clone();
    let created = account["createdAt"].as_str().unwrap()[..10].to_string();
    assert_eq!(
        history(&target, &third, account["id"].clone()).await,
        json!([{"date": created, "balance": -150.25}])
    );
}

/// The spreadsheet file `name` of an archive: it starts with UTF-8's byte
/// order mark; its rows as read with `delimiter`, the header first.
fn sheet(files: &[(String, Vec<u8>)], name: &str, delimiter: u8) -> Vec<Vec<String>> {
    let (_, bytes) = files
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} in the archive"));
    crate::support::sheets::sheet_rows(bytes, delimiter)
}

#[tokio::test]
async fn the_spreadsheet_files_are_written_for_the_users_language() {
    let app = spawn_app().await;
    for (locale, delimiter, file, header, amount, date, yes) in [
        (
            "de",
            b';',
            "spreadsheet/Einzelausgaben.csv",
            [
                "Datum",
                "Name",
                "Händler",
                "Betrag",
                "Währung",
                "Konto",
                "Kategorie",
                "Notizen",
            ],
            "1234,88",
            "14.03.2026",
            "ja",
        ),
        (
            "en",
            b',',
            "spreadsheet/one-time-expenses.csv",
            [
                "Date", "Name", "Merchant", "Amount", "Currency", "Account", "Category", "Notes",
            ],
            "1234.88",
            "2026-03-14",
            "yes",
        ),
    ] {
        let user = app.new_user().await;
        app.ok(&user, "updateSettings", json!({"locale": locale}))
            .await;
        let account = app.account(&user, "Girokonto; privat", "EUR").await;
        let category = &app.ok(&user, "listCategories", json!({})).await[0];
        app.ok(
            &user,
            "createDailyExpense",
            json!({"name": "Fahrrad", "amount": "1234.88", "date": "2026-03-14",
                   "accountId": account, "categoryId": category["id"], "notes": "=Rahmen, Sattel"}),
        )
        .await;
        app.ok(
            &user,
            "createExpense",
            json!({"name": "Streaming", "amount": "17.88", "frequency": "monthly",
                   "startDate": "2026-01-01", "accountId": account, "isSubscription": true}),
        )
        .await;
        let files = unzip(&export_of(&app, &user).await);

        let rows = sheet(&files, file, delimiter);
        assert_eq!(rows[0], header, "{locale}");
        assert_eq!(
            rows[1],
            [
                date,
                "Fahrrad",
                "",
                amount,
                "EUR",
                "Girokonto; privat",
                category["name"].as_str().unwrap(),
                "'=Rahmen, Sattel",
            ],
            "{locale}: names, not ids; the amount in the language's style"
        );
        assert_eq!(rows.len(), 2);
        let recurring = if locale == "de" {
            sheet(&files, "spreadsheet/Wiederkehrende-Ausgaben.csv", b';')
        } else {
            sheet(&files, "spreadsheet/recurring-expenses.csv", b',')
        };
        let monthly = if locale == "de" { "17,88" } else { "17.88" };
        assert_eq!(recurring[1][1], monthly);
        assert_eq!(recurring[1][8], yes);
        let (_, raw) = files.iter().find(|(n, _)| n == file).unwrap();
        let raw = String::from_utf8(raw.clone()).unwrap();
        assert_eq!(
            raw.lines()
                .next()
                .unwrap()
                .matches(delimiter as char)
                .count(),
            7,
            "{locale}: eight columns by the delimiter"
        );

        // The machine-readable files stay as they were, whatever the language.
        let data = data_json(&files);
        assert_eq!(data["tables"]["daily_expenses"][0]["amount_cents"], 123488);
        let (_, csv) = files
            .iter()
            .find(|(n, _)| n == "csv/daily_expenses.csv")
            .unwrap();
        let csv = String::from_utf8(csv.clone()).unwrap();
        assert!(csv.starts_with("id,"), "no byte order mark, commas: {csv}");
        assert!(csv.contains(",1234.88,"), "{csv}");
    }
}
