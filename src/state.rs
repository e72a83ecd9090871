//! The state every handler, job and command shares: configuration, the
//! database, the clock, the outbound services and what is kept in memory
//! (limits, caches). It holds parts of the layers below it and nothing of
//! the layers above (actions, pages, routes, jobs), which take it.

use crate::auth::login_limit::SignInGuard;
use crate::auth::rate_limit::SlidingWindow;
use crate::clock::Clock;
use crate::config::Config;
use crate::error::Result;
use crate::services::ai::AiClient;
use crate::services::mail::Mailer;
use crate::services::rates::RateStore;
use crate::store::Db;
use std::ops::Deref;
use std::sync::Arc;
use tokio::sync::Mutex;

/// Reports kept in [`Inner::report_cache`]: a dashboard is some kilobytes,
/// so this bounds the cache at a few megabytes on a small machine.
const REPORTS_KEPT: usize = 256;

/// Cheap to clone: every handler gets one.
#[derive(Clone)]
pub struct AppState(Arc<Inner>);

pub struct Inner {
    pub config: Config,
    pub db: Db,
    pub clock: Clock,
    pub mailer: Mailer,
    /// Limits of password checks, per address and per client.
    pub sign_in: SignInGuard,
    /// Rate limit and "last used" bookkeeping of API tokens.
    pub api_guard: crate::auth::api_tokens::ApiGuard,
    /// Known API tokens while the database is unchanged.
    pub token_cache: crate::auth::api_tokens::TokenCache,
    /// Computed `/api/v1` replies, by user data version.
    pub summary_cache: crate::cache::ReplyCache<crate::cache::Until<crate::cache::AnyReport>>,
    pub accounts_cache: crate::cache::ReplyCache<axum::body::Bytes>,
    /// Reports the pages show (the dashboard, the budgets), by user data
    /// version; a few hundred months of them at most.
    pub report_cache: crate::cache::ReplyCache<crate::cache::AnyReport>,
    /// One lock per recurring job.
    pub jobs: JobLocks,
    /// The current exchange-rate table (`services::rates`).
    pub rates: RateStore,
    /// Where documents' bytes live.
    pub files: crate::store::documents::Files,
    /// The AI provider; `None` when `AI_API_KEY` is unset (AI is off).
    pub ai: Option<AiClient>,
    /// Receipt scans per user in the last minute.
    pub receipt_scans: SlidingWindow,
    /// Assistant requests per user in the last minute.
    pub chat_requests: SlidingWindow,
    /// New accounts per client address, and in all (key `*`), in the last
    /// minute.
    pub registrations: SlidingWindow,
    /// Seals the two-factor secrets and started single sign-ons with the
    /// data directory's key.
    pub sealer: crate::auth::sealed::Sealer,
    /// The OpenID provider; `None` when single sign-on is not configured.
    pub oidc: Option<crate::auth::oidc::Provider>,
    /// Bank dialogs running or waiting for a TAN, by connection: memory
    /// only, so a restart leaves no connection stuck. Made and read by
    /// `app::bank` (`Live::of`), whose type this layer does not name.
    pub bank_live: std::sync::OnceLock<std::sync::Arc<dyn std::any::Any + Send + Sync>>,
}

impl Deref for AppState {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        &self.0
    }
}

impl AppState {
    /// Opens (and migrates) the database and prepares the outbound services.
    pub fn new(config: Config) -> Result<AppState> {
        AppState::with_clock(config, Clock::default())
    }

    pub fn with_clock(config: Config, clock: Clock) -> Result<AppState> {
        let mut db = Db::open(&config.data_dir)?;
        if let Some(budget) = config.read_budget {
            db = db.with_read_budget(budget);
        }
        let mailer = Mailer::from_config(&config)?;
        let rates = RateStore::load(&db)?;
        let sign_in = SignInGuard::new(config.signin_limit);
        let files = crate::store::documents::Files::new(&config.data_dir);
        files.sweep(&crate::store::open_connection(db.path())?)?;
        let ai = AiClient::from_config(&config.ai)?;
        let sealer = crate::auth::sealed::Sealer::load_or_create(&config.data_dir)?;
        let oidc =
            crate::auth::oidc::Provider::from_config(config.oidc.as_ref(), &config.base_url)?;
        Ok(AppState(Arc::new(Inner {
            config,
            db,
            clock,
            mailer,
            sign_in,
            api_guard: Default::default(),
            token_cache: Default::default(),
            summary_cache: Default::default(),
            accounts_cache: Default::default(),
            report_cache: crate::cache::ReplyCache::holding(REPORTS_KEPT),
            jobs: Default::default(),
            rates,
            files,
            ai,
            receipt_scans: Default::default(),
            chat_requests: Default::default(),
            registrations: Default::default(),
            sealer,
            oidc,
            bank_live: Default::default(),
        })))
    }
}

/// One lock per recurring job, so a job started by its cron route and by
/// the scheduler at once runs once at a time.
#[derive(Default)]
pub struct JobLocks {
    pub insights: Mutex<()>,
    pub upcoming: Mutex<()>,
    pub backup: Mutex<()>,
    pub bank_sync: Mutex<()>,
}
