//! Operations: private files under a loose umask, many fresh starts at
//! once, the daily housekeeping, and HSTS behind an https base URL.

use crate::support::service::Service;
use crate::support::*;
use cashkeeper::store::{self, Db};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The executable, started by a shell that set the umask to 022 first.
fn under_umask_022(data_dir: &Path) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(r#"umask 022 && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_cashkeeper"))
        .env_clear()
        .env("RUST_LOG", "warn")
        .env("CASHKEEPER_DATA_DIR", data_dir);
    c
}

/// Every file and folder under `dir` with its permission bits.
fn modes(dir: &Path, out: &mut Vec<(String, u32)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let meta = e.metadata().unwrap();
        out.push((
            e.path().display().to_string(),
            meta.permissions().mode() & 0o777,
        ));
        if meta.is_dir() {
            modes(&e.path(), out);
        }
    }
}

#[tokio::test]
async fn under_a_umask_of_022_nothing_in_the_data_directory_is_readable_by_others() {
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("data");
    let service = Service::serve(&mut under_umask_022(&data));
    let email = unique_email();
    let cookie = service.register(&email).await;
    let uploaded = service
        .action(
            "uploadDocument",
            json!({"fileName": "Vertrag.pdf", "dataBase64": "JVBERi0xLjcKJeLjz9M="}),
            Some(&cookie),
        )
        .await
        .unwrap();
    assert_eq!(uploaded["success"], true, "{uploaded}");
    for args in [
        vec![
            "backup".to_string(),
            data.join("backups/manual.db").display().to_string(),
        ],
        vec![
            "export".into(),
            "--email".into(),
            email.clone(),
            "--out".into(),
            data.join("export.zip").display().to_string(),
        ],
    ] {
        let out = under_umask_022(&data).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let mut found = vec![(
        data.display().to_string(),
        std::fs::metadata(&data).unwrap().permissions().mode() & 0o777,
    )];
    modes(&data, &mut found);
    // What the test wrote must be there: a check of nothing proves nothing.
    for name in [
        "cashkeeper.db",
        "cashkeeper.db-wal",
        "backups/manual.db",
        "backups/manual.documents",
        "export.zip",
        "documents",
    ] {
        let path = data.join(name).display().to_string();
        assert!(found.iter().any(|(p, _)| *p == path), "{name} missing");
    }
    assert!(
        found
            .iter()
            .filter(|(p, _)| p.contains("/documents/"))
            .count()
            >= 2,
        "the document and its copy: {found:?}"
    );
    let open: Vec<_> = found.iter().filter(|(_, mode)| mode & 0o077 != 0).collect();
    assert!(open.is_empty(), "readable by others: {open:?}");
    assert!(found
        .iter()
        .all(|(p, mode)| *mode == if Path::new(p).is_dir() { 0o700 } else { 0o600 }));
}

#[test]
fn many_fresh_starts_at_once_all_open_the_database() {
    let fresh: Vec<_> = (0..16).map(|_| tempfile::tempdir().unwrap()).collect();
    let shared = tempfile::tempdir().unwrap();
    let failures: Vec<String> = std::thread::scope(|s| {
        let mut opening = Vec::new();
        for dir in &fresh {
            opening.push(s.spawn(|| Db::open(dir.path()).map(drop)));
        }
        for _ in 0..16 {
            opening.push(s.spawn(|| Db::open(shared.path()).map(drop)));
        }
        opening
            .into_iter()
            .filter_map(|t| t.join().unwrap().err())
            .map(|e| e.cause().unwrap_or_else(|| e.to_string()))
            .collect()
    });
    assert!(failures.is_empty(), "{failures:#?}");

    // Processes too: eight `migrate`s of one fresh directory at once.
    let dir = tempfile::tempdir().unwrap();
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_cashkeeper"))
                .env_clear()
                .env("RUST_LOG", "warn")
                .env("CASHKEEPER_DATA_DIR", dir.path())
                .arg("migrate")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut applied = 0i64;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8_lossy(&out.stdout);
        let n: i64 = said
            .trim()
            .strip_prefix("migrations applied: ")
            .unwrap()
            .parse()
            .unwrap();
        applied += n;
    }
    let history: i64 = rusqlite::Connection::open(dir.path().join(store::DB_FILE))
        .unwrap()
        .query_row("SELECT COUNT(*) FROM refinery_schema_history", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(applied, history, "each migration applied once");
    let newest = store::backups::newest_version();
    for d in fresh
        .iter()
        .map(|d| d.path())
        .chain([shared.path(), dir.path()])
    {
        let c = rusqlite::Connection::open(d.join(store::DB_FILE)).unwrap();
        let mode: String = c
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal", "{}", d.display());
        assert_eq!(
            store::backups::check(&d.join(store::DB_FILE)).unwrap(),
            newest
        );
    }
}

async fn sessions_of(app: &TestApp, user: &TestUser) -> i64 {
    let id = app.user_id(user).await;
    app.state
        .db
        .run(move |c| {
            Ok(c.query_row(
                "SELECT COUNT(*) FROM sessions WHERE user_id = ?1",
                [&id],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn the_daily_housekeeping_deletes_expired_sessions_and_keeps_live_ones() {
    let app = spawn_app().await;
    let gone = app.new_user().await;
    assert_eq!(sessions_of(&app, &gone).await, 1);
    app.state
        .clock
        .advance(cashkeeper::auth::session::LIFETIME + chrono::Duration::days(1));
    let live = app.new_user().await;

    let removed = cashkeeper::jobs::housekeeping::run(&app.state).await;
    assert_eq!(removed, Some(1));
    assert_eq!(sessions_of(&app, &gone).await, 0);
    assert_eq!(sessions_of(&app, &live).await, 1);
}

#[tokio::test]
async fn an_https_base_url_makes_every_response_carry_hsts_and_http_does_not() {
    let https = spawn_app_with(|c| c.base_url = "https://money.example.org".into()).await;
    let http = spawn_app().await;
    for path in ["/api/v1/health", "/login", "/no-such-page", "/"] {
        let res = https.get(path, None).await;
        assert_eq!(
            res.headers()
                .get("strict-transport-security")
                .map(|v| v.to_str().unwrap()),
            Some("max-age=31536000"),
            "{path} ({})",
            res.status()
        );
        let res = http.get(path, None).await;
        assert!(
            res.headers().get("strict-transport-security").is_none(),
            "{path} over http"
        );
    }
}

#[tokio::test]
async fn sessions_that_expired_while_the_service_was_stopped_go_at_the_next_start() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let id = app.user_id(&user).await;
    app.state
        .db
        .transaction(move |tx| {
            Ok(tx.execute(
                "UPDATE sessions SET expires_at = '2020-01-01T00:00:00Z' WHERE user_id = ?1",
                [&id],
            )?)
        })
        .await
        .unwrap();
    assert_eq!(sessions_of(&app, &user).await, 1);
    let dir = app.stop().await;
    let app = spawn_app_in(dir, |_| {}).await;
    // The server accepts its first connection after the start-up work.
    assert_eq!(app.get("/api/v1/health", None).await.status(), 200);
    assert_eq!(sessions_of(&app, &user).await, 0);
}

/// The environment variable that makes [`request_log_child`] run.
const REQUEST_LOG_CHILD: &str = "CASHKEEPER_REQUEST_LOG_CHILD";

/// A failed request's one log line names its error: a refused action its
/// words, an internal error its cause (a missing table here), a refused
/// REST token its reason. Run in a child process of this test binary whose
/// only subscriber (global, so no other test's thread can hide a line)
/// writes the service's every level to stdout.
#[test]
fn the_log_line_of_a_failed_request_names_its_error() {
    let log =
        crate::support::child::log_of_child("operations::request_log_child", REQUEST_LOG_CHILD);
    let line = |path: &str| {
        log.lines()
            .find(|l| l.contains(" request ") && l.contains(&format!("path={path} ")))
            .unwrap_or_else(|| panic!("no request line for {path}:\n{log}"))
            .to_string()
    };
    let refused = line("/actions/markInsightRead");
    assert!(refused.contains("status=200"), "{refused}");
    assert!(refused.contains("error=id: "), "{refused}");
    let internal = line("/actions/listInsights");
    assert!(internal.contains("status=500"), "{internal}");
    assert!(internal.contains("no such table: insights"), "{internal}");
    let rest = line("/api/v1/me");
    assert!(rest.contains("status=401"), "{rest}");
    assert!(rest.contains("error=malformed token"), "{rest}");
}

/// The child of [`the_log_line_of_a_failed_request_names_its_error`].
#[test]
#[ignore = "run by the_log_line_of_a_failed_request_names_its_error in a child process"]
fn request_log_child() {
    if std::env::var_os(REQUEST_LOG_CHILD).is_none() {
        return;
    }
    tracing_subscriber::fmt()
        .with_env_filter("cashkeeper=debug")
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .init();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(failed_requests());
}

async fn failed_requests() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let refused = app
        .action("markInsightRead", json!({ "id": "" }), Some(&user.cookie))
        .await;
    assert!(!refused.ok(), "{:?}", refused.body);
    app.state
        .db
        .run(|c| {
            c.execute_batch("DROP TABLE insights")?;
            Ok(())
        })
        .await
        .unwrap();
    let internal = app
        .action("listInsights", json!({}), Some(&user.cookie))
        .await;
    assert_eq!(internal.status, 500, "{:?}", internal.body);
    let rest = app
        .client
        .get(app.url("/api/v1/me"))
        .header("authorization", "Bearer nonsense")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 401);
}
