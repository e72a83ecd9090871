//! One user cannot take the service from everyone else (issue 37, items 6
//! and 7): with every regular database connection held, other users stay
//! signed in and are told the service is busy (503, `Retry-After`), never
//! sent to `/login` or answered 401 or 500.

use crate::support::*;
use reqwest::StatusCode;
use serde_json::json;
use std::sync::mpsc;

/// Holds every regular database connection (the pool's 8) until dropped,
/// as 8 long exports or deep lists of one user would.
struct Held {
    release: Vec<mpsc::Sender<()>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Held {
    async fn all(app: &TestApp) -> Held {
        let (took, taken) = mpsc::channel::<()>();
        let mut release = Vec::new();
        let mut tasks = Vec::new();
        for _ in 0..8 {
            let (tx, rx) = mpsc::channel::<()>();
            let took = took.clone();
            let db = app.state.db.clone();
            release.push(tx);
            tasks.push(tokio::spawn(async move {
                let _ = db
                    .run(move |_| {
                        let _ = took.send(());
                        let _ = rx.recv();
                        Ok(())
                    })
                    .await;
            }));
        }
        let taken = tokio::task::spawn_blocking(move || {
            for _ in 0..8 {
                taken.recv().unwrap();
            }
        });
        taken.await.unwrap();
        Held { release, tasks }
    }

    async fn release(self) {
        drop(self.release);
        for t in self.tasks {
            t.await.unwrap();
        }
    }
}

/// Busy as every door answers it: 503 and `Retry-After`.
fn assert_busy(status: StatusCode, headers: &reqwest::header::HeaderMap, what: &str) {
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{what}");
    assert!(headers.contains_key("retry-after"), "{what}: Retry-After");
}

#[tokio::test]
async fn with_every_connection_held_others_stay_signed_in_and_are_told_busy() {
    let app = spawn_app().await;
    let victim = app.new_user().await;
    let token = app.token(&victim, json!(null)).await;
    let newcomer = unique_email();
    let held = Held::all(&app).await;

    let (page, action, me, api, register) = tokio::join!(
        app.get("/accounts", Some(&victim.cookie)),
        app.action("listAccounts", json!({}), Some(&victim.cookie)),
        app.api("/me", &token),
        app.api("/accounts", &token),
        app.register(&newcomer, "correct horse battery"),
    );

    // The page: not a redirect to /login, but the busy page.
    let (status, headers) = (page.status(), page.headers().clone());
    let body = page.text().await.unwrap();
    assert_busy(status, &headers, "page");
    assert!(
        body.contains("You are still signed in"),
        "the busy page says so: {body}"
    );
    // The action: the envelope's error, not 401.
    assert_busy(action.status, &action.headers, "action");
    assert!(!action.ok());
    assert!(
        action.error().unwrap_or("").contains("busy"),
        "{}",
        action.body
    );
    // The token is still recognised (its lookup has connections of its
    // own); what needs the held ones is busy, in the API's JSON error.
    assert_eq!(me.status(), StatusCode::OK);
    let (status, headers) = (api.status(), api.headers().clone());
    let body: serde_json::Value = api.json().await.unwrap();
    assert_busy(status, &headers, "api");
    assert_eq!(body["error"]["code"], "busy", "{body}");
    // Registration: busy, never 500.
    assert_busy(register.status, &register.headers, "register");
    assert!(!register.ok());

    held.release().await;
    // Still signed in, with the same cookie.
    let res = app.get("/accounts", Some(&victim.cookie)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let r = app
        .action("listAccounts", json!({}), Some(&victim.cookie))
        .await;
    assert!(r.ok(), "{}", r.body);
    assert_eq!(app.api("/me", &token).await.status(), StatusCode::OK);
}

/// Opens `n` connections from `from` to `port`, each sending a request
/// head whose body never comes; answers those that connected.
async fn hold_connections(from: &str, port: u16, n: usize) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let mut held = Vec::new();
    for _ in 0..n {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        let Ok(Ok(mut s)) = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            socket.connect(format!("127.0.0.1:{port}").parse().unwrap()),
        )
        .await
        else {
            continue;
        };
        let _ = s
            .write_all(
                b"POST /actions/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
                  Content-Length: 100000\r\n\r\n{",
            )
            .await;
        held.push(s);
    }
    held
}

/// `GET /api/v1/health` from the address `from`: its status line, or
/// `None` when no answer came within `wait`.
async fn health_from(from: &str, port: u16, wait: std::time::Duration) -> Option<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let ask = async {
        let socket = tokio::net::TcpSocket::new_v4().ok()?;
        socket.bind(format!("{from}:0").parse().ok()?).ok()?;
        let mut s = socket
            .connect(format!("127.0.0.1:{port}").parse().ok()?)
            .await
            .ok()?;
        s.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .ok()?;
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).await.ok()?;
        let reply = String::from_utf8_lossy(&reply).to_string();
        reply.lines().next().map(str::to_string)
    };
    tokio::time::timeout(wait, ask).await.ok().flatten()
}

#[tokio::test]
async fn sixteen_addresses_holding_connections_do_not_keep_health_from_answering() {
    use std::os::unix::process::CommandExt;
    // The service with a file descriptor limit of 256, hard and soft.
    let (mut child, addr, _dir) = crate::cli::serve_binary(|cmd| {
        // SAFETY: only setrlimit(2), async-signal-safe, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 256,
                    rlim_max: 256,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    });
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    // 16 addresses, 32 connections each (within the per-address cap of
    // 128): twice the descriptors the process has.
    let mut held = Vec::new();
    for i in 2..18 {
        held.extend(hold_connections(&format!("127.0.0.{i}"), port, 32).await);
    }
    let status = health_from("127.0.0.99", port, std::time::Duration::from_secs(20)).await;
    crate::cli::terminate(&child);
    let _ = crate::cli::wait_timeout(&mut child, std::time::Duration::from_secs(20));
    drop(held);
    assert_eq!(
        status.as_deref(),
        Some("HTTP/1.1 200 OK"),
        "health answers while the others hold their connections"
    );
}

#[tokio::test]
async fn a_second_export_of_the_same_user_is_refused_while_the_first_runs() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    // Held, so that the first export waits for a connection and is still
    // running when the second comes.
    let held = Held::all(&app).await;
    let export = || {
        let (client, url, cookie) = (
            app.client.clone(),
            app.url("/api/export"),
            format!("cashkeeper_session={}", user.cookie),
        );
        tokio::spawn(async move {
            let res = client
                .get(url)
                .header("cookie", cookie)
                .send()
                .await
                .unwrap();
            let status = res.status();
            let retry = res.headers().get("retry-after").cloned();
            (status, retry, res.bytes().await.unwrap())
        })
    };
    let (mut a, mut b) = (export(), export());
    let (refused, other) = tokio::select! {
        r = &mut a => (r.unwrap(), b),
        r = &mut b => (r.unwrap(), a),
    };
    let (status, retry, body) = refused;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert!(retry.is_some(), "Retry-After");
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("an export of your data is being made already"),
        "{body}"
    );
    held.release().await;
    let (status, _, zip) = other.await.unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(zip.starts_with(b"PK"), "the first export is a zip archive");
    // Done: the user may export again.
    let (status, _, _) = export().await.unwrap();
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_rollover_budget_set_from_1900_carries_from_where_the_data_starts() {
    use chrono::TimeZone;
    let app = spawn_app().await;
    app.state
        .clock
        .set(chrono::Utc.with_ymd_and_hms(2026, 3, 15, 12, 0, 0).unwrap());
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    let food = app
        .ok(&user, "createCategory", json!({"name": "Lebensmittel"}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.ok(
        &user,
        "setBudget",
        json!({"categoryId": food, "amount": "400", "rollover": true, "from": "1900-01"}),
    )
    .await;
    app.ok(
        &user,
        "createDailyExpense",
        json!({"name": "Einkauf", "amount": "100", "date": "2026-03-02", "accountId": giro, "categoryId": food}),
    )
    .await;
    let list = app
        .ok(&user, "listBudgets", json!({"month": "2026-03"}))
        .await;
    let budget = &list["budgets"][0];
    // The account and its spending start in March 2026: nothing from the
    // 1,514 months before is carried (nor walked).
    assert_eq!(budget["carried"], json!(0.0), "{budget}");
    assert_eq!(budget["available"], json!(400.0), "{budget}");
    assert_eq!(budget["remaining"], json!(300.0), "{budget}");
}

#[tokio::test]
async fn one_time_expenses_page_by_key_as_they_page_by_offset() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    // One creation time for all: the order's last key (the id) decides.
    app.many_daily_expenses(&user, &giro, "2026-03", 250, 1234)
        .await;
    let ids = |page: &serde_json::Value| -> Vec<String> {
        page.as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect()
    };
    let mut by_offset = Vec::new();
    for offset in [0, 100, 200] {
        let page = app
            .ok(
                &user,
                "listDailyExpenses",
                json!({"limit": 100, "offset": offset}),
            )
            .await;
        by_offset.extend(ids(&page));
    }
    let mut by_key: Vec<String> = Vec::new();
    // At most the pages 250 entries fill, should `after` be ignored.
    for _ in 0..3 {
        let mut input = json!({"limit": 100});
        if let Some(last) = by_key.last() {
            input["after"] = json!(last);
        }
        let page = ids(&app.ok(&user, "listDailyExpenses", input).await);
        let done = page.len() < 100;
        by_key.extend(page);
        if done {
            break;
        }
    }
    assert_eq!(by_key.len(), 250);
    assert_eq!(by_key, by_offset);
    // Another user's entry is no cursor.
    let other = app.new_user().await;
    let r = app
        .action(
            "listDailyExpenses",
            json!({"after": by_key[0]}),
            Some(&other.cookie),
        )
        .await;
    assert_eq!(r.error(), Some("after: not found"), "{}", r.body);
}

/// The names of the one-time expenses a page lists, in its order.
fn listed(page: &str) -> Vec<String> {
    page.split("<td>Einkauf ")
        .skip(1)
        .map(|rest| format!("Einkauf {}", rest.split(['<', ' ']).next().unwrap()))
        .collect()
}

#[tokio::test]
async fn a_deep_page_of_one_time_expenses_costs_what_the_first_costs() {
    let app = spawn_app().await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    // 100 pages of 50: about 180 entries on each of March's first 28 days.
    app.many_daily_expenses(&user, &giro, "2026-03", 5000, 1234)
        .await;
    let page = |n: u32| format!("/daily-expenses?month=2026-03&page={n}");
    let (first, first_cost) = app.read_steps(app.page(&user, &page(1))).await;
    let (deep, deep_cost) = app.read_steps(app.page(&user, &page(97))).await;
    eprintln!("page 1: {first_cost}k steps; page 97: {deep_cost}k steps");
    // The pages list what they listed when they were counted from the top.
    let (first, deep) = (listed(&first), listed(&deep));
    assert_eq!(first.len(), 50);
    assert_eq!(deep.len(), 50);
    let by_key = app
        .ok(
            &user,
            "listDailyExpenses",
            json!({"month": "2026-03", "limit": 1000, "offset": 4800}),
        )
        .await;
    let names: Vec<String> = by_key
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deep, names[..50], "page 97 holds entries 4801 to 4850");
    // Page 97 starts at its day, not past the 4,800 entries before it.
    assert!(
        deep_cost <= first_cost + first_cost / 4 + 2,
        "page 97 cost {deep_cost}k steps, page 1 {first_cost}k"
    );
}

/// A user whose read is past its budget (here: any read of a few thousand
/// steps) is told the service is busy, in words and with `Retry-After`,
/// not answered 500.
#[tokio::test]
async fn search_and_get_import_past_the_read_budget_are_busy_not_a_500() {
    let dir = tempfile::tempdir().unwrap();
    let app = spawn_app_in(dir, |_| {}).await;
    let user = app.new_user().await;
    let giro = app.account(&user, "Giro", "EUR").await;
    app.many_daily_expenses(&user, &giro, "2026-03", 2000, 1234)
        .await;
    let bookings: Vec<(String, String)> = (0..300)
        .map(|i| (format!("-{},50", i + 1), format!("Laden {i}")))
        .collect();
    let refs: Vec<crate::imports::Booking<'_>> = bookings
        .iter()
        .map(|(a, p)| ("2026-03-02", a.as_str(), p.as_str(), "x"))
        .collect();
    let batch = crate::imports::stage(&app, &user, &giro, &crate::imports::sparkasse(&refs)).await
        ["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Within the budget both answer.
    let hits = app.ok(&user, "search", json!({"query": "Einkauf"})).await;
    assert!(!hits.as_array().unwrap().is_empty(), "{hits}");
    app.ok(&user, "getImport", json!({"id": batch})).await;

    // The same data with a read budget of nothing.
    let dir = app.stop().await;
    let app = spawn_app_in(dir, |c| c.read_budget = Some(std::time::Duration::ZERO)).await;
    for (action, input) in [
        ("search", json!({"query": "Einkauf"})),
        ("getImport", json!({"id": batch})),
    ] {
        let r = app.action(action, input, Some(&user.cookie)).await;
        assert_eq!(
            r.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{action}: {}",
            r.body
        );
        assert_eq!(
            r.error(),
            Some("the service is busy right now; please try again in a few seconds"),
            "{action}"
        );
    }
    let page = app.get("/search?q=Einkauf", Some(&user.cookie)).await;
    assert_eq!(page.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(page.headers().contains_key("retry-after"));
}
