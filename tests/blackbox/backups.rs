//! Scheduled backups with their rotation, and `cashkeeper restore` into a
//! stopped instance: what comes back, and what is refused untouched.

use crate::helpers::*;
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
    assert_eq!(
        names,
        [
            "cashkeeper-20261121T033000Z.db",
            "cashkeeper-20261122T033000Z.db"
        ]
    );
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

#[tokio::test]
async fn restore_brings_back_the_backup_and_its_documents_into_a_stopped_instance() {
    let app = spawn_app().await;
    let before = app.new_user().await;
    let doc = upload(&app, &before).await;
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
