//! One user cannot take the service from everyone else (issue 37, items 6
//! and 7): with every regular database connection held, other users stay
//! signed in and are told the service is busy (503, `Retry-After`), never
//! sent to `/login` or answered 401 or 500.

use crate::helpers::*;
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
