//! The account lifecycle: `deleteUser` in Settings, and the administrator's
//! `cashkeeper user list | set-password | disable | enable | delete`.
//! Afterwards no row of a deleted user is left in any table and no file of
//! theirs on disk, while the other users keep everything.

use crate::support::*;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn cashkeeper(data_dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
        .env_clear()
        .env("RUST_LOG", "warn")
        .env("CASHKEEPER_DATA_DIR", data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).unwrap();
    }
    drop(input);
    child.wait_with_output().unwrap()
}

async fn run(app: &TestApp, args: &[&str], stdin: Option<&str>) -> Output {
    let dir = app.data_dir().to_path_buf();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let stdin = stdin.map(str::to_string);
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cashkeeper(&dir, &args, stdin.as_deref())
    })
    .await
    .unwrap()
}

/// Rows that name `user_id` in any table (a `user_id` column, or `users.id`).
fn rows_of(db: &Path, user_id: &str) -> Vec<(String, i64)> {
    let c = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut found = Vec::new();
    for t in tables {
        let columns: Vec<String> = c
            .prepare(&format!("SELECT name FROM pragma_table_info('{t}')"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let column = if t == "users" {
            "id"
        } else if columns.iter().any(|c| c == "user_id") {
            "user_id"
        } else {
            continue;
        };
        let n: i64 = c
            .query_row(
                &format!("SELECT COUNT(*) FROM \"{t}\" WHERE {column} = ?1"),
                [user_id],
                |r| r.get(0),
            )
            .unwrap();
        if n > 0 {
            found.push((t, n));
        }
    }
    found
}

/// A user with something in every corner: an account, entries, a
/// document, a token, a conversation-free but complete household.
async fn fill(app: &TestApp, user: &TestUser) -> String {
    let account = app
        .ok(
            user,
            "createAccount",
            json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": 100}),
        )
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        user,
        "createDailyExpense",
        json!({"name": "Bäcker", "amount": 3.2, "date": "2026-11-02", "accountId": account, "merchant": "Bäckerei"}),
    )
    .await;
    app.ok(
        user,
        "createExpense",
        json!({"name": "Miete", "amount": 900, "frequency": "monthly", "startDate": "2026-01-01", "accountId": account}),
    )
    .await;
    app.ok(
        user,
        "uploadDocument",
        json!({"fileName": "Vertrag.pdf", "dataBase64": "JVBERi0xLjcKJeLjz9M="}),
    )
    .await;
    app.token(user, json!(null)).await
}

#[tokio::test]
async fn delete_user_needs_the_password_and_leaves_no_row_and_no_file() {
    let app = spawn_app().await;
    let gone = app.new_user().await;
    let stays = app.new_user().await;
    let token = fill(&app, &gone).await;
    let other_token = fill(&app, &stays).await;
    let db = app.data_dir().join("cashkeeper.db");
    let gone_id = app.user_id(&gone).await.as_str().to_string();
    let stays_id = app.user_id(&stays).await.as_str().to_string();
    assert!(rows_of(&db, &gone_id).len() > 5);

    let wrong = app
        .refused(&gone, "deleteUser", json!({"password": "not it at all"}))
        .await;
    assert!(wrong.starts_with("password:"), "{wrong}");
    let missing = app.refused(&gone, "deleteUser", json!({})).await;
    assert_eq!(missing, "password: is required");
    assert!(
        !rows_of(&db, &gone_id).is_empty(),
        "a refusal deletes nothing"
    );

    let r = app
        .action(
            "deleteUser",
            json!({"password": gone.password}),
            Some(&gone.cookie),
        )
        .await;
    assert!(r.ok(), "{}", r.body);
    assert!(r.set_cookie().unwrap().contains("Max-Age=0"));
    assert_eq!(rows_of(&db, &gone_id), vec![]);
    assert!(!app.data_dir().join("documents").join(&gone_id).exists());
    assert!(!app.login(&gone.email, &gone.password).await.ok());
    let r = app
        .action("listAccounts", json!({}), Some(&gone.cookie))
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(app.api("/summary", &token).await.status(), 401);

    // The other user keeps everything.
    assert!(rows_of(&db, &stays_id).len() > 5);
    assert!(app.data_dir().join("documents").join(&stays_id).exists());
    assert_eq!(app.api("/summary", &other_token).await.status(), 200);
}

#[tokio::test]
async fn the_administrator_lists_resets_disables_enables_and_deletes_users() {
    let app = spawn_app().await;
    let anna = app.new_user().await;
    let ben = app.new_user().await;
    let token = fill(&app, &anna).await;

    let out = run(&app, &["user", "list"], None).await;
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        list.contains(&anna.email) && list.contains(&ben.email),
        "{list}"
    );
    let anna_line = list.lines().find(|l| l.contains(&anna.email)).unwrap();
    assert!(
        anna_line.contains("active") && anna_line.contains(" 2 "),
        "{anna_line}"
    );

    // A new password: the old one and every session end.
    let out = run(
        &app,
        &[
            "user",
            "set-password",
            "--email",
            &anna.email,
            "--password-stdin",
        ],
        Some("a brand new secret\n"),
    )
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!app.login(&anna.email, &anna.password).await.ok());
    let r = app
        .action("listAccounts", json!({}), Some(&anna.cookie))
        .await;
    assert_eq!(r.status, 401);
    let anna_cookie = app
        .login(&anna.email, "a brand new secret")
        .await
        .session_cookie()
        .unwrap();

    // Disabled: signed out, tokens revoked, sign-in refused even with the
    // right password; the data stays.
    let out = run(&app, &["user", "disable", "--email", &anna.email], None).await;
    assert!(out.status.success());
    let r = app
        .action("listAccounts", json!({}), Some(&anna_cookie))
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(app.api("/summary", &token).await.status(), 401);
    let r = app.login(&anna.email, "a brand new secret").await;
    assert!(r.error().unwrap().contains("disabled"), "{}", r.body);
    let r = app.login(&anna.email, "wrong password!").await;
    assert_eq!(r.error(), Some("invalid email or password"));
    let list =
        String::from_utf8_lossy(&run(&app, &["user", "list"], None).await.stdout).to_string();
    assert!(list
        .lines()
        .any(|l| l.contains(&anna.email) && l.contains("disabled")));

    let out = run(&app, &["user", "enable", "--email", &anna.email], None).await;
    assert!(out.status.success());
    let back = app.login(&anna.email, "a brand new secret").await;
    assert!(back.ok(), "{}", back.body);
    let accounts = app
        .action(
            "listAccounts",
            json!({}),
            Some(&back.session_cookie().unwrap()),
        )
        .await;
    assert_eq!(accounts.data().as_array().unwrap().len(), 1);

    let anna_id = app.user_id(&anna).await.as_str().to_string();
    let out = run(&app, &["user", "delete", "--email", &anna.email], None).await;
    assert!(out.status.success());
    assert_eq!(
        rows_of(&app.data_dir().join("cashkeeper.db"), &anna_id),
        vec![]
    );
    assert!(!app.data_dir().join("documents").join(&anna_id).exists());
    assert!(app.login(&ben.email, &ben.password).await.ok());

    // Unknown emails are named, for every command.
    for cmd in ["disable", "enable", "delete"] {
        let out = run(&app, &["user", cmd, "--email", "nobody@example.org"], None).await;
        assert_eq!(out.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--email: no user nobody@example.org")
        );
    }
}
