//! Web push (RFC 8030) with message encryption (RFC 8291, aes128gcm) and
//! VAPID (RFC 8292), in pure Rust: the body is encrypted by `web-push-native`
//! and the VAPID token signed with its `jwt_simple`; reqwest sends it over
//! rustls.
//!
//! Endpoints are URLs a browser handed us, so they are checked twice: when
//! stored (only `https` to a public host) and again when sending, after
//! resolving the host, so a name that later points to a private address
//! (DNS rebinding) is refused too. The request then goes to exactly the
//! address that was checked, without a proxy in between.
//!
//! Why not `WebPushBuilder::with_vapid`: its token's `aud` leaves out the
//! port (RFC 8292 wants the origin, port included) and its `exp` is the
//! message's TTL, which must then stay under the 24 hours push services
//! allow for a token. So the token is signed here and the TTL set apart.

use crate::config::Config;
use crate::services::net::{is_local_name, is_public, url_host};
use crate::store::push_subscriptions::Subscription;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use reqwest::Url;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use web_push_native::jwt_simple::prelude::{
    Claims, Duration as JwtDuration, ECDSAP256KeyPairLike, ECDSAP256PublicKeyLike, ES256KeyPair,
};
use web_push_native::p256;

/// The longest endpoint URL accepted.
pub const MAX_ENDPOINT_LEN: usize = 2048;

/// How long a push service keeps an undelivered reminder: a day, since it
/// is about tomorrow.
pub const TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a VAPID token is valid; RFC 8292 allows at most 24 hours and
/// push services check against their own clock, so well below that.
pub const TOKEN_VALIDITY: Duration = Duration::from_secs(12 * 60 * 60);

/// How long one delivery may take in all.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// A checked endpoint: the URL as it will be requested (WHATWG-parsed, as
/// reqwest parses it, so the check and the request see the same host), its
/// host and port.
#[derive(Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub url: Url,
    /// The host without brackets: a DNS name (lower case) or an IP literal.
    pub host: String,
    pub port: u16,
    /// Plain http or a loopback host, allowed only by
    /// `CASHKEEPER_PUSH_ALLOW_LOOPBACK_HTTP`.
    pub loopback_http: bool,
}

/// Checks an endpoint before storing it: `https` to a host that is not
/// `localhost` nor a loopback, private, link-local or otherwise non-global
/// address; no user information, no fragment, at most
/// [`MAX_ENDPOINT_LEN`] bytes. With `allow_loopback_http` also a loopback
/// host (`localhost`, 127.0.0.0/8, `::1`) over plain http or https (tests,
/// closed networks). The error says why, for a 422 naming `endpoint`.
pub fn check_endpoint(raw: &str, allow_loopback_http: bool) -> Result<Endpoint, &'static str> {
    if raw.is_empty() {
        return Err("must be a non-empty string");
    }
    if raw.len() > MAX_ENDPOINT_LEN {
        return Err("is too long (at most 2048 bytes)");
    }
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("must not contain spaces or control characters");
    }
    let url = Url::parse(raw).map_err(|_| "must be an absolute URL")?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not contain user information");
    }
    if url.fragment().is_some() {
        return Err("must not contain a fragment");
    }
    // WHATWG parsing has already turned every IPv4 spelling (127.1,
    // 0x7f000001, 2130706433, percent-encoding) into the dotted form.
    let host = url_host(&url).ok_or("must be an absolute URL")?;
    let ip = host.parse::<IpAddr>().ok();
    let is_loopback = match ip {
        Some(ip) => ip.is_loopback(),
        None => host == "localhost",
    };
    let scheme = url.scheme();
    if !matches!(scheme, "https" | "http") {
        return Err("must be an https URL of a push service");
    }
    let port = url.port_or_known_default().unwrap_or(443);
    if allow_loopback_http && is_loopback {
        return Ok(Endpoint {
            url,
            host,
            port,
            loopback_http: true,
        });
    }
    if scheme != "https" {
        return Err("must be an https URL of a push service");
    }
    let local = match ip {
        Some(ip) => !is_public(ip),
        None => is_local_name(&host),
    };
    if local {
        return Err("must not point to a local or private address");
    }
    Ok(Endpoint {
        url,
        host,
        port,
        loopback_http: false,
    })
}

/// What became of one push message.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The push service accepted it (2xx).
    Delivered,
    /// The subscription is gone (404 or 410): delete it.
    Gone,
    /// Anything else; the subscription is kept for the next time. The
    /// reason names the endpoint's host only, never its path (which
    /// carries the subscription's token).
    Failed(String),
}

/// Sends push messages; exists only with all three VAPID values.
pub struct PushService {
    key: ES256KeyPair,
    /// `VAPID_PUBLIC_KEY`, the `k=` of every message.
    public_key: String,
    subject: String,
    allow_loopback_http: bool,
    /// `Config::push_resolve`: names answered without DNS (tests).
    hosts: Vec<(String, IpAddr)>,
}

impl PushService {
    /// The service, or `None` without a (valid) VAPID configuration: then
    /// there is nothing to send and the key route answers 503.
    pub fn from_config(config: &Config) -> Option<PushService> {
        let vapid = config.vapid.as_ref()?;
        let bytes = URL_SAFE_NO_PAD
            .decode(vapid.private_key.expose().trim_end_matches('='))
            .ok()?;
        let key = ES256KeyPair::from_bytes(&bytes).ok()?;
        // Config checks this at start-up; a test may build a Config by hand.
        let public_key =
            URL_SAFE_NO_PAD.encode(key.public_key().public_key().to_bytes_uncompressed());
        if public_key != vapid.public_key.trim_end_matches('=') {
            tracing::warn!("VAPID_PUBLIC_KEY is not the key of VAPID_PRIVATE_KEY; push is off");
            return None;
        }
        Some(PushService {
            key,
            public_key,
            subject: vapid.subject.clone(),
            allow_loopback_http: config.push_allow_loopback_http,
            hosts: config.push_resolve.clone(),
        })
    }

    /// The application server key browsers subscribe with (base64url).
    pub fn public_key(&self) -> &str {
        &self.public_key
    }

    /// Encrypts `payload` for the subscription and sends it. Never panics
    /// and never logs; the caller decides what a failure means.
    pub async fn send(&self, sub: &Subscription, payload: &[u8]) -> Outcome {
        match self.try_send(sub, payload).await {
            Ok(o) => o,
            Err(why) => Outcome::Failed(why),
        }
    }

    /// The `Authorization` header of RFC 8292 for `url`: a JWT (ES256) with
    /// `aud` = the endpoint's origin, `exp`, `sub` = `VAPID_SUBJECT`, and
    /// our public key.
    pub fn authorization(&self, url: &Url) -> Result<String, String> {
        let claims = Claims::create(JwtDuration::from_secs(TOKEN_VALIDITY.as_secs()))
            .with_audience(url.origin().ascii_serialization())
            .with_subject(&self.subject);
        let token = self
            .key
            .sign(claims)
            .map_err(|e| format!("signing the VAPID token: {e}"))?;
        Ok(format!("vapid t={token}, k={}", self.public_key))
    }

    async fn try_send(&self, sub: &Subscription, payload: &[u8]) -> Result<Outcome, String> {
        let endpoint = check_endpoint(&sub.endpoint, self.allow_loopback_http)
            .map_err(|why| format!("endpoint {why}"))?;
        let ua_public = URL_SAFE_NO_PAD
            .decode(sub.p256dh.trim_end_matches('='))
            .ok()
            .and_then(|b| p256::PublicKey::from_sec1_bytes(&b).ok())
            .ok_or("bad p256dh key")?;
        let auth_bytes = URL_SAFE_NO_PAD
            .decode(sub.auth.trim_end_matches('='))
            .ok()
            .filter(|b| b.len() == 16)
            .ok_or("bad auth secret")?;
        let mut auth = web_push_native::Auth::default();
        auth.copy_from_slice(&auth_bytes);
        let body = web_push_native::encrypt(payload.to_vec(), &ua_public, &auth)
            .map_err(|e| format!("encrypting the message: {e}"))?;
        let authorization = self.authorization(&endpoint.url)?;

        // Resolve now and send to the address checked, so the name cannot
        // be pointed elsewhere between the check and the connection; no
        // proxy, which would resolve the name again.
        let addr = resolve_checked(&endpoint, &self.hosts).await?;
        let client = crate::outbound::http_client()
            .timeout(SEND_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .resolve(&endpoint.host, addr)
            .build()
            .map_err(|e| format!("client: {}", e.without_url()))?;
        let res = client
            .post(endpoint.url.clone())
            .header("TTL", TTL.as_secs())
            .header("Urgency", "normal")
            .header(reqwest::header::CONTENT_ENCODING, "aes128gcm")
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .header(reqwest::header::AUTHORIZATION, authorization)
            .body(body)
            .send()
            .await
            .map_err(|e| format!("sending to {}: {}", endpoint.host, chain(e)))?;
        let status = res.status().as_u16();
        Ok(match status {
            200..=299 => Outcome::Delivered,
            404 | 410 => Outcome::Gone,
            other => Outcome::Failed(format!("push service {} answered {other}", endpoint.host)),
        })
    }
}

/// A reqwest error and its causes on one line, without the URL (whose path
/// is the subscription's secret token).
fn chain(e: reqwest::Error) -> String {
    crate::error::chain(&e.without_url())
}

/// The addresses of the endpoint's host: from `hosts` when it names the
/// host (`Config::push_resolve`, for tests without DNS), else from DNS.
async fn lookup(e: &Endpoint, hosts: &[(String, IpAddr)]) -> std::io::Result<Vec<SocketAddr>> {
    let given: Vec<SocketAddr> = hosts
        .iter()
        .filter(|(name, _)| name.eq_ignore_ascii_case(&e.host))
        .map(|(_, ip)| SocketAddr::new(*ip, e.port))
        .collect();
    if !given.is_empty() {
        return Ok(given);
    }
    Ok(tokio::net::lookup_host((e.host.as_str(), e.port))
        .await?
        .collect())
}

/// The first address of the endpoint's host, if every address it resolves
/// to may be used (one private address among public ones is enough to
/// refuse: the name is not what a push service looks like).
async fn resolve_checked(e: &Endpoint, hosts: &[(String, IpAddr)]) -> Result<SocketAddr, String> {
    let addrs = lookup(e, hosts)
        .await
        .map_err(|err| format!("resolving {}: {err}", e.host))?;
    check_addresses(e, &addrs)
}

/// How long subscribing waits for the endpoint's name to resolve.
const SUBSCRIBE_LOOKUP: Duration = Duration::from_secs(3);

/// Checks, when a subscription is stored, what its host resolves to now:
/// a name that resolves to a local or private address
/// (`127.0.0.1.nip.io`) is refused as such an address would be. A name
/// that does not resolve within [`SUBSCRIBE_LOOKUP`] is kept: it is
/// resolved and checked again before every message, so a name pointed
/// elsewhere later (DNS rebinding) is refused then. The error is worded
/// like [`check_endpoint`]'s.
pub async fn check_resolved(e: &Endpoint, hosts: &[(String, IpAddr)]) -> Result<(), &'static str> {
    if e.host.parse::<IpAddr>().is_ok() {
        return Ok(());
    }
    match tokio::time::timeout(SUBSCRIBE_LOOKUP, lookup(e, hosts)).await {
        Ok(Ok(addrs)) => match check_addresses(e, &addrs) {
            Ok(_) => Ok(()),
            Err(why) => {
                tracing::info!(host = %e.host, %why, "push subscription refused");
                Err("must not point to a local or private address")
            }
        },
        Ok(Err(err)) => {
            tracing::debug!(host = %e.host, error = %err, "push endpoint does not resolve now");
            Ok(())
        }
        Err(_) => Ok(()),
    }
}

fn check_addresses(e: &Endpoint, addrs: &[SocketAddr]) -> Result<SocketAddr, String> {
    crate::services::net::check_addresses(&e.host, addrs, |ip| e.loopback_http && ip.is_loopback())
}

/// Longest title and body put in a message, in characters: a push message
/// carries at most about 4 kB, and a notification shows far less anyway.
const MAX_TITLE_CHARS: usize = 120;
const MAX_BODY_CHARS: usize = 600;

/// The JSON the service worker (`assets/sw.js`) shows:
/// `{"title", "body", "url"}`, `url` being the page a click opens
/// (`/expenses` for reminders). Long texts are cut to fit a push message.
pub fn notify_payload(title: &str, body: &str, url: &str) -> Vec<u8> {
    fn cut(s: &str, max: usize) -> String {
        match s.char_indices().nth(max) {
            Some((i, _)) => format!("{}…", &s[..i]),
            None => s.to_string(),
        }
    }
    serde_json::json!({
        "title": cut(title, MAX_TITLE_CHARS),
        "body": cut(body, MAX_BODY_CHARS),
        "url": url,
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str, allow_loopback_http: bool) -> bool {
        check_endpoint(raw, allow_loopback_http).is_err()
    }

    #[test]
    fn the_push_services_of_the_browsers_are_accepted() {
        for ok in [
            "https://fcm.googleapis.com/fcm/send/eXyZ:APA91bH-abc_def",
            "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",
            "https://web.push.apple.com/QGuQyavXut-Ok0dz7Ys",
            "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB%2b",
            "https://push.example.org:8443/x",
            "https://8.8.8.8/x",
            "https://[2a00:1450:4001::1]/x",
        ] {
            let e = check_endpoint(ok, false).unwrap_or_else(|why| panic!("{ok}: {why}"));
            assert!(!e.loopback_http, "{ok}");
        }
        let e = check_endpoint("https://Push.Example.org:8443/a/b", false).unwrap();
        assert_eq!((e.host.as_str(), e.port), ("push.example.org", 8443));
    }

    #[test]
    fn local_private_and_odd_endpoints_are_refused() {
        for bad in [
            "",
            "http://fcm.googleapis.com/x",
            "ftp://push.example.org/x",
            "ws://push.example.org/x",
            "not a url",
            "/relative/path",
            "//push.example.org/x",
            "https://localhost/x",
            "https://LOCALHOST./x",
            "https://api.localhost/x",
            "https://printer.local/x",
            "https://intranet/x",
            "https://metadata.google.internal/x",
            "https://127.0.0.1/x",
            "https://127.1/x",
            "https://2130706433/x",
            "https://0x7f000001/x",
            "https://0177.0.0.1/x",
            "https://127.0.0.%31/x",
            "https://10.0.0.1/x",
            "https://172.16.5.4/x",
            "https://172.31.255.255/x",
            "https://192.168.1.10/x",
            "https://100.64.0.1/x",
            "https://169.254.169.254/latest/meta-data",
            "https://0.0.0.0/x",
            "https://255.255.255.255/x",
            "https://224.0.0.1/x",
            "https://[::1]/",
            "https://[::]/x",
            "https://[fe80::1]/x",
            "https://[fd00::1]/x",
            "https://[fc00::1]/x",
            "https://[::ffff:10.0.0.1]/x",
            "https://[::ffff:127.0.0.1]/x",
            "https://[64:ff9b::a9fe:a9fe]/x",
            "https://[2001:db8::1]/x",
            "https://[2002:c0a8:101::1]/x",
            "https://[ff02::1]/x",
            "https://user:pw@push.example.org/x",
            "https://user@push.example.org/x",
            "https://push.example.org@10.0.0.1/x",
            "https://push.example.org/x#frag",
            "https://push.example.org/a b",
            "https://push.example.org/x\n",
        ] {
            assert!(refused(bad, false), "{bad:?} must be refused");
        }
        let long = format!("https://push.example.org/{}", "a".repeat(2100));
        assert_eq!(
            check_endpoint(&long, false).unwrap_err(),
            "is too long (at most 2048 bytes)"
        );
    }

    #[test]
    fn plain_http_and_loopback_only_when_allowed() {
        for raw in [
            "http://127.0.0.1:8080/push/1",
            "http://[::1]:9/x",
            "http://localhost:9/x",
            "https://localhost/x",
        ] {
            assert!(refused(raw, false), "{raw}");
            let e = check_endpoint(raw, true).unwrap_or_else(|why| panic!("{raw}: {why}"));
            assert!(e.loopback_http, "{raw}");
        }
        let e = check_endpoint("http://127.0.0.1:8080/push/1", true).unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.loopback_http),
            ("127.0.0.1", 8080, true)
        );
        let e = check_endpoint("http://[::1]/x", true).unwrap();
        assert_eq!((e.host.as_str(), e.port), ("::1", 80));
        for never in [
            "http://10.0.0.1/x",
            "http://192.168.0.1:8080/x",
            "http://fcm.googleapis.com/x",
            "http://169.254.169.254/",
            "http://user:pw@127.0.0.1:9/x",
            "http://127.0.0.1:9/x#f",
        ] {
            assert!(refused(never, true), "{never} is never allowed");
        }
        // The allowance is for plain http to loopback, not an https exception elsewhere.
        assert!(
            !check_endpoint("https://fcm.googleapis.com/x", true)
                .unwrap()
                .loopback_http
        );
    }

    #[test]
    fn every_resolved_address_must_be_public() {
        let e = check_endpoint("https://push.example.org/x", false).unwrap();
        let public: SocketAddr = "93.184.215.14:443".parse().unwrap();
        let private: SocketAddr = "10.0.0.7:443".parse().unwrap();
        let loopback: SocketAddr = "127.0.0.1:443".parse().unwrap();
        assert_eq!(check_addresses(&e, &[public]), Ok(public));
        assert!(check_addresses(&e, &[public, private]).is_err());
        assert!(check_addresses(&e, &[loopback]).is_err());
        assert!(check_addresses(&e, &[]).is_err());
        let allowed = check_endpoint("http://localhost:9/x", true).unwrap();
        let lo: SocketAddr = "127.0.0.1:9".parse().unwrap();
        assert_eq!(check_addresses(&allowed, &[lo]), Ok(lo));
        assert!(check_addresses(&allowed, &[lo, "192.168.1.1:9".parse().unwrap()]).is_err());
        let err = check_addresses(&e, &[private]).unwrap_err();
        assert!(
            err.contains("push.example.org") && !err.contains("/x"),
            "{err}"
        );
    }

    #[test]
    fn the_payload_is_what_the_service_worker_reads() {
        let p: serde_json::Value = serde_json::from_slice(&notify_payload(
            "Due tomorrow: Rent",
            "€950.00",
            "/expenses",
        ))
        .unwrap();
        assert_eq!(
            p,
            serde_json::json!({"title": "Due tomorrow: Rent", "body": "€950.00", "url": "/expenses"})
        );
        let long = notify_payload(&"ä".repeat(5000), &"€".repeat(5000), "/expenses");
        assert!(long.len() < 3000, "{} bytes fit a push message", long.len());
    }
}
