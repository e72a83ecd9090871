//! Scheduled backups with their rotation, and `cashkeeper restore` into a
//! stopped instance: what comes back, and what is refused untouched.

use crate::support::*;
use cashkeeper::store::backups;
use chrono::{Duration, TimeZone, Utc};
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn cashkeeper() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cashkeeper"));
    c.env_clear().env("RUST_LOG", "warn");
    c
}

fn users_in(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut s = c.prepare("SELECT email FROM users ORDER BY email").unwrap();
    s.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

async fn upload(app: &TestApp, user: &TestUser) -> String {
    let doc = app
        .action(
            "uploadDocument",
            json!({"fileName": "Vertrag.pdf", "dataBase64": "JVBERi0xLjcKJeLjz9M="}),
            Some(&user.cookie),
        )
        .await;
    doc.data()["id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn scheduled_backups_hold_database_and_documents_and_keep_the_newest() {
    let app = spawn_app_with(|c| c.backup_keep = 2).await;
    let user = app.new_user().await;
    upload(&app, &user).await;
    app.state
        .clock
        .set(Utc.with_ymd_and_hms(2026, 11, 20, 3, 30, 0).unwrap());
    let mut written = Vec::new();
    for _ in 0..3 {
        written.push(cashkeeper::jobs::backups::run(&app.state).await.unwrap());
        app.state.clock.advance(Duration::days(1));
    }
    let names: Vec<String> = backups::list(app.data_dir())
        .unwrap()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // The clock runs on from 03:30:00, so a busy machine may name a second later.
    let minutes: Vec<&str> = names.iter().map(|n| &n[..24]).collect();
    assert_eq!(
        minutes,
        ["cashkeeper-20261121T0330", "cashkeeper-20261122T0330"],
        "{names:?}"
    );
    let kept: Vec<String> = written[1..]
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, kept);
    assert!(!written[0].exists(), "the oldest is rotated away");
    assert!(!written[0].with_extension("documents").exists());
    for file in &written[1..] {
        backups::check(file).unwrap();
        assert_eq!(users_in(file), vec![user.email.clone()]);
        let docs = std::fs::read_dir(file.with_extension("documents"))
            .unwrap()
            .flatten()
            .flat_map(|u| std::fs::read_dir(u.path()).unwrap().flatten())
            .count();
        assert_eq!(docs, 1, "the document is copied beside {}", file.display());
    }
}

/// A backup is SQLite's copy of the whole database: every table, the
/// balance history among them, comes along.
#[tokio::test]
async fn a_backup_holds_the_balance_history() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let r = app
        .action(
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "100"}),
            Some(&user.cookie),
        )
        .await;
    let giro = r.data()["id"].as_str().unwrap().to_string();
    app.state.clock.advance(Duration::days(1));
    let r = app
        .action(
            "updateAccount",
            json!({"id": giro, "balance": "250.75"}),
            Some(&user.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    let file = cashkeeper::jobs::backups::run(&app.state).await.unwrap();
    backups::check(&file).unwrap();
    let c = rusqlite::Connection::open(&file).unwrap();
    let balances: Vec<i64> = c
        .prepare("SELECT balance_cents FROM balance_history WHERE account_id = ?1 ORDER BY date")
        .unwrap()
        .query_map([&giro], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(balances, [10000, 25075], "cents");
}

#[tokio::test]
async fn restore_brings_back_the_backup_and_its_documents_into_a_stopped_instance() {
    let app = spawn_app().await;
    let before = app.new_user().await;
    let doc = upload(&app, &before).await;
    let food = app
        .action(
            "createCategory",
            json!({"name": "Lebensmittel"}),
            Some(&before.cookie),
        )
        .await
        .data()["id"]
        .clone();
    let set = app
        .action(
            "setBudget",
            json!({"categoryId": food, "amount": 400, "from": "2026-01"}),
            Some(&before.cookie),
        )
        .await;
    assert!(set.ok(), "{}", set.body);
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("copy.db");
    backups::write(app.data_dir(), &copy).unwrap();
    // Changes after the backup: a new user, the document deleted.
    let after = app.new_user().await;
    app.action("deleteDocument", json!({"id": doc}), Some(&before.cookie))
        .await
        .data();

    // Refused while an instance serves the directory.
    let lock = backups::InstanceLock::take(app.data_dir()).unwrap();
    let out = cashkeeper()
        .args(["restore", copy.to_str().unwrap()])
        .env("CASHKEEPER_DATA_DIR", app.data_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stop it first"));
    drop(lock);

    let dir = app.stop().await;
    let out = cashkeeper()
        .args(["restore", copy.to_str().unwrap()])
        .env("CASHKEEPER_DATA_DIR", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 documents restored"));

    let app = spawn_app_in(dir, |_| {}).await;
    let back = app.login(&before.email, &before.password).await;
    assert!(back.ok(), "{}", back.body);
    assert!(!app.login(&after.email, &after.password).await.ok());
    let cookie = back.session_cookie().unwrap();
    let file = app
        .get(&format!("/api/documents/{doc}"), Some(&cookie))
        .await;
    assert_eq!(file.status(), 200, "the deleted document is back");
    let budgets = app
        .action("listBudgets", json!({"month": "2026-01"}), Some(&cookie))
        .await;
    assert_eq!(
        budgets.data()["budgets"][0]["categoryId"],
        food,
        "the budget is back"
    );
}

#[tokio::test]
async fn restore_refuses_damaged_foreign_and_newer_files_and_changes_nothing() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let copy_dir = tempfile::tempdir().unwrap();
    let good = copy_dir.path().join("good.db");
    backups::write(app.data_dir(), &good).unwrap();
    let dir = app.stop().await;
    let live = dir.path().join("cashkeeper.db");
    let live_before = std::fs::read(&live).unwrap();

    let bytes = std::fs::read(&good).unwrap();
    let truncated = copy_dir.path().join("truncated.db");
    std::fs::write(&truncated, &bytes[..bytes.len() / 3]).unwrap();
    let foreign = copy_dir.path().join("notes.txt");
    std::fs::write(&foreign, "Einkaufsliste: Milch, Brot\n").unwrap();
    let other_sqlite = copy_dir.path().join("other.db");
    rusqlite::Connection::open(&other_sqlite)
        .unwrap()
        .execute("CREATE TABLE t (x)", [])
        .unwrap();
    let newer = copy_dir.path().join("newer.db");
    std::fs::copy(&good, &newer).unwrap();
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum)
             VALUES (999, 'future', '2030-01-01T00:00:00Z', '0')",
            [],
        )
        .unwrap();

    for (file, says) in [
        (&truncated, "damaged"),
        (&foreign, "not an SQLite database"),
        (&other_sqlite, "not a cashkeeper database"),
        (&newer, "newer than this binary"),
        (&copy_dir.path().join("missing.db"), "cannot be opened"),
    ] {
        let out = cashkeeper()
            .args(["restore", file.to_str().unwrap()])
            .env("CASHKEEPER_DATA_DIR", dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", file.display());
        assert!(err.contains(says), "{}: {err}", file.display());
        assert_eq!(
            std::fs::read(&live).unwrap(),
            live_before,
            "{}",
            file.display()
        );
    }
    assert_eq!(users_in(&live), [user.email]);
}

/// Every file under `dir` with its bytes, and every folder (as `None`),
/// except the (empty) lock files a restore creates when they were missing.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Option<Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            if rel.to_string_lossy().ends_with(".lock") {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
                out.insert(rel, None);
            } else {
                out.insert(rel, Some(std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out
}

fn restore_cli(dir: &Path, file: &Path) -> std::process::Output {
    cashkeeper()
        .args(["restore", file.to_str().unwrap()])
        .env("CASHKEEPER_DATA_DIR", dir)
        .output()
        .unwrap()
}

async fn document_count(app: &TestApp, user: &TestUser) -> usize {
    app.action("listDocuments", json!({}), Some(&user.cookie))
        .await
        .data()
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn restore_of_a_backup_taken_before_any_document_puts_both_parts_in_place() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("copy.db");
    backups::write(app.data_dir(), &copy).unwrap();
    // A document attached after the backup: the restore takes it away.
    upload(&app, &user).await;
    let dir = app.stop().await;

    let out = restore_cli(dir.path(), &copy);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 documents restored"));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with(".restore") || n.contains(".old")),
        "nothing of the restore is left behind: {names:?}"
    );
    assert!(dir.path().join("documents").is_dir());

    let app = spawn_app_in(dir, |_| {}).await;
    let back = app.login(&user.email, &user.password).await;
    let user = TestUser {
        cookie: back.session_cookie().expect("signed in after the restore"),
        ..user
    };
    assert_eq!(document_count(&app, &user).await, 0);
}

#[tokio::test]
async fn restore_brings_many_documents_into_a_fresh_directory_and_one_without_documents() {
    let app = spawn_app().await;
    let (anna, ben) = (app.new_user().await, app.new_user().await);
    let mut docs = Vec::new();
    for i in 0..24 {
        let owner = if i % 2 == 0 { &anna } else { &ben };
        docs.push((i % 2, upload(&app, owner).await));
    }
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("many.db");
    backups::write(app.data_dir(), &copy).unwrap();
    drop(app);

    // A fresh, empty data directory.
    let fresh = tempfile::tempdir().unwrap();
    // One whose instance never stored a document: no documents/ folder.
    let without = spawn_app().await;
    without.new_user().await;
    assert!(!without.data_dir().join("documents").exists());
    let without = without.stop().await;

    for dir in [fresh, without] {
        let out = restore_cli(dir.path(), &copy);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("24 documents restored"));
        let app = spawn_app_in(dir, |_| {}).await;
        for (who, user) in [&anna, &ben].into_iter().enumerate() {
            let cookie = app
                .login(&user.email, &user.password)
                .await
                .session_cookie()
                .unwrap();
            for (_, id) in docs.iter().filter(|(owner, _)| *owner == who) {
                let file = app
                    .get(&format!("/api/documents/{id}"), Some(&cookie))
                    .await;
                assert_eq!(file.status(), 200, "document {id}");
            }
        }
    }
}

#[tokio::test]
async fn a_failure_in_any_step_of_a_restore_leaves_the_data_directory_as_it_was() {
    // The backup: a user and two documents.
    let source = spawn_app().await;
    let kept = source.new_user().await;
    upload(&source, &kept).await;
    upload(&source, &kept).await;
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("copy.db");
    backups::write(source.data_dir(), &copy).unwrap();
    // And one taken before any document.
    let empty_source = spawn_app().await;
    empty_source.new_user().await;
    let no_docs = copy_dir.path().join("no-docs.db");
    backups::write(empty_source.data_dir(), &no_docs).unwrap();

    // Data directories: one with documents, one without documents/, a
    // fresh empty one.
    let with_docs = spawn_app().await;
    let live = with_docs.new_user().await;
    upload(&with_docs, &live).await;
    let without_docs = spawn_app().await;
    without_docs.new_user().await;
    let dirs = [
        with_docs.stop().await,
        without_docs.stop().await,
        tempfile::tempdir().unwrap(),
    ];

    for dir in &dirs {
        for backup in [&copy, &no_docs] {
            for step in backups::Step::ALL {
                let before = snapshot(dir.path());
                let failed = backups::restore_failing_at(dir.path(), backup, Some(step));
                let err = format!("{:#}", failed.expect_err("the injected failure"));
                assert!(err.contains("as it was"), "{step:?}: {err}");
                assert_eq!(
                    snapshot(dir.path()),
                    before,
                    "{step:?} with {} into {}",
                    backup.display(),
                    dir.path().display()
                );
            }
        }
        // And then the restore succeeds.
        let restored = backups::restore(dir.path(), &copy).unwrap();
        assert_eq!(restored.documents, Some(2));
        assert_eq!(
            users_in(&dir.path().join("cashkeeper.db")),
            vec![kept.email.clone()]
        );
    }
}
