//! The real executable as a child process, `cashkeeper serve` on a free
//! loopback port with its own data directory, for tests that need a
//! process: one killed with SIGKILL and started again, or measured by its
//! memory (`/proc/PID/status`).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The password of every user these helpers register.
pub const PASSWORD: &str = "correct horse battery";

/// A running `cashkeeper serve` on a free loopback port.
pub struct Service {
    pub child: Child,
    pub base: String,
    pub client: reqwest::Client,
}

impl Service {
    /// The executable on `data_dir`, with `env` besides the tests' quiet
    /// settings ([`Service::serve`]) and nothing from the test's own
    /// environment.
    pub fn start(data_dir: &Path, env: &[(&str, &str)]) -> Service {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cashkeeper"));
        cmd.env_clear()
            .env("RUST_LOG", "warn")
            .env("CASHKEEPER_DATA_DIR", data_dir)
            .envs(env.iter().copied());
        Service::serve(&mut cmd)
    }

    /// Runs `cmd` (the executable, or a shell that starts it) with `serve`
    /// on a free loopback port, no exchange-rate feed and no scheduled
    /// jobs, where `cmd` does not set them already; answers once it
    /// printed its address.
    pub fn serve(cmd: &mut Command) -> Service {
        for (key, value) in [
            ("CASHKEEPER_BIND", "127.0.0.1:0"),
            ("CASHKEEPER_RATES_REFRESH", "false"),
            ("NOTIFICATION_SCHEDULE", "off"),
            ("INSIGHTS_SCHEDULE", "off"),
        ] {
            if !cmd.get_envs().any(|(k, _)| k == key) {
                cmd.env(key, value);
            }
        }
        let mut child = cmd
            .arg("serve")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting cashkeeper");
        let base = address(&mut child);
        Service {
            child,
            base,
            client: cashkeeper::outbound::http_client().build().unwrap(),
        }
    }

    pub async fn action(&self, name: &str, body: Value, cookie: Option<&str>) -> Option<Value> {
        let mut req = self
            .client
            .post(format!("{}/actions/{name}", self.base))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        let res = req.send().await.ok()?;
        let cookie = res
            .headers()
            .get("set-cookie")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .and_then(|kv| kv.strip_prefix("cashkeeper_session="))
            .map(str::to_string);
        let mut body: Value = res.json().await.ok()?;
        if let Some(c) = cookie {
            body["cookie"] = json!(c);
        }
        Some(body)
    }

    /// Registers `email` with the tests' password; the session's cookie.
    pub async fn register(&self, email: &str) -> String {
        let reply = self
            .action(
                "register",
                json!({"email": email, "password": PASSWORD}),
                None,
            )
            .await
            .expect("an answer to register");
        reply["cookie"].as_str().expect("a session").to_string()
    }

    /// Signs `email` in with the tests' password; the session's cookie.
    pub async fn login(&self, email: &str) -> String {
        let reply = self
            .action("login", json!({"email": email, "password": PASSWORD}), None)
            .await
            .expect("an answer to login");
        reply["cookie"].as_str().expect("a session").to_string()
    }

    /// A checking account "Giro" in euros with a balance of 0 for the user
    /// signed in with `cookie`; its id.
    pub async fn giro(&self, cookie: &str) -> String {
        let reply = self
            .action(
                "createAccount",
                json!({"name": "Giro", "type": "checking", "currency": "EUR", "balance": "0"}),
                Some(cookie),
            )
            .await
            .expect("an answer to createAccount");
        reply["data"]["id"]
            .as_str()
            .expect("an account")
            .to_string()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A checking account "Giro" of the user signed in with `cookie`, and `n`
/// one-time expenses in it written straight into the database of
/// `data_dir` in one transaction: "Einkauf i" of 1.00 to 50.99 € at
/// "Händler i % 700", dated `date(i)`, with `notes`.
pub async fn giro_with_expenses(
    service: &Service,
    cookie: &str,
    data_dir: &std::path::Path,
    n: u32,
    notes: &str,
    date: fn(u32) -> String,
) {
    let account = service.giro(cookie).await;
    let (db, notes) = (data_dir.join("cashkeeper.db"), notes.to_string());
    tokio::task::spawn_blocking(move || {
        let mut c = rusqlite::Connection::open(db).unwrap();
        c.busy_timeout(std::time::Duration::from_secs(30)).unwrap();
        let tx = c.transaction().unwrap();
        let user: String = tx
            .query_row(
                "SELECT user_id FROM accounts WHERE id = ?1",
                [&account],
                |r| r.get(0),
            )
            .unwrap();
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO daily_expenses (id, user_id, name, amount_cents, currency, date,
                        account_id, merchant, notes, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, 'EUR', ?5, ?6, ?7, ?8, ?9, ?9)",
                )
                .unwrap();
            for i in 0..n {
                insert
                    .execute(rusqlite::params![
                        uuid::Uuid::new_v4().to_string(),
                        user,
                        format!("Einkauf {i}"),
                        100 + i64::from(i % 5000),
                        date(i),
                        account,
                        format!("Händler {}", i % 700),
                        notes,
                        "2026-11-02T10:00:00Z",
                    ])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    })
    .await
    .unwrap();
}

/// The address (`http://…`) a `serve` child with its stdout piped prints
/// first, once it listens.
pub fn address(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut line)
        .unwrap();
    line.trim()
        .strip_prefix("cashkeeper is running at ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_string()
}

/// A value of the process's `/proc/PID/status` in MiB: `VmHWM` (its peak
/// resident memory so far) or `VmRSS` (resident now).
pub fn status_mib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc status"));
    kib / 1024
}
