//! The real executable as a child process: killed with SIGKILL in the
//! middle of a burst of writes it loses nothing it acknowledged, and a
//! flood of sign-ins does not take its memory.

use crate::support::service::{status_mib, Service};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_kill_in_the_middle_of_writes_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let service = Service::start(dir.path(), &[]);
    let cookie = service.register("crash@example.org").await;
    let account = service.giro(&cookie).await;

    let acknowledged = Arc::new(Mutex::new(Vec::<(&'static str, String)>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    // Told once a good number of writes are through.
    let enough = Arc::new(tokio::sync::Notify::new());
    let service = Arc::new(tokio::sync::Mutex::new(Some(service)));
    let (base, client) = {
        let s = service.lock().await;
        let s = s.as_ref().unwrap();
        (s.base.clone(), s.client.clone())
    };
    let mut writers = Vec::new();
    for w in 0..8 {
        let (acknowledged, stop, enough) = (acknowledged.clone(), stop.clone(), enough.clone());
        let (base, client, cookie, account) = (
            base.clone(),
            client.clone(),
            cookie.clone(),
            account.clone(),
        );
        writers.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let (name, list, body) = if n % 3 == 0 {
                    (
                        "createExpense",
                        "listExpenses",
                        json!({"name": format!("rent {w}-{n}"), "amount": "9.99", "frequency": "monthly",
                               "startDate": "2026-01-01", "accountId": account}),
                    )
                } else {
                    (
                        "createDailyExpense",
                        "listDailyExpenses",
                        json!({"name": format!("bread {w}-{n}"), "amount": "1.10", "date": "2026-11-02",
                               "accountId": account}),
                    )
                };
                let res = client
                    .post(format!("{base}/actions/{name}"))
                    .header("content-type", "application/json")
                    .header("cookie", format!("cashkeeper_session={cookie}"))
                    .body(body.to_string())
                    .send()
                    .await;
                let Ok(res) = res else { break };
                let Ok(reply) = res.json::<Value>().await else { break };
                if reply["success"] == json!(true) {
                    let id = reply["data"]["id"].as_str().unwrap().to_string();
                    let through = {
                        let mut acknowledged = acknowledged.lock().unwrap();
                        acknowledged.push((list, id));
                        acknowledged.len()
                    };
                    if through >= 300 {
                        enough.notify_one();
                    }
                }
            }
        }));
    }
    // Kill once a good number of writes are through, while the rest go on.
    enough.notified().await;
    let mut killed = service.lock().await.take().unwrap();
    killed.child.kill().unwrap(); // SIGKILL
    killed.child.wait().unwrap();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    drop(killed);
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() >= 300);

    // The file is a sound database...
    let db = rusqlite::Connection::open(dir.path().join("cashkeeper.db")).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(db);

    // ...and the restarted service has every acknowledged write.
    let service = Service::start(dir.path(), &[]);
    let cookie = service.login("crash@example.org").await;
    for list in ["listExpenses", "listDailyExpenses"] {
        // listDailyExpenses answers a page at a time: read every page.
        let mut stored = std::collections::HashSet::new();
        let mut offset = 0;
        loop {
            let page = service
                .action(
                    list,
                    json!({"limit": 1000, "offset": offset}),
                    Some(&cookie),
                )
                .await
                .unwrap();
            let rows = page["data"].as_array().unwrap();
            stored.extend(rows.iter().map(|r| r["id"].as_str().unwrap().to_string()));
            offset += rows.len();
            if list == "listExpenses" || rows.len() < 1000 {
                break;
            }
        }
        let missing: Vec<_> = acknowledged
            .iter()
            .filter(|(l, id)| *l == list && !stored.contains(id.as_str()))
            .collect();
        assert!(
            missing.is_empty(),
            "{list}: {} acknowledged writes lost",
            missing.len()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_sign_ins_does_not_take_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    // No per-client limit: every one of the hundred passwords is checked.
    let service = Arc::new(Service::start(
        dir.path(),
        &[("CASHKEEPER_SIGNIN_LIMIT", "0")],
    ));
    let logins: Vec<_> = (0..100)
        .map(|i| {
            let service = service.clone();
            tokio::spawn(async move {
                service
                    .action(
                        "login",
                        json!({"email": format!("made-up-{i}@example.org"), "password": "guess guess guess"}),
                        None,
                    )
                    .await
            })
        })
        .collect();
    for l in logins {
        let reply = l.await.unwrap().expect("an answer");
        assert_eq!(reply["error"], "invalid email or password");
    }
    let peak = status_mib(service.child.id(), "VmHWM");
    assert!(
        peak < 120,
        "peak memory {peak} MiB under 100 concurrent sign-ins"
    );
    let health = service
        .client
        .get(format!("{}/api/v1/health", service.base))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
}
