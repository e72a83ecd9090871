//! Serving: bind, run until SIGTERM or Ctrl-C, let in-flight requests
//! finish, close the database cleanly.

use crate::app::{router, AppState};
use crate::config::Config;
use anyhow::Context;
use std::future::Future;
use tokio::net::TcpListener;

/// Checks the configuration's side effects (data dir), opens the database,
/// binds and serves until a shutdown signal.
pub async fn run(config: Config) -> anyhow::Result<()> {
    config.check_data_dir().map_err(|e| anyhow::anyhow!(e))?;
    let state = AppState::new(config.clone()).context("opening the database")?;
    let listener = TcpListener::bind(config.bind)
        .await
        .with_context(|| format!("CASHKEEPER_BIND: cannot listen on {}", config.bind))?;
    let addr = listener.local_addr()?;
    tracing::info!(
        "cashkeeper {} listening on http://{addr} (data in {})",
        crate::VERSION,
        config.data_dir.display()
    );
    println!("cashkeeper is running at http://{addr}");
    serve(listener, state, shutdown_signal()).await
}

/// Serves `state` on `listener` until `shutdown` resolves, then drains
/// in-flight requests and checkpoints the database.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let app = router(state.clone());
    // Runs beside the server, never before it; stopped before the checkpoint.
    let rates_refresh = (state.config.rates_refresh)
        .then(|| crate::services::rates::spawn_refresh_loop(state.clone()));
    let scheduler = crate::jobs::scheduler::start(state.clone()).await?;
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .context("serving")?;
    tracing::info!("shutting down: requests finished, closing the database");
    drop(rates_refresh);
    scheduler.shutdown().await;
    if let Err(e) = state.db.checkpoint() {
        e.log();
    }
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM (what `docker stop` sends).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
