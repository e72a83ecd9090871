//! Configuration, read once from the environment and checked as a whole
//! before any port is bound. Every variable is optional; a bad value stops
//! start-up with one line naming the variable and the accepted form.

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
    /// `CASHKEEPER_API_RATE_LIMIT`: requests per token per minute on `/api/v1`.
    pub api_rate_limit: u32,
    /// `CASHKEEPER_SIGNIN_LIMIT`: failed sign-ins per 15 minutes per client
    /// address; 0 turns the per-client limit off.
    pub signin_limit: u32,
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
    /// Test builds only: mounts routes that panic on purpose, to prove a panic
    /// becomes a 500 and not a dropped connection. Never read from the environment.
    pub panic_routes: bool,
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
            api_rate_limit,
            signin_limit,
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
            panic_routes: false,
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

fn parse_bool(var: &str, raw: Option<String>, default: bool) -> Result<bool, ConfigError> {
    match raw.as_deref().map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(default),
        Some(v) if matches!(v.as_str(), "1" | "true" | "yes" | "on") => Ok(true),
        Some(v) if matches!(v.as_str(), "0" | "false" | "no" | "off") => Ok(false),
        Some(v) => Err(ConfigError::new(var, "true or false", &v, None)),
    }
}

/// The `CASHKEEPER_OIDC_*` variables: all or nothing, so a half-configured
/// single sign-on stops start-up instead of showing a button that fails.
fn parse_oidc(get: &impl Fn(&str) -> Option<String>) -> Result<Option<Oidc>, ConfigError> {
    let only = parse_bool("CASHKEEPER_OIDC_ONLY", get("CASHKEEPER_OIDC_ONLY"), false)?;
    let Some(raw) = get("CASHKEEPER_OIDC_ISSUER") else {
        for var in ["CASHKEEPER_OIDC_CLIENT_ID", "CASHKEEPER_OIDC_CLIENT_SECRET"] {
            if get(var).is_some() {
                return Err(ConfigError(format!(
                    "{var} is set but CASHKEEPER_OIDC_ISSUER is not: set the provider's \
                     issuer URL too, or unset {var}"
                )));
            }
        }
        if only {
            return Err(ConfigError(
                "CASHKEEPER_OIDC_ONLY=true needs CASHKEEPER_OIDC_ISSUER and \
                 CASHKEEPER_OIDC_CLIENT_ID: without a provider nobody could sign in"
                    .into(),
            ));
        }
        return Ok(None);
    };
    // Kept exactly as written (a trailing slash included): the provider's
    // discovery document must name the same issuer.
    let issuer = raw.trim().to_string();
    let host = issuer
        .strip_prefix("https://")
        .or_else(|| issuer.strip_prefix("http://"))
        .unwrap_or("");
    if host.is_empty() || host.starts_with('/') || issuer.contains(['?', '#', ' ']) {
        return Err(ConfigError::new(
            "CASHKEEPER_OIDC_ISSUER",
            "the provider's issuer URL such as https://auth.example.org",
            &raw,
            None,
        ));
    }
    let client_id = get("CASHKEEPER_OIDC_CLIENT_ID")
        .map(|v| v.trim().to_string())
        .ok_or_else(|| {
            ConfigError(
                "CASHKEEPER_OIDC_CLIENT_ID: expected the client id registered for cashkeeper \
                 at the provider, got nothing"
                    .into(),
            )
        })?;
    Ok(Some(Oidc {
        issuer,
        client_id,
        client_secret: get("CASHKEEPER_OIDC_CLIENT_SECRET").map(|v| Secret::new(v.trim())),
        button_label: get("CASHKEEPER_OIDC_BUTTON_LABEL").map(|v| v.trim().to_string()),
        only,
    }))
}

fn parse_http_url(var: &str, raw: &str) -> Result<String, ConfigError> {
    let t = raw.trim().trim_end_matches('/');
    let rest = t
        .strip_prefix("http://")
        .or_else(|| t.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(t.to_string()),
        _ => Err(ConfigError::new(
            var,
            "an http:// or https:// URL such as https://example.org",
            raw,
            None,
        )),
    }
}

/// The `AI_*` variables. The base URL is checked for the two mistakes
/// people make most: pasting the whole endpoint (`…/chat/completions`) and
/// giving Ollama's native address instead of its OpenAI-compatible `/v1`.
fn parse_ai(get: &impl Fn(&str) -> Option<String>) -> Result<Ai, ConfigError> {
    let api_key = match get("AI_API_KEY") {
        None => None,
        Some(raw) => {
            let key = raw.trim();
            // It goes into an HTTP header: printable ASCII without spaces.
            if !key.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(ConfigError(
                    "AI_API_KEY: expected printable characters without spaces \
                     (any value such as \"ollama\" for a local server); the value is not shown"
                        .into(),
                ));
            }
            Some(Secret::new(key))
        }
    };
    let base_url = match get("AI_BASE_URL") {
        None => "https://api.openai.com/v1".to_string(),
        Some(raw) => {
            let url = parse_http_url("AI_BASE_URL", &raw)?;
            let lower = url.to_ascii_lowercase();
            if lower.ends_with("/chat/completions") {
                return Err(ConfigError::new(
                    "AI_BASE_URL",
                    "the API's base URL without /chat/completions, such as https://api.openai.com/v1",
                    &raw,
                    None,
                ));
            }
            let authority = lower.split_once("://").map(|(_, r)| r).unwrap_or("");
            let (host, path) = authority.split_once('/').unwrap_or((authority, ""));
            if host.ends_with(":11434") && path != "v1" {
                return Err(ConfigError::new(
                    "AI_BASE_URL",
                    "Ollama's OpenAI-compatible address, which ends in /v1, such as http://localhost:11434/v1",
                    &raw,
                    None,
                ));
            }
            url
        }
    };
    let model = parse_model("AI_MODEL", get("AI_MODEL"))?.unwrap_or_else(|| "gpt-4o-mini".into());
    let vision_model =
        parse_model("AI_VISION_MODEL", get("AI_VISION_MODEL"))?.unwrap_or_else(|| model.clone());
    let timeout = match get("AI_TIMEOUT_SECONDS") {
        None => 120,
        Some(raw) => match raw.trim().parse::<u64>() {
            Ok(n) if (1..=3600).contains(&n) => n,
            _ => {
                return Err(ConfigError::new(
                    "AI_TIMEOUT_SECONDS",
                    "a whole number of seconds from 1 to 3600",
                    &raw,
                    None,
                ))
            }
        },
    };
    Ok(Ai {
        api_key,
        base_url,
        model,
        vision_model,
        timeout: std::time::Duration::from_secs(timeout),
    })
}

/// A model name as the provider spells it (`gpt-4o-mini`, `qwen2.5vl:7b`,
/// `org/model`): no spaces or control characters.
fn parse_model(var: &str, raw: Option<String>) -> Result<Option<String>, ConfigError> {
    let Some(raw) = raw else { return Ok(None) };
    let name = raw.trim();
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) || name.len() > 200 {
        return Err(ConfigError::new(
            var,
            "a model name without spaces, such as gpt-4o-mini or qwen2.5vl:7b",
            &raw,
            None,
        ));
    }
    Ok(Some(name.to_string()))
}

/// The public origin: scheme, host and optional port, without a path.
/// Checks the three VAPID values together, so a typo stops start-up instead
/// of every push service refusing the reminders later: the public key must
/// be the point of the private key (browsers subscribe with the public key,
/// push services check the signature made with the private one). The
/// private key is never echoed.
fn parse_vapid(public_key: &str, private_key: &str, subject: &str) -> Result<Vapid, ConfigError> {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::elliptic_curve::sec1::ToEncodedPoint;
    let public = URL_SAFE_NO_PAD
        .decode(public_key.trim_end_matches('='))
        .ok()
        .filter(|b| b.len() == 65 && b[0] == 0x04)
        .and_then(|b| p256::PublicKey::from_sec1_bytes(&b).ok())
        .ok_or_else(|| {
            ConfigError::new(
                "VAPID_PUBLIC_KEY",
                "base64url of a 65-byte uncompressed P-256 point (cashkeeper vapid-keys)",
                public_key,
                None,
            )
        })?;
    let secret = URL_SAFE_NO_PAD
        .decode(private_key.trim_end_matches('='))
        .ok()
        .filter(|b| b.len() == 32)
        .and_then(|b| p256::SecretKey::from_slice(&b).ok())
        .ok_or_else(|| {
            ConfigError(
                "VAPID_PRIVATE_KEY: expected base64url of a 32-byte P-256 private key \
                 (cashkeeper vapid-keys); the value is not shown"
                    .into(),
            )
        })?;
    if secret.public_key().to_encoded_point(false) != public.to_encoded_point(false) {
        return Err(ConfigError(
            "VAPID_PUBLIC_KEY: expected the public key of VAPID_PRIVATE_KEY; \
             the two come from different key pairs"
                .into(),
        ));
    }
    if !(subject.starts_with("mailto:") || subject.starts_with("https://")) {
        return Err(ConfigError::new(
            "VAPID_SUBJECT",
            "a contact for the push services, mailto:you@example.org or an https:// URL",
            subject,
            None,
        ));
    }
    Ok(Vapid {
        public_key: URL_SAFE_NO_PAD.encode(public.to_encoded_point(false).as_bytes()),
        private_key: Secret::new(URL_SAFE_NO_PAD.encode(secret.to_bytes())),
        subject: subject.to_string(),
    })
}

fn parse_base_url(raw: &str) -> Result<String, ConfigError> {
    let url = parse_http_url("CASHKEEPER_BASE_URL", raw)?;
    let after_scheme = url.split_once("://").map(|(_, r)| r).unwrap_or("");
    if after_scheme.contains('/') || after_scheme.contains('?') || after_scheme.contains('#') {
        return Err(ConfigError::new(
            "CASHKEEPER_BASE_URL",
            "an origin without a path, such as https://money.example.org",
            raw,
            None,
        ));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn with(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn single_sign_on_is_all_or_nothing_and_keeps_the_issuer_as_written() {
        assert!(with(&[]).unwrap().oidc.is_none());
        let c = with(&[
            (
                "CASHKEEPER_OIDC_ISSUER",
                " https://auth.example.org/application/o/cashkeeper/ ",
            ),
            ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
            ("CASHKEEPER_OIDC_CLIENT_SECRET", "s3cret"),
            ("CASHKEEPER_OIDC_BUTTON_LABEL", "Sign in with Authentik"),
        ])
        .unwrap();
        let o = c.oidc.unwrap();
        assert_eq!(
            o.issuer,
            "https://auth.example.org/application/o/cashkeeper/"
        );
        assert_eq!(o.client_id, "cashkeeper");
        assert_eq!(o.client_secret.unwrap().expose(), "s3cret");
        assert_eq!(o.button_label.as_deref(), Some("Sign in with Authentik"));
        assert!(!o.only);
        // A public client has no secret.
        let o = with(&[
            ("CASHKEEPER_OIDC_ISSUER", "https://id.example.org"),
            ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
            ("CASHKEEPER_OIDC_ONLY", "true"),
        ])
        .unwrap()
        .oidc
        .unwrap();
        assert!(o.client_secret.is_none() && o.only);

        let err = |vars: &[(&str, &str)]| with(vars).unwrap_err().0;
        assert!(err(&[("CASHKEEPER_OIDC_ISSUER", "https://id.example.org")])
            .starts_with("CASHKEEPER_OIDC_CLIENT_ID"));
        assert!(err(&[("CASHKEEPER_OIDC_CLIENT_ID", "x")])
            .starts_with("CASHKEEPER_OIDC_CLIENT_ID is set"));
        assert!(
            err(&[("CASHKEEPER_OIDC_ONLY", "true")]).starts_with("CASHKEEPER_OIDC_ONLY=true needs")
        );
        assert!(err(&[("CASHKEEPER_OIDC_ONLY", "maybe")]).starts_with("CASHKEEPER_OIDC_ONLY"));
        for bad in ["auth.example.org", "ftp://x", "https://", "https://x/?a=b"] {
            let e = err(&[
                ("CASHKEEPER_OIDC_ISSUER", bad),
                ("CASHKEEPER_OIDC_CLIENT_ID", "x"),
            ]);
            assert!(
                e.starts_with("CASHKEEPER_OIDC_ISSUER: expected"),
                "{bad}: {e}"
            );
        }
        // Plain http only to this machine goes without a warning.
        let plain = |issuer: &str| {
            with(&[
                ("CASHKEEPER_OIDC_ISSUER", issuer),
                ("CASHKEEPER_OIDC_CLIENT_ID", "x"),
            ])
            .unwrap()
            .oidc
            .unwrap()
            .crosses_network_unencrypted()
        };
        assert!(plain("http://auth.lan:9091"));
        assert!(plain("http://192.168.1.5:9000/realms/home"));
        for local in [
            "http://127.0.0.1:9000",
            "http://[::1]:9000",
            "http://localhost/x",
            "https://auth.example.org",
        ] {
            assert!(!plain(local), "{local}");
        }
        // The secret never reaches a log.
        let c = with(&[
            ("CASHKEEPER_OIDC_ISSUER", "https://id.example.org"),
            ("CASHKEEPER_OIDC_CLIENT_ID", "cashkeeper"),
            ("CASHKEEPER_OIDC_CLIENT_SECRET", "s3cret"),
        ])
        .unwrap();
        assert!(!format!("{c:?}").contains("s3cret"));
    }

    #[test]
    fn defaults_serve_on_loopback_port_3000_with_data_in_dot_data() {
        let c = with(&[]).unwrap();
        assert_eq!(c.bind.to_string(), "127.0.0.1:3000");
        assert_eq!(c.data_dir, PathBuf::from("./data"));
        assert_eq!(c.base_url, "http://127.0.0.1:3000");
        assert_eq!(c.registration, Registration::Open);
        assert_eq!(c.api_rate_limit, 120);
        assert_eq!(c.signin_limit, 50);
        assert_eq!(c.document_quota, 500 * 1024 * 1024);
        assert!(c.trusted_proxies.is_empty());
        assert!(!c.base_url_set);
        assert_eq!(c.header_read_timeout, std::time::Duration::from_secs(30));
        assert_eq!(c.idle_timeout, std::time::Duration::from_secs(75));
        assert_eq!(c.body_read_timeout, std::time::Duration::from_secs(30));
        assert_eq!(c.max_connections_per_client, 128);
        assert_eq!(c.notification_schedule, Schedule::Cron("0 8 * * *".into()));
        assert_eq!(c.insights_schedule, Schedule::Cron("0 6 * * *".into()));
        assert!(!c.secure_cookies());
        assert!(c.rates_refresh);
        assert_eq!(
            c.rates_url,
            "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
        );
    }

    #[test]
    fn generated_vapid_keys_have_the_documented_formats() {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        use p256::elliptic_curve::sec1::ToEncodedPoint;
        let (public, private) = Vapid::generate();
        let p = URL_SAFE_NO_PAD.decode(public).unwrap();
        let s = URL_SAFE_NO_PAD.decode(private).unwrap();
        assert_eq!(p.len(), 65);
        assert_eq!(p[0], 0x04, "uncompressed point");
        assert_eq!(s.len(), 32);
        let secret = p256::SecretKey::from_slice(&s).unwrap();
        assert_eq!(
            secret.public_key().to_encoded_point(false).as_bytes(),
            &p[..]
        );
    }

    #[test]
    fn the_sign_in_limit_and_trusted_proxies_are_read() {
        let c = with(&[
            ("CASHKEEPER_SIGNIN_LIMIT", "0"),
            ("CASHKEEPER_DOCUMENT_QUOTA_MB", "2"),
            ("CASHKEEPER_TRUSTED_PROXY", "172.18.0.2, ::1"),
            ("CASHKEEPER_BASE_URL", "https://money.example.org"),
            ("CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT", "16"),
        ])
        .unwrap();
        assert_eq!(c.signin_limit, 0);
        assert_eq!(c.max_connections_per_client, 16);
        assert_eq!(c.document_quota, 2 * 1024 * 1024);
        assert_eq!(
            c.trusted_proxies,
            vec![
                "172.18.0.2".parse::<std::net::IpAddr>().unwrap(),
                "::1".parse().unwrap()
            ]
        );
        assert!(c.base_url_set);
    }

    #[test]
    fn each_bad_value_names_its_variable() {
        for (var, value) in [
            ("CASHKEEPER_BIND", "localhost"),
            ("CASHKEEPER_REGISTRATION", "yes"),
            ("NOTIFICATION_SCHEDULE", "every day"),
            ("INSIGHTS_SCHEDULE", "0 6 * * * *"),
            ("CASHKEEPER_API_RATE_LIMIT", "0"),
            ("CASHKEEPER_SIGNIN_LIMIT", "many"),
            ("CASHKEEPER_DOCUMENT_QUOTA_MB", "0"),
            ("CASHKEEPER_DOCUMENT_QUOTA_MB", "lots"),
            ("CASHKEEPER_SIGNIN_LIMIT", "-1"),
            ("CASHKEEPER_MAX_CONNECTIONS_PER_CLIENT", "lots"),
            ("CASHKEEPER_TRUSTED_PROXY", "proxy.local"),
            ("CASHKEEPER_TRUSTED_PROXY", "10.0.0.2, 10.0.0.x"),
            ("CASHKEEPER_BASE_URL", "money.example.org"),
            ("CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP", "maybe"),
            ("SMTP_URL", "mail.example.org"),
            ("CASHKEEPER_RATES_URL", "ftp://example.org/rates.xml"),
        ] {
            let err = with(&[(var, value)]).unwrap_err().0;
            assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn registration_message_lists_the_accepted_forms() {
        let err = with(&[("CASHKEEPER_REGISTRATION", "yes")]).unwrap_err();
        assert_eq!(
            err.0,
            "CASHKEEPER_REGISTRATION: expected open, closed or first-user, got \"yes\""
        );
    }

    #[test]
    fn https_base_url_makes_cookies_secure_and_schedules_can_be_off() {
        let c = with(&[
            ("CASHKEEPER_BASE_URL", "https://money.example.org/"),
            ("NOTIFICATION_SCHEDULE", "off"),
        ])
        .unwrap();
        assert_eq!(c.base_url, "https://money.example.org");
        assert!(c.secure_cookies());
        assert_eq!(c.notification_schedule, Schedule::Off);
    }

    #[test]
    fn backups_are_off_by_default_and_keep_seven() {
        let c = with(&[]).unwrap();
        assert_eq!(c.backup_schedule, Schedule::Off);
        assert_eq!(c.backup_keep, 7);
        let c = with(&[
            ("CASHKEEPER_BACKUP_SCHEDULE", "30 3 * * *"),
            ("CASHKEEPER_BACKUP_KEEP", "14"),
        ])
        .unwrap();
        assert_eq!(c.backup_schedule, Schedule::Cron("30 3 * * *".into()));
        assert_eq!(c.backup_keep, 14);
        for (var, bad) in [
            ("CASHKEEPER_BACKUP_SCHEDULE", "nightly"),
            ("CASHKEEPER_BACKUP_KEEP", "0"),
            ("CASHKEEPER_BACKUP_KEEP", "many"),
        ] {
            let err = with(&[(var, bad)]).unwrap_err();
            assert!(err.0.contains(var), "{}", err.0);
        }
    }

    #[test]
    fn smtp_password_is_not_echoed_in_the_error() {
        let err = with(&[("SMTP_URL", "imap://user:hunter2@host")]).unwrap_err();
        assert!(!err.0.contains("hunter2"), "{}", err.0);
    }

    #[test]
    fn vapid_values_are_checked_together_and_the_private_key_never_echoed() {
        let (public, private) = Vapid::generate();
        let (other_public, _) = Vapid::generate();
        let subject = "mailto:ops@example.org";
        let ok = with(&[
            ("VAPID_PUBLIC_KEY", &public),
            ("VAPID_PRIVATE_KEY", &private),
            ("VAPID_SUBJECT", subject),
        ])
        .unwrap();
        let v = ok.vapid.unwrap();
        assert_eq!(
            (v.public_key.as_str(), v.subject.as_str()),
            (public.as_str(), subject)
        );
        assert_eq!(v.private_key.expose(), private);
        // Two of three: push is simply off (the key route answers 503).
        assert!(
            with(&[("VAPID_PUBLIC_KEY", &public), ("VAPID_SUBJECT", subject)])
                .unwrap()
                .vapid
                .is_none()
        );
        for (public, private, subject, var) in [
            ("BAAA", private.as_str(), subject, "VAPID_PUBLIC_KEY"),
            (
                public.as_str(),
                "c2VjcmV0LXZhbHVl",
                subject,
                "VAPID_PRIVATE_KEY",
            ),
            (
                other_public.as_str(),
                private.as_str(),
                subject,
                "VAPID_PUBLIC_KEY",
            ),
            (
                public.as_str(),
                private.as_str(),
                "ops@example.org",
                "VAPID_SUBJECT",
            ),
        ] {
            let err = with(&[
                ("VAPID_PUBLIC_KEY", public),
                ("VAPID_PRIVATE_KEY", private),
                ("VAPID_SUBJECT", subject),
            ])
            .unwrap_err()
            .0;
            assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
            assert!(!err.contains(private) && !err.contains("c2VjcmV0"), "{err}");
        }
    }

    #[test]
    fn ai_is_off_without_a_key_and_defaults_to_openai() {
        let c = with(&[]).unwrap();
        assert!(c.ai.api_key.is_none());
        assert_eq!(c.ai.base_url, "https://api.openai.com/v1");
        assert_eq!(c.ai.model, "gpt-4o-mini");
        assert_eq!(
            c.ai.vision_model, "gpt-4o-mini",
            "the vision model defaults to AI_MODEL"
        );
        assert_eq!(c.ai.timeout, std::time::Duration::from_secs(120));
    }

    #[test]
    fn a_local_ollama_with_a_vision_model_is_read() {
        let c = with(&[
            ("AI_API_KEY", " ollama "),
            ("AI_BASE_URL", "http://localhost:11434/v1/"),
            ("AI_MODEL", "qwen3:8b"),
            ("AI_VISION_MODEL", "qwen2.5vl"),
            ("AI_TIMEOUT_SECONDS", "600"),
        ])
        .unwrap();
        assert_eq!(c.ai.api_key.unwrap().expose(), "ollama");
        assert_eq!(c.ai.base_url, "http://localhost:11434/v1");
        assert_eq!(c.ai.model, "qwen3:8b");
        assert_eq!(c.ai.vision_model, "qwen2.5vl");
        assert_eq!(c.ai.timeout, std::time::Duration::from_secs(600));
        let c = with(&[("AI_MODEL", "llava")]).unwrap();
        assert_eq!(c.ai.vision_model, "llava");
    }

    #[test]
    fn bad_ai_values_name_their_variable_and_the_right_form() {
        for (var, value, hint) in [
            ("AI_BASE_URL", "api.openai.com/v1", "http:// or https://"),
            (
                "AI_BASE_URL",
                "https://api.openai.com/v1/chat/completions",
                "without /chat/completions",
            ),
            ("AI_BASE_URL", "http://localhost:11434", "/v1"),
            ("AI_BASE_URL", "http://ollama:11434/api", "/v1"),
            ("AI_MODEL", "gpt 4o", "without spaces"),
            ("AI_VISION_MODEL", "llava\tlatest", "without spaces"),
            ("AI_TIMEOUT_SECONDS", "0", "1 to 3600"),
            ("AI_TIMEOUT_SECONDS", "2m", "1 to 3600"),
            ("AI_TIMEOUT_SECONDS", "3601", "1 to 3600"),
        ] {
            let err = with(&[(var, value)]).unwrap_err().0;
            assert!(err.starts_with(&format!("{var}: expected ")), "{err}");
            assert!(err.contains(hint), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
    }

    #[test]
    fn an_ai_key_that_cannot_be_a_header_is_refused_without_echoing_it() {
        let err = with(&[("AI_API_KEY", "sk-abc def")]).unwrap_err().0;
        assert!(err.starts_with("AI_API_KEY: expected "), "{err}");
        assert!(!err.contains("sk-abc"), "{err}");
    }

    #[test]
    fn secrets_do_not_debug_print() {
        let c = with(&[("CRON_SECRET", "s3cr3t"), ("AI_API_KEY", "sk-123")]).unwrap();
        let dbg = format!("{c:?}");
        assert!(!dbg.contains("s3cr3t") && !dbg.contains("sk-123"), "{dbg}");
    }
}
