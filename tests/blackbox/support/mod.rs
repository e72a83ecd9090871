//! `spawn_app()` and one helper per route, so tests read as
//! arrange / act / assert.

use cashkeeper::config::Config;
use cashkeeper::{server, AppState};
use reqwest::header::HeaderMap;
use reqwest::StatusCode;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub struct TestApp {
    pub base: String,
    pub state: AppState,
    pub client: reqwest::Client,
    dir: Option<tempfile::TempDir>,
    shutdown: Option<oneshot::Sender<()>>,
    pub server: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

/// A reply of an action: status, headers and the parsed envelope.
pub struct ActionReply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl ActionReply {
    pub fn ok(&self) -> bool {
        self.body["success"] == json!(true)
    }
    pub fn data(&self) -> &Value {
        assert!(
            self.ok(),
            "expected success, got {} {}",
            self.status,
            self.body
        );
        &self.body["data"]
    }
    pub fn error(&self) -> Option<&str> {
        self.body["error"].as_str()
    }
    /// The value of the session cookie this reply sets.
    pub fn session_cookie(&self) -> Option<String> {
        self.set_cookie()
            .and_then(|c| c.split(';').next().map(str::to_string))
            .and_then(|kv| kv.strip_prefix("cashkeeper_session=").map(str::to_string))
    }
    pub fn set_cookie(&self) -> Option<String> {
        self.headers
            .get("set-cookie")
            .map(|v| v.to_str().unwrap().to_string())
    }
}

/// A signed-in user of a test app.
pub struct TestUser {
    pub email: String,
    pub password: String,
    pub cookie: String,
    pub id: String,
}

/// Rows per transaction of [`TestApp::daily_expenses_on`].
const SEED_CHUNK: u32 = 10_000;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub fn unique_email() -> String {
    format!(
        "user{}@example.org",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    spawn_app_in(dir, tweak).await
}

/// Starts the app on a data directory that may already hold a database.
pub async fn spawn_app_in(dir: tempfile::TempDir, tweak: impl FnOnce(&mut Config)) -> TestApp {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = Config::for_data_dir(dir.path());
    config.bind = addr;
    config.base_url = format!("http://{addr}");
    config.panic_routes = true;
    // Tests sign many people up at once from one address; the tests of the
    // limit turn it on.
    config.registration_limit = 0;
    tweak(&mut config);
    let state = AppState::new(config).unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let server = tokio::spawn(server::serve(listener, state.clone(), async move {
        let _ = rx.await;
    }));
    let client = cashkeeper::outbound::http_client()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    TestApp {
        base: format!("http://{addr}"),
        state,
        client,
        dir: Some(dir),
        shutdown: Some(tx),
        server: Some(server),
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Calls an action the way the pages' script does.
    pub async fn action(&self, name: &str, body: Value, cookie: Option<&str>) -> ActionReply {
        let mut req = self
            .client
            .post(self.url(&format!("/actions/{name}")))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        self.reply(req).await
    }

    /// Sends a prepared request and parses the envelope.
    pub async fn reply(&self, req: reqwest::RequestBuilder) -> ActionReply {
        let res = req.send().await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.unwrap();
        let body =
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
        ActionReply {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> reqwest::Response {
        let mut req = self.client.get(self.url(path));
        if let Some(c) = cookie {
            req = req.header("cookie", format!("cashkeeper_session={c}"));
        }
        req.send().await.unwrap()
    }

    pub async fn register(&self, email: &str, password: &str) -> ActionReply {
        self.action(
            "register",
            json!({ "email": email, "password": password }),
            None,
        )
        .await
    }

    pub async fn login(&self, email: &str, password: &str) -> ActionReply {
        self.action(
            "login",
            json!({ "email": email, "password": password }),
            None,
        )
        .await
    }

    /// Registers a fresh user and returns it signed in.
    /// The stored id of a test user, as the store's functions take it.
    pub async fn user_id(&self, user: &TestUser) -> cashkeeper::store::users::UserId {
        let email = user.email.clone();
        self.state
            .db
            .run(move |c| cashkeeper::store::users::find_by_email(c, &email))
            .await
            .unwrap()
            .expect("the test user is stored")
            .id
    }

    pub async fn new_user(&self) -> TestUser {
        let email = unique_email();
        let password = "correct horse battery".to_string();
        let reply = self.register(&email, &password).await;
        let id = reply.data()["id"].as_str().unwrap().to_string();
        TestUser {
            cookie: reply
                .session_cookie()
                .expect("register sets the session cookie"),
            email,
            password,
            id,
        }
    }

    /// Fills `user`'s data with the demo household's year (`cashkeeper demo`).
    pub async fn demo_household(&self, user: &TestUser) {
        let (uid, now) = (self.user_id(user).await, self.state.clock.now());
        self.state
            .db
            .transaction(move |tx| {
                cashkeeper::demo::fill_household(tx, &uid, now.date_naive(), now)?;
                Ok(())
            })
            .await
            .unwrap();
    }

    /// Gives `user` `n` one-time expenses "Einkauf 0" to "Einkauf {n-1}" of
    /// `cents` cents each on `account` (EUR), spread over the days of
    /// `month` ("2026-03"), written through the store in one transaction: a
    /// long history in a moment.
    pub async fn many_daily_expenses(
        &self,
        user: &TestUser,
        account: &str,
        month: &str,
        n: u32,
        cents: i64,
    ) {
        let month = month.to_string();
        let day = move |i: u32| format!("{month}-{:02}", 1 + i % 28).parse().unwrap();
        self.daily_expenses_on(user, account, n, cents, day).await
    }

    /// Gives `user` `n` one-time expenses "Einkauf 0" to "Einkauf {n-1}" of
    /// `cents` cents each on `account` (EUR), the `i`th on `day(i)`, in
    /// transactions of [`SEED_CHUNK`] rows: each one well inside the write
    /// budget also on a busy machine, where 100,000 rows in one ran out of
    /// it.
    pub async fn daily_expenses_on(
        &self,
        user: &TestUser,
        account: &str,
        n: u32,
        cents: i64,
        day: impl Fn(u32) -> chrono::NaiveDate + Send + Sync + 'static,
    ) {
        use cashkeeper::store::daily_expenses::{DailyEntry, DailyExpense};
        let (uid, now) = (self.user_id(user).await, self.state.clock.now());
        let day = std::sync::Arc::new(day);
        for start in (0..n).step_by(SEED_CHUNK as usize) {
            let (uid, day, account) = (uid.clone(), day.clone(), account.to_string());
            self.state
                .db
                .transaction(move |tx| {
                    let now = now.to_rfc3339();
                    for i in start..n.min(start + SEED_CHUNK) {
                        let new = DailyEntry {
                            name: format!("Einkauf {i}"),
                            amount: rust_decimal::Decimal::new(cents, 2),
                            currency: "EUR".into(),
                            date: day(i),
                            account_id: account.clone(),
                            category_id: None,
                            merchant: String::new(),
                            notes: String::new(),
                        };
                        cashkeeper::store::table::insert::<DailyExpense>(tx, &uid, &new, &now)?;
                    }
                    Ok(())
                })
                .await
                .unwrap();
        }
    }

    /// `f`'s output and what the database's reads ran meanwhile, in
    /// thousands of SQLite steps (`Db::read_steps`): a cost that does not
    /// depend on the machine or its load. Nothing else may run meanwhile.
    pub async fn read_steps<T>(&self, f: impl std::future::Future<Output = T>) -> (T, u64) {
        let before = self.state.db.read_steps() / 1000;
        let out = f.await;
        (out, self.state.db.read_steps() / 1000 - before)
    }

    /// The page at `path` as `user` sees it.
    pub async fn page(&self, user: &TestUser, path: &str) -> String {
        let res = self.get(path, Some(&user.cookie)).await;
        assert_eq!(res.status(), 200, "{path}");
        res.text().await.unwrap()
    }

    /// Stops the server gracefully and waits for it.
    pub async fn stop(mut self) -> tempfile::TempDir {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(s) = self.server.take() {
            s.await.unwrap().unwrap();
        }
        self.dir.take().expect("data dir")
    }

    pub fn data_dir(&self) -> &std::path::Path {
        self.dir.as_ref().expect("data dir").path()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
