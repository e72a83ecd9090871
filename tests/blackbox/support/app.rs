//! The app under test: the real router on 127.0.0.1:0 over a fresh
//! temporary data directory, and a client that follows no redirects.
//!
//! `TEST_LOG=1 cargo test --test blackbox NAME` prints the server's log
//! (`RUST_LOG` filters it as in production), shown with a failing test's
//! output.

use cashkeeper::config::Config;
use cashkeeper::{server, AppState};
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

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    spawn_app_in(dir, tweak).await
}

/// Starts the app on a data directory that may already hold a database.
pub async fn spawn_app_in(dir: tempfile::TempDir, tweak: impl FnOnce(&mut Config)) -> TestApp {
    log_when_asked();
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

/// With `TEST_LOG` set, the server's log goes to the test's output (once
/// per process; `RUST_LOG` filters it). Without it the log goes nowhere.
fn log_when_asked() {
    if std::env::var_os("TEST_LOG").is_none() {
        return;
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,refinery_core=warn"));
    // Already set by an earlier app of this process: kept.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_test_writer()
        .with_ansi(false)
        .try_init();
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `f`'s output and what the database's reads ran meanwhile, in
    /// thousands of SQLite steps (`Db::read_steps`): a cost that does not
    /// depend on the machine or its load. Nothing else may run meanwhile.
    pub async fn read_steps<T>(&self, f: impl std::future::Future<Output = T>) -> (T, u64) {
        let before = self.state.db.read_steps() / 1000;
        let out = f.await;
        (out, self.state.db.read_steps() / 1000 - before)
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
