//! The daily refresh of the exchange rates, beside the server.

use crate::services::rates::{REFRESH_EVERY, RETRY_AFTER};
use crate::state::AppState;

/// The refresh task; dropping it stops the task, so it ends with the
/// server that started it.
pub struct RefreshLoop(tokio::task::JoinHandle<()>);

impl Drop for RefreshLoop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Starts refreshing in the background: now, then every
/// [`REFRESH_EVERY`], or after [`RETRY_AFTER`] when a refresh failed.
/// Returns at once: serving never waits for the network.
pub fn spawn_refresh_loop(state: AppState) -> RefreshLoop {
    RefreshLoop(tokio::spawn(async move {
        let client = match crate::outbound::http_client()
            .user_agent(concat!("cashkeeper/", env!("CARGO_PKG_VERSION")))
            .build()
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "no HTTP client; exchange rates will not refresh");
                return;
            }
        };
        loop {
            let wait = match state
                .rates
                .refresh(&state.db, &client, &state.config.rates_url)
                .await
            {
                Ok(()) => REFRESH_EVERY,
                Err(_) => RETRY_AFTER,
            };
            tokio::time::sleep(wait).await;
        }
    }))
}
