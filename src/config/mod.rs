//! Configuration, read once from the environment and checked as a whole
//! before any port is bound. Every variable is optional; a bad value stops
//! start-up with one line naming the variable and the accepted form.

mod parse;
#[cfg(test)]
mod tests;

use parse::{
    parse_ai, parse_base_url, parse_bool, parse_fints_product_id, parse_http_url, parse_oidc,
    parse_vapid,
};
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

/// A value that must never reach a log: `Debug` prints asterisks.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// Who may create an account through `register`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// Anyone who reaches the service.
    Open,
    /// Nobody; accounts come from `cashkeeper user create`.
    Closed,
    /// Only while there is no user yet: the owner signs up, then it closes.
    FirstUser,
}

impl Registration {
    /// Whether a new account may be made now. `users` counts the accounts
    /// there are; it is asked only under `first-user`.
    pub fn admits(self, users: impl FnOnce() -> crate::Result<i64>) -> crate::Result<bool> {
        Ok(match self {
            Registration::Open => true,
            Registration::Closed => false,
            Registration::FirstUser => users()? == 0,
        })
    }
}

/// A five-field cron expression (UTC) for the bundled scheduler, or `off`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    Off,
    Cron(String),
}

impl Schedule {
    fn parse(var: &str, value: &str) -> Result<Schedule, ConfigError> {
        let value = value.trim();
        if value.eq_ignore_ascii_case("off") {
            return Ok(Schedule::Off);
        }
        let parser = croner::parser::CronParser::builder()
            .seconds(croner::parser::Seconds::Disallowed)
            .build();
        match parser.parse(value) {
            Ok(_) => Ok(Schedule::Cron(value.to_string())),
            Err(e) => Err(ConfigError::new(
                var,
                "a five-field cron expression in UTC such as \"0 8 * * *\", or off",
                value,
                Some(e.to_string()),
            )),
        }
    }
}

/// Web-push keys; present only when all three variables are set.
#[derive(Clone, Debug)]
pub struct Vapid {
    pub public_key: String,
    pub private_key: Secret,
    pub subject: String,
}

impl Vapid {
    /// A new P-256 key pair: the public key as base64url of the 65-byte
    /// uncompressed point, the private key as base64url of the 32-byte scalar.
    pub fn generate() -> (String, String) {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        use p256::elliptic_curve::sec1::ToEncodedPoint;
        let secret = loop {
            // Almost every 32-byte string is a valid scalar; retry the rest.
            if let Ok(k) = p256::SecretKey::from_slice(&rand::random::<[u8; 32]>()) {
                break k;
            }
        };
        let public = secret.public_key().to_encoded_point(false);
        (
            URL_SAFE_NO_PAD.encode(public.as_bytes()),
            URL_SAFE_NO_PAD.encode(secret.to_bytes()),
        )
    }
}

/// The OpenAI-compatible provider behind chat, receipt scan and AI
/// reconciliation (`docs/ai.md`). AI is on only when `api_key` is set.
#[derive(Clone, Debug)]
pub struct Ai {
    /// `AI_API_KEY`: sent as `Authorization: Bearer …`; any value for a
    /// local server that needs none.
    pub api_key: Option<Secret>,
    /// `AI_BASE_URL`: the API root that `/chat/completions` is appended to,
    /// without a trailing slash.
    pub base_url: String,
    /// `AI_MODEL`: the model of chat and text tasks.
    pub model: String,
    /// `AI_VISION_MODEL`: the model that reads receipt images.
    pub vision_model: String,
    /// `AI_TIMEOUT_SECONDS`: how long one answer may take (without
    /// streaming: the whole request; streaming: the silence between two
    /// pieces).
    pub timeout: std::time::Duration,
}

/// Single sign-on through an OpenID provider (`docs/sign-in.md`); present
/// only when `CASHKEEPER_OIDC_ISSUER` is set.
#[derive(Clone, Debug)]
pub struct Oidc {
    /// `CASHKEEPER_OIDC_ISSUER`: exactly as the provider writes its `issuer`
    /// (a trailing slash matters).
    pub issuer: String,
    /// `CASHKEEPER_OIDC_CLIENT_ID`.
    pub client_id: String,
    /// `CASHKEEPER_OIDC_CLIENT_SECRET`; unset for a public client (PKCE only).
    pub client_secret: Option<Secret>,
    /// `CASHKEEPER_OIDC_BUTTON_LABEL`: the sign-in button's text; `None`
    /// shows the localized "Sign in with single sign-on".
    pub button_label: Option<String>,
    /// `CASHKEEPER_OIDC_ONLY`: no password sign-in at all.
    pub only: bool,
}

impl Oidc {
    /// The sign-in button's text: the configured label, else `default`
    /// (the page's own words).
    pub fn label<'a>(&'a self, default: &'a str) -> &'a str {
        self.button_label.as_deref().unwrap_or(default)
    }

    /// Whether the issuer is plain http to another machine than this one
    /// (the client secret and codes would cross the network unencrypted).
    pub fn crosses_network_unencrypted(&self) -> bool {
        use openidconnect::url::{Host, Url};
        Url::parse(&self.issuer).is_ok_and(|u| {
            u.scheme() == "http"
                && !match u.host() {
                    Some(Host::Domain(d)) => d == "localhost",
                    Some(Host::Ipv4(ip)) => ip.is_loopback(),
                    Some(Host::Ipv6(ip)) => ip.is_loopback(),
                    None => false,
                }
        })
    }
}

#[derive(Clone, Debug)]
pub struct Config {
    /// `CASHKEEPER_DATA_DIR`: database file and stored documents.
    pub data_dir: PathBuf,
    /// `CASHKEEPER_BIND`: listen address.
    pub bind: SocketAddr,
    /// `CASHKEEPER_BASE_URL`: public origin (no trailing slash) for links,
    /// the cookie's `Secure` flag and the Origin check of actions.
    pub base_url: String,
    /// `CASHKEEPER_REGISTRATION`.
    pub registration: Registration,
    /// `CRON_SECRET`: bearer secret of `/api/cron/*`.
    pub cron_secret: Option<Secret>,
    /// `NOTIFICATION_SCHEDULE`.
    pub notification_schedule: Schedule,
    /// `INSIGHTS_SCHEDULE`.
    pub insights_schedule: Schedule,
    /// `CASHKEEPER_BACKUP_SCHEDULE`: backups into `<data dir>/backups/`.
    pub backup_schedule: Schedule,
    /// `CASHKEEPER_BACKUP_KEEP`: how many scheduled backups are kept.
    pub backup_keep: usize,
    /// `VAPID_PUBLIC_KEY`, `VAPID_PRIVATE_KEY`, `VAPID_SUBJECT`.
    pub vapid: Option<Vapid>,
    /// `CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP`.
    pub push_allow_loopback_http: bool,
    /// `CASHKEEPER_FINTS_PRODUCT_ID`: the product registration number banks
    /// require in the dialog's start (`docs/bank-sync.md`); unset, connecting
    /// to a bank is refused.
    pub fints_product_id: Option<String>,
    /// `CASHKEEPER_BANK_SYNC_SCHEDULE`: the scheduled bank sync.
    pub bank_sync_schedule: Schedule,
    /// `CASHKEEPER_FINTS_ALLOW_LOCAL`: a bank address may also be plain
    /// `http://` on a loopback or private address (tests, local mock banks).
    pub fints_allow_local: bool,
    /// `CASHKEEPER_API_RATE_LIMIT`: requests per token per minute on `/api/v1`.
    pub api_rate_limit: u32,
    /// `CASHKEEPER_SIGNIN_LIMIT`: failed sign-ins per 15 minutes per client
    /// address; 0 turns the per-client limit off.
    pub signin_limit: u32,
    /// `CASHKEEPER_REGISTRATION_LIMIT`: new accounts per minute per client
    /// address; the whole service takes at most ten times that per minute.
    /// 0 turns both limits off.
    pub registration_limit: u32,
    /// `CASHKEEPER_DOCUMENT_QUOTA_MB`: the most a user's documents may take
    /// together, in bytes (the variable is in MiB; default 500).
    pub document_quota: u64,
    /// `CASHKEEPER_TRUSTED_PROXY`: the reverse proxies whose `X-Forwarded-For`
    /// names the client; empty: the peer address is the client.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Whether `CASHKEEPER_BASE_URL` was set (otherwise `base_url` is derived
    /// from the bind address, and the Origin check also accepts the service
    /// reached by IP address or as `localhost`).
    pub base_url_set: bool,
    /// `AI_API_KEY`, `AI_BASE_URL`, `AI_MODEL`.
    pub ai: Ai,
    /// `CASHKEEPER_OIDC_*`: single sign-on, when configured.
    pub oidc: Option<Oidc>,
    /// `SMTP_URL`: password-reset mail; unset writes the link to the log.
    pub smtp_url: Option<Secret>,
    /// `MAIL_FROM`: sender of password-reset mail.
    pub mail_from: String,
    /// `CASHKEEPER_RATES_REFRESH`: fetch the ECB reference rates daily.
    pub rates_refresh: bool,
    /// `CASHKEEPER_RATES_URL`: the ECB daily feed, or a mirror of it.
    pub rates_url: String,
    /// A request head must arrive within this time of its first byte (30 s).
    pub header_read_timeout: std::time::Duration,
    /// A kept-alive connection waiting longer for its next request is
    /// closed (75 s: longer than the 60 s that reverse proxies commonly keep
    /// idle upstream connections, so the proxy closes them first).
    pub idle_timeout: std::time::Duration,
    /// A request body must arrive within this time of the request head
    /// (30 s), extended by a second for every [`Config::body_min_rate`]
    /// bytes that arrived, so a slow client cannot hold a connection by
    /// trickling its body while a real upload on a slow line still finishes.
    pub body_read_timeout: std::time::Duration,
    /// Bytes per second a body that takes longer than
    /// [`Config::body_read_timeout`] must keep up on average (32 KiB/s).
    pub body_min_rate: u64,
    /// `CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT`: open connections one client
    /// address may hold at once (default 128, 0 for no limit); the reverse
    /// proxies of `CASHKEEPER_TRUSTED_PROXY` are not limited.
    pub max_connections_per_client: usize,
    /// Test builds only: host names the push checks resolve to these
    /// addresses without asking DNS, which tests do not have. Never read
    /// from the environment.
    pub push_resolve: Vec<(String, std::net::IpAddr)>,
    /// Test builds only: mounts routes that panic on purpose, to prove a panic
    /// becomes a 500 and not a dropped connection. Never read from the environment.
    pub panic_routes: bool,
    /// Test builds only: how long a read may run instead of the store's
    /// budget of 10 s (`None`), to prove a read past it is answered busy.
    /// Never read from the environment.
    pub read_budget: Option<std::time::Duration>,
    /// How long one request to a bank may take (30 s); tests shorten it to
    /// prove a bank that never answers is a timeout. Never read from the
    /// environment.
    pub fints_timeout: std::time::Duration,
}

/// A configuration error: one line naming the variable and the accepted form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl ConfigError {
    pub fn new(var: &str, expected: &str, got: &str, detail: Option<String>) -> Self {
        let mut msg = format!("{var}: expected {expected}, got {got:?}");
        if let Some(d) = detail {
            msg.push_str(&format!(" ({d})"));
        }
        ConfigError(msg)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads configuration through `get`, so tests can pass a map.
    /// Empty values count as unset.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let get = |k: &str| get(k).filter(|v| !v.trim().is_empty());

        let data_dir = PathBuf::from(get("CASHKEEPER_DATA_DIR").unwrap_or_else(|| "./data".into()));

        let bind_raw = get("CASHKEEPER_BIND").unwrap_or_else(|| "127.0.0.1:3000".into());
        let bind: SocketAddr = bind_raw.trim().parse().map_err(|_| {
            ConfigError::new(
                "CASHKEEPER_BIND",
                "an address and port such as 127.0.0.1:3000 or [::]:3000",
                &bind_raw,
                None,
            )
        })?;

        let base_url_set = get("CASHKEEPER_BASE_URL").is_some();
        let base_url = match get("CASHKEEPER_BASE_URL") {
            None => format!("http://{bind}"),
            Some(raw) => parse_base_url(&raw)?,
        };

        let registration = match get("CASHKEEPER_REGISTRATION").as_deref().map(str::trim) {
            None | Some("open") => Registration::Open,
            Some("closed") => Registration::Closed,
            Some("first-user") => Registration::FirstUser,
            Some(other) => {
                return Err(ConfigError::new(
                    "CASHKEEPER_REGISTRATION",
                    "open, closed or first-user",
                    other,
                    None,
                ))
            }
        };

        let notification_schedule = Schedule::parse(
            "NOTIFICATION_SCHEDULE",
            &get("NOTIFICATION_SCHEDULE").unwrap_or_else(|| "0 8 * * *".into()),
        )?;
        let insights_schedule = Schedule::parse(
            "INSIGHTS_SCHEDULE",
            &get("INSIGHTS_SCHEDULE").unwrap_or_else(|| "0 6 * * *".into()),
        )?;

        let backup_schedule = Schedule::parse(
            "CASHKEEPER_BACKUP_SCHEDULE",
            &get("CASHKEEPER_BACKUP_SCHEDULE").unwrap_or_else(|| "off".into()),
        )?;
        let backup_keep = match get("CASHKEEPER_BACKUP_KEEP") {
            None => 7,
            Some(raw) => raw
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=1000).contains(n))
                .ok_or_else(|| {
                    ConfigError::new(
                        "CASHKEEPER_BACKUP_KEEP",
                        "how many backups to keep, from 1 to 1000",
                        &raw,
                        None,
                    )
                })?,
        };

        let vapid = match (
            get("VAPID_PUBLIC_KEY"),
            get("VAPID_PRIVATE_KEY"),
            get("VAPID_SUBJECT"),
        ) {
            (Some(public_key), Some(private_key), Some(subject)) => Some(parse_vapid(
                public_key.trim(),
                private_key.trim(),
                subject.trim(),
            )?),
            _ => None,
        };

        let push_allow_loopback_http = parse_bool(
            "CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP",
            get("CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP"),
            false,
        )?;
        let fints_product_id = get("CASHKEEPER_FINTS_PRODUCT_ID")
            .map(|raw| parse_fints_product_id(&raw))
            .transpose()?;
        let bank_sync_schedule = Schedule::parse(
            "CASHKEEPER_BANK_SYNC_SCHEDULE",
            &get("CASHKEEPER_BANK_SYNC_SCHEDULE").unwrap_or_else(|| "20 5 * * *".into()),
        )?;
        let fints_allow_local = parse_bool(
            "CASHKEEPER_FINTS_ALLOW_LOCAL",
            get("CASHKEEPER_FINTS_ALLOW_LOCAL"),
            false,
        )?;
        let rates_refresh = parse_bool(
            "CASHKEEPER_RATES_REFRESH",
            get("CASHKEEPER_RATES_REFRESH"),
            true,
        )?;

        let rates_url = match get("CASHKEEPER_RATES_URL") {
            None => "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml".to_string(),
            Some(raw) => parse_http_url("CASHKEEPER_RATES_URL", &raw)?,
        };

        let api_rate_limit = match get("CASHKEEPER_API_RATE_LIMIT") {
            None => 120,
            Some(raw) => match raw.trim().parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(ConfigError::new(
                        "CASHKEEPER_API_RATE_LIMIT",
                        "a whole number of requests per minute, at least 1",
                        &raw,
                        None,
                    ))
                }
            },
        };

        let signin_limit = match get("CASHKEEPER_SIGNIN_LIMIT") {
            None => 50,
            Some(raw) => raw.trim().parse::<u32>().map_err(|_| {
                ConfigError::new(
                    "CASHKEEPER_SIGNIN_LIMIT",
                    "a whole number of failed sign-ins per 15 minutes per client, or 0 for no limit",
                    &raw,
                    None,
                )
            })?,
        };

        let document_quota = match get("CASHKEEPER_DOCUMENT_QUOTA_MB") {
            None => 500,
            Some(raw) => raw
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|mb| (1..=1_048_576).contains(mb))
                .ok_or_else(|| {
                    ConfigError::new(
                        "CASHKEEPER_DOCUMENT_QUOTA_MB",
                        "a whole number of megabytes per user, from 1 to 1048576",
                        &raw,
                        None,
                    )
                })?,
        } * 1024
            * 1024;

        let registration_limit = match get("CASHKEEPER_REGISTRATION_LIMIT") {
            None => 5,
            Some(raw) => raw.trim().parse::<u32>().map_err(|_| {
                ConfigError::new(
                    "CASHKEEPER_REGISTRATION_LIMIT",
                    "a whole number of new accounts per minute per client, or 0 for no limit",
                    &raw,
                    None,
                )
            })?,
        };

        let max_connections_per_client = match get("CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT") {
            None => 128,
            Some(raw) => raw.trim().parse::<usize>().map_err(|_| {
                ConfigError::new(
                    "CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT",
                    "a whole number of open connections per client address, or 0 for no limit",
                    &raw,
                    None,
                )
            })?,
        };

        let trusted_proxies = match get("CASHKEEPER_TRUSTED_PROXY") {
            None => Vec::new(),
            Some(raw) => raw
                .split(',')
                .map(|a| a.trim().parse::<std::net::IpAddr>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| {
                    ConfigError::new(
                        "CASHKEEPER_TRUSTED_PROXY",
                        "the IP address of the reverse proxy, such as 127.0.0.1 or 172.18.0.2 \
                         (several separated by commas)",
                        &raw,
                        None,
                    )
                })?,
        };

        let ai = parse_ai(&get)?;
        let oidc = parse_oidc(&get)?;

        let smtp_url = match get("SMTP_URL") {
            None => None,
            Some(raw) => {
                let t = raw.trim();
                if !(t.starts_with("smtp://") || t.starts_with("smtps://")) {
                    // The URL may hold a password: show only its scheme.
                    let shown = t.split("://").next().unwrap_or("");
                    return Err(ConfigError::new(
                        "SMTP_URL",
                        "smtp://[user:password@]host[:port] or smtps://…",
                        &format!("{shown}://…"),
                        None,
                    ));
                }
                Some(Secret::new(t))
            }
        };
        let mail_from =
            get("MAIL_FROM").unwrap_or_else(|| "cashkeeper <cashkeeper@localhost>".into());
        if mail_from.parse::<lettre::message::Mailbox>().is_err() {
            return Err(ConfigError::new(
                "MAIL_FROM",
                "a mail address such as \"cashkeeper <budget@example.org>\"",
                &mail_from,
                None,
            ));
        }

        Ok(Config {
            data_dir,
            bind,
            base_url,
            registration,
            cron_secret: get("CRON_SECRET").map(Secret::new),
            notification_schedule,
            insights_schedule,
            backup_schedule,
            backup_keep,
            vapid,
            push_allow_loopback_http,
            fints_product_id,
            bank_sync_schedule,
            fints_allow_local,
            api_rate_limit,
            signin_limit,
            registration_limit,
            document_quota,
            trusted_proxies,
            base_url_set,
            ai,
            oidc,
            smtp_url,
            mail_from,
            rates_refresh,
            rates_url,
            header_read_timeout: std::time::Duration::from_secs(30),
            idle_timeout: std::time::Duration::from_secs(75),
            body_read_timeout: std::time::Duration::from_secs(30),
            body_min_rate: 32 * 1024,
            max_connections_per_client,
            push_resolve: Vec::new(),
            panic_routes: false,
            read_budget: None,
            fints_timeout: crate::services::fints::DEFAULT_TIMEOUT,
        })
    }

    /// A configuration for tests and tools: defaults, the given data directory,
    /// no network refresh, no scheduled jobs.
    pub fn for_data_dir(data_dir: impl Into<PathBuf>) -> Config {
        let mut c = Config::from_lookup(|_| None).expect("defaults are valid");
        c.data_dir = data_dir.into();
        c.rates_refresh = false;
        c.notification_schedule = Schedule::Off;
        c.insights_schedule = Schedule::Off;
        c.backup_schedule = Schedule::Off;
        c.bank_sync_schedule = Schedule::Off;
        c
    }

    /// `CASHKEEPER_OIDC_ONLY=true`: no password sign-in, sign-up or reset.
    pub fn oidc_only(&self) -> bool {
        self.oidc.as_ref().is_some_and(|o| o.only)
    }

    /// Whether the session cookie gets `Secure`.
    pub fn secure_cookies(&self) -> bool {
        self.base_url.starts_with("https://")
    }

    /// Creates the data directory if needed and proves it is writable, so a
    /// read-only volume is reported at start-up and not at the first write.
    pub fn check_data_dir(&self) -> Result<(), ConfigError> {
        let fail = |e: std::io::Error| {
            ConfigError(format!(
                "CASHKEEPER_DATA_DIR: expected a writable directory, got {:?} ({e})",
                self.data_dir.display().to_string()
            ))
        };
        std::fs::create_dir_all(&self.data_dir).map_err(fail)?;
        // One probe per process and call: several commands started at once
        // (a `migrate` beside a `backup`) must not remove each other's.
        let probe = self.data_dir.join(format!(
            ".write-test-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::write(&probe, b"ok").map_err(fail)?;
        std::fs::remove_file(&probe).map_err(fail)?;
        Ok(())
    }
}
