//! The real executable: first run, bad configuration, migrate, backup,
//! user create, vapid-keys, --version.

use crate::support::service::address;
use crate::support::*;
use serde_json::json;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

pub(crate) fn cashkeeper() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cashkeeper"));
    c.env_clear().env("RUST_LOG", "warn");
    c
}

#[test]
fn version_prints_the_same_string_as_health() {
    let out = cashkeeper().arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        cashkeeper::VERSION
    );
}

#[test]
fn help_lists_the_commands() {
    let out = cashkeeper().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for cmd in [
        "serve",
        "migrate",
        "user",
        "backup",
        "healthcheck",
        "vapid-keys",
    ] {
        assert!(text.contains(cmd), "{cmd} missing in {text}");
    }
    let out = cashkeeper()
        .args(["user", "create", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("--password-stdin"));
}

#[test]
fn bad_configuration_stops_start_up_with_one_line_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "CASHKEEPER_BIND",
            "not-an-address".into(),
            "an address and port",
        ),
        (
            "CASHKEEPER_REGISTRATION",
            "yes".into(),
            "open, closed or first-user",
        ),
        (
            "NOTIFICATION_SCHEDULE",
            "every morning".into(),
            "five-field cron",
        ),
        ("INSIGHTS_SCHEDULE", "61 6 * * *".into(), "five-field cron"),
        (
            "CASHKEEPER_DATA_DIR",
            file.join("sub").display().to_string(),
            "writable directory",
        ),
    ];
    for (var, value, expected) in cases {
        let out = cashkeeper()
            .current_dir(dir.path())
            .env(var, &value)
            .env(
                "CASHKEEPER_BIND",
                if var == "CASHKEEPER_BIND" {
                    value.as_str()
                } else {
                    "127.0.0.1:0"
                },
            )
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{var}={value} should fail");
        let stderr = String::from_utf8(out.stderr).unwrap();
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{var}: one line, got {stderr:?}");
        assert!(
            lines[0].contains(var) && lines[0].contains(expected),
            "{var}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(out.stdout.is_empty(), "{var}: nothing served");
    }
}

#[test]
fn serve_with_no_configuration_prints_its_address_keeps_data_in_dot_data_and_stops_on_sigterm() {
    // Port 0 instead of 3000 so the test never collides; everything else is default.
    let (mut child, addr, cwd) = serve_binary(|_| {});
    let body: serde_json::Value =
        get_json(&format!("{addr}/api/v1/health")).expect("health answers");
    assert_eq!(body["status"], "ok");
    assert!(cwd.path().join("data/cashkeeper.db").exists());

    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    let status = wait_timeout(&mut child, Duration::from_secs(10)).expect("exits after SIGTERM");
    assert!(status.success(), "graceful exit, got {status:?}");
    // Closed cleanly: the write-ahead log was folded into the database.
    let wal = cwd.path().join("data/cashkeeper.db-wal");
    assert!(!wal.exists() || std::fs::metadata(&wal).unwrap().len() == 0);
}

/// Starts `serve` on a free loopback port in a fresh data directory, with
/// `setup` applied to the command; answers the child, its address
/// (`http://…`) and the directory.
pub(crate) fn serve_binary(
    setup: impl FnOnce(&mut Command),
) -> (std::process::Child, String, tempfile::TempDir) {
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = cashkeeper();
    cmd.current_dir(cwd.path())
        .env("CASHKEEPER_BIND", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    setup(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    let addr = address(&mut child);
    (child, addr, cwd)
}

/// Sends SIGTERM to `child`.
pub(crate) fn terminate(child: &std::process::Child) {
    // SAFETY: kill(2) with plain integers; the child is not reaped yet.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
}

#[test]
fn sigterm_stops_the_server_even_while_a_request_is_still_running() {
    let (mut child, addr, _dir) = serve_binary(|_| {});
    let port = addr.rsplit(':').next().unwrap();
    // A request whose body never comes: the server would wait for it up to
    // the body timeout (30 s, `docs/operations.md`).
    let mut held = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    held.write_all(
        b"POST /actions/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100000\r\n\r\n{",
    )
    .unwrap();
    assert!(get_json(&format!("{addr}/api/v1/health")).is_some());
    terminate(&child);
    // Generous beside the 10 s the shutdown takes at most, short of the
    // body timeout it used to wait for.
    let status = wait_timeout(&mut child, Duration::from_secs(20))
        .expect("exits after SIGTERM while a request still runs");
    assert!(status.success(), "a clean exit, got {status:?}");
    drop(held);
}

/// Waits for `child` to exit, for at most `limit`; killed after that.
pub(crate) fn wait_timeout(
    child: &mut std::process::Child,
    limit: Duration,
) -> Option<std::process::ExitStatus> {
    let pid = child.id() as libc::id_t;
    let (tell, told) = std::sync::mpsc::channel();
    // Told when the child has exited, without reaping it: until
    // `child.wait()` below reaps it, its pid stays its own.
    std::thread::spawn(move || {
        // SAFETY: waitid(2) with plain integers and a zeroed siginfo of
        // this thread's own.
        unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT);
        }
        let _ = tell.send(());
    });
    let exited = told.recv_timeout(limit).is_ok();
    if !exited {
        // SAFETY: kill(2) with plain integers; the child is not reaped yet.
        unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    }
    let status = child.wait().ok();
    status.filter(|_| exited)
}

/// A blocking GET of JSON for the tests that run the binary (which
/// listens before it says where).
pub(crate) fn get_json(url: &str) -> Option<serde_json::Value> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    rt.block_on(async { reqwest::get(url).await.ok()?.json().await.ok() })
}

#[tokio::test]
async fn data_survives_a_restart_and_migrations_are_not_applied_twice() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    app.action(
        "updateSettings",
        json!({"name": "Kept"}),
        Some(&user.cookie),
    )
    .await
    .data();
    let dir = app.stop().await;

    let out = cashkeeper()
        .arg("migrate")
        .env("CASHKEEPER_DATA_DIR", dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "migrations applied: 0"
    );

    let app = spawn_app_in(dir, |_| {}).await;
    let again = app.login(&user.email, &user.password).await;
    assert_eq!(again.data()["name"], "Kept");
}

#[test]
fn logs_to_a_pipe_or_file_are_plain_text() {
    // What `docker logs` and the journal keep: no colour escape codes.
    let dir = tempfile::tempdir().unwrap();
    let out = cashkeeper()
        .arg("migrate")
        .env("CASHKEEPER_DATA_DIR", dir.path())
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("INFO"),
        "the migration is logged: {stderr:?}"
    );
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

#[tokio::test]
async fn migrate_creates_a_fresh_database() {
    let dir = tempfile::tempdir().unwrap();
    let out = cashkeeper()
        .arg("migrate")
        .env("CASHKEEPER_DATA_DIR", dir.path().join("nested"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
        .unwrap()
        .count();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        format!("migrations applied: {files}")
    );
    let c = rusqlite::Connection::open(dir.path().join("nested/cashkeeper.db")).unwrap();
    let tables: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN \
             ('users','sessions','password_resets','api_tokens','accounts','categories','expenses',\
              'daily_expenses','incomes','transfers','documents','reserve_pots','insights',\
              'merchant_categories','conversations','conversation_messages','import_batches',\
              'import_rows','push_subscriptions','exchange_rates')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 20);
}

#[tokio::test]
async fn backup_while_serving_gives_a_copy_that_opens_and_holds_the_data() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let doc = app
        .action(
            "uploadDocument",
            json!({"fileName": "Vertrag.pdf", "dataBase64": "JVBERi0xLjcKJeLjz9M="}),
            Some(&user.cookie),
        )
        .await;
    let doc_id = doc.data()["id"].as_str().unwrap().to_string();
    // Keep writing while the backup runs.
    let writer = {
        let (base, client) = (app.base.clone(), app.client.clone());
        tokio::spawn(async move {
            for _ in 0..15 {
                let _ = client
                    .post(format!("{base}/actions/register"))
                    .header("content-type", "application/json")
                    .body(json!({"email": unique_email(), "password": "correct horse"}).to_string())
                    .send()
                    .await;
            }
        })
    };
    let target = tempfile::tempdir().unwrap();
    // Into a folder that does not exist yet: it is made.
    let file = target.path().join("nested/copy.db");
    let data_dir = app.data_dir().to_path_buf();
    let file2 = file.clone();
    let out = tokio::task::spawn_blocking(move || {
        cashkeeper()
            .args(["backup", file2.to_str().unwrap()])
            .env("CASHKEEPER_DATA_DIR", data_dir)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    writer.await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let copy = rusqlite::Connection::open(&file).unwrap();
    let check: String = copy
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let found: i64 = copy
        .query_row(
            "SELECT COUNT(*) FROM users WHERE email = ?1",
            [&user.email],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(found, 1);
    let mode: String = copy
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete", "the copy is one self-contained file");

    // The documents are copied beside it, in the data directory's layout.
    let user_id: String = copy
        .query_row(
            "SELECT user_id FROM documents WHERE id = ?1",
            [&doc_id],
            |r| r.get(0),
        )
        .unwrap();
    let copied = target
        .path()
        .join("nested/copy.documents")
        .join(user_id)
        .join(&doc_id);
    assert_eq!(
        std::fs::read(copied).unwrap(),
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 documents copied"));
}

#[tokio::test]
async fn user_create_reads_the_password_from_stdin_even_with_registration_closed() {
    let app = spawn_app_with(|c| c.registration = cashkeeper::config::Registration::Closed).await;
    let data_dir = app.data_dir().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cashkeeper()
            .args([
                "user",
                "create",
                "--email",
                "Owner@Example.org",
                "--password-stdin",
                "--name",
                "Owner",
            ])
            .env("CASHKEEPER_DATA_DIR", data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"owner password\n")
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reply = app.login("owner@example.org", "owner password").await;
    assert_eq!(reply.data()["name"], "Owner");
}

#[test]
fn user_create_refuses_a_short_password_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = cashkeeper()
        .args([
            "user",
            "create",
            "--email",
            "a@example.org",
            "--password-stdin",
        ])
        .env("CASHKEEPER_DATA_DIR", dir.path())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"short\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("password: must be at least 8 characters"));
}

#[test]
fn vapid_keys_prints_both_variables_in_their_formats() {
    use base64::Engine;
    let out = cashkeeper().arg("vapid-keys").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let get = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("{name} missing in {text}"))
            .to_string()
    };
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    assert_eq!(engine.decode(get("VAPID_PUBLIC_KEY")).unwrap().len(), 65);
    assert_eq!(engine.decode(get("VAPID_PRIVATE_KEY")).unwrap().len(), 32);
}

mod at_v1 {
    refinery::embed_migrations!("migrations");
}

#[tokio::test]
async fn a_database_from_the_first_version_is_migrated_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut c = rusqlite::Connection::open(dir.path().join("cashkeeper.db")).unwrap();
        at_v1::migrations::runner()
            .set_target(refinery::Target::Version(1))
            .run(&mut c)
            .unwrap();
        c.execute_batch(
            "INSERT INTO users (id, email, email_lower, name, password_hash, created_at, updated_at)
               VALUES ('u1', 'old@example.org', 'old@example.org', 'Old', 'x', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
             INSERT INTO accounts (id, user_id, name, type, currency, balance_cents, created_at, updated_at)
               VALUES ('a1', 'u1', 'Giro', 'checking', 'EUR', 100, '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
             INSERT INTO daily_expenses (id, user_id, name, amount_cents, currency, date, account_id, merchant, created_at, updated_at)
               VALUES ('d1', 'u1', 'Alte Buchung', 1234, 'EUR', '2025-02-03', 'a1', 'Flohmarkt', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');",
        )
        .unwrap();
    }
    let app = spawn_app_in(dir, |_| {}).await;
    let hits = app
        .state
        .db
        .run(|c| {
            let old = cashkeeper::store::users::find_by_email(c, "old@example.org")?.unwrap();
            cashkeeper::store::search::search(
                c,
                &old.id,
                "flohmarkt",
                (0, 10),
                chrono::Utc::now().date_naive(),
            )
        })
        .await
        .unwrap();
    assert_eq!(
        hits.len(),
        1,
        "the search index covers rows from before the migration"
    );
    assert_eq!(hits[0].id, "d1");
    let version: i64 = app
        .state
        .db
        .run(|c| {
            Ok(c.query_row(
                "SELECT MAX(version) FROM refinery_schema_history",
                [],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap();
    assert!(version >= 2);
}

#[tokio::test]
async fn demo_creates_a_living_household_and_refills_it_without_duplicates() {
    let app = spawn_app().await;
    let data_dir = app.data_dir().to_path_buf();
    let run = move || {
        let data_dir = data_dir.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let mut child = cashkeeper()
                    .args(["demo", "--email", "Demo@Example.org", "--password-stdin"])
                    .env("CASHKEEPER_DATA_DIR", data_dir)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(b"demo password\n")
                    .unwrap();
                child.wait_with_output().unwrap()
            })
            .await
            .unwrap()
        }
    };
    let out = run().await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cookie = app
        .login("demo@example.org", "demo password")
        .await
        .session_cookie()
        .unwrap();
    let count = |name: &'static str| {
        let (app, cookie) = (&app, cookie.clone());
        async move {
            // One page holds a year of one-time expenses (listDailyExpenses pages).
            app.action(name, json!({"limit": 1000}), Some(&cookie))
                .await
                .data()
                .as_array()
                .unwrap()
                .len()
        }
    };
    let (accounts, expenses, incomes) = (
        count("listAccounts").await,
        count("listExpenses").await,
        count("listIncomes").await,
    );
    assert_eq!(accounts, 4);
    assert!(expenses >= 10 && incomes >= 2);
    let daily = count("listDailyExpenses").await;
    assert!(
        daily > 200 && daily < 1000,
        "a year of everyday spending on one page, got {daily}"
    );
    let d = app.action("getDashboard", json!({}), Some(&cookie)).await;
    let d = d.data();
    assert_eq!(
        d["hasMultiCurrency"], true,
        "a USD account and a USD subscription"
    );
    assert!(d["cashflow"]["income"].as_f64().unwrap() > 3000.0);
    assert!(d["recurring"]["subscriptionsCount"].as_u64().unwrap() >= 5);
    // Running it again replaces the data instead of adding to it.
    assert!(run().await.status.success());
    assert_eq!(count("listAccounts").await, accounts);
    assert_eq!(count("listDailyExpenses").await, daily);
}

#[tokio::test]
async fn token_create_prints_a_working_token_once() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let data_dir = app.data_dir().to_path_buf();
    let email = user.email.to_uppercase();
    let out = tokio::task::spawn_blocking(move || {
        cashkeeper()
            .args([
                "token",
                "create",
                "--email",
                &email,
                "--name",
                "Home Assistant",
                "--expires-days",
                "90",
            ])
            .env("CASHKEEPER_DATA_DIR", data_dir)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(token.starts_with("csk_") && token.len() == 68, "{token}");
    let me = app
        .client
        .get(app.url("/api/v1/me"))
        .header("authorization", format!("Bearer {token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    let list = app
        .action("listApiTokens", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(list.data()[0]["name"], "Home Assistant");
    assert!(list.data()[0]["expiresAt"].is_string());
    let bad = cashkeeper()
        .args([
            "token",
            "create",
            "--email",
            "a@example.org",
            "--name",
            "x",
            "--expires-days",
            "7",
        ])
        .output()
        .unwrap();
    assert!(!bad.status.success());
}

#[tokio::test]
async fn healthcheck_exits_0_while_the_instance_answers_and_1_when_it_does_not() {
    let app = spawn_app().await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let run = |bind: String| {
        tokio::task::spawn_blocking(move || {
            cashkeeper()
                .arg("healthcheck")
                .env("CASHKEEPER_BIND", bind)
                .output()
                .unwrap()
        })
    };
    let out = run(addr.clone()).await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A wildcard bind is checked on loopback.
    let port = addr.rsplit(':').next().unwrap().to_string();
    let out = run(format!("0.0.0.0:{port}")).await.unwrap();
    assert!(out.status.success());

    let dir = app.stop().await;
    let out = run(addr).await.unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/api/v1/health"));
    drop(dir);
}
