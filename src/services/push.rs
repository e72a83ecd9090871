//! Web push (RFC 8030) with message encryption (RFC 8291, aes128gcm) and
//! VAPID (RFC 8292), built by `web-push-native` (pure Rust) and sent with
//! reqwest over rustls.
//!
//! Endpoints are URLs a browser handed us, so they are checked twice: when
//! stored (only `https` to a public host) and again when sending, after
//! resolving the host, so a name that later points to a private address
//! (DNS rebinding) is refused too. The request then goes to exactly the
//! address that was checked.

use crate::config::Config;
use crate::store::push_subscriptions::Subscription;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;
use web_push_native::jwt_simple::algorithms::ES256KeyPair;
use web_push_native::p256;
use web_push_native::WebPushBuilder;

/// The longest endpoint URL accepted.
pub const MAX_ENDPOINT_LEN: usize = 2048;

/// Whether an address may receive a push request: not loopback, private,
/// link-local, unspecified, multicast or otherwise not global.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (64..128).contains(&o[1])) // carrier-grade NAT
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80) // link-local
        }
    }
}

/// A checked endpoint: its host and port.
#[derive(Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    pub loopback_http: bool,
}

/// Checks an endpoint before storing it: `https` to a host that is not
/// `localhost` nor a loopback, private or link-local address; with
/// `allow_loopback_http` also plain `http` to a loopback host (tests,
/// closed networks). The error says why, for a 422 naming `endpoint`.
pub fn check_endpoint(raw: &str, allow_loopback_http: bool) -> Result<Endpoint, &'static str> {
    if raw.is_empty() {
        return Err("must be a non-empty string");
    }
    if raw.len() > MAX_ENDPOINT_LEN {
        return Err("is too long");
    }
    let uri: axum::http::Uri = raw.parse().map_err(|_| "must be a URL")?;
    let scheme = uri.scheme_str().unwrap_or("");
    let authority = uri.authority().ok_or("must be an absolute URL")?;
    if authority.as_str().contains('@') {
        return Err("must not contain user information");
    }
    if raw.contains('#') {
        return Err("must not contain a fragment");
    }
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let ip = host.parse::<IpAddr>().ok();
    let is_loopback = host == "localhost" || ip.is_some_and(|i| i.is_loopback());
    match scheme {
        "https" => {
            let port = authority.port_u16().unwrap_or(443);
            if host == "localhost"
                || host.ends_with(".localhost")
                || ip.is_some_and(|i| !is_public(i))
            {
                if allow_loopback_http && is_loopback {
                    return Ok(Endpoint {
                        host,
                        port,
                        loopback_http: true,
                    });
                }
                return Err("must not point to a local or private address");
            }
            Ok(Endpoint {
                host,
                port,
                loopback_http: false,
            })
        }
        "http" if allow_loopback_http && is_loopback => Ok(Endpoint {
            host,
            port: authority.port_u16().unwrap_or(80),
            loopback_http: true,
        }),
        _ => Err("must be an https URL of a push service"),
    }
}

/// What became of one push message.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The push service accepted it (2xx).
    Delivered,
    /// The subscription is gone (404 or 410): delete it.
    Gone,
    /// Anything else; kept for the next time.
    Failed(String),
}

/// Sends push messages; exists only with all three VAPID values.
pub struct PushService {
    key: ES256KeyPair,
    subject: String,
    allow_loopback_http: bool,
}

/// How long a push service keeps an undelivered reminder (seconds).
const TTL: Duration = Duration::from_secs(24 * 60 * 60);

impl PushService {
    pub fn from_config(config: &Config) -> Option<PushService> {
        let vapid = config.vapid.as_ref()?;
        let bytes = URL_SAFE_NO_PAD.decode(vapid.private_key.expose()).ok()?;
        let key = ES256KeyPair::from_bytes(&bytes).ok()?;
        Some(PushService {
            key,
            subject: vapid.subject.clone(),
            allow_loopback_http: config.push_allow_loopback_http,
        })
    }

    /// Encrypts `payload` for the subscription and sends it.
    pub async fn send(&self, sub: &Subscription, payload: &[u8]) -> Outcome {
        match self.try_send(sub, payload).await {
            Ok(o) => o,
            Err(why) => Outcome::Failed(why),
        }
    }

    async fn try_send(&self, sub: &Subscription, payload: &[u8]) -> Result<Outcome, String> {
        let endpoint =
            check_endpoint(&sub.endpoint, self.allow_loopback_http).map_err(str::to_string)?;
        let ua_public = URL_SAFE_NO_PAD
            .decode(&sub.p256dh)
            .ok()
            .and_then(|b| p256::PublicKey::from_sec1_bytes(&b).ok())
            .ok_or("bad p256dh key")?;
        let auth_bytes = URL_SAFE_NO_PAD
            .decode(&sub.auth)
            .map_err(|_| "bad auth secret")?;
        if auth_bytes.len() != 16 {
            return Err("bad auth secret".into());
        }
        let mut auth = web_push_native::Auth::default();
        auth.copy_from_slice(&auth_bytes);
        let uri: axum::http::Uri = sub.endpoint.parse().map_err(|_| "bad endpoint")?;
        let request = WebPushBuilder::new(uri, ua_public, auth)
            .with_valid_duration(TTL)
            .with_vapid(&self.key, &self.subject)
            .build(payload.to_vec())
            .map_err(|e| format!("building the message: {e}"))?;

        // Resolve now and send to the address checked, so the name cannot
        // be pointed elsewhere between the check and the connection.
        let addr = resolve_checked(&endpoint).await?;
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .resolve(&endpoint.host, addr)
            .build()
            .map_err(|e| format!("client: {e}"))?;
        let (parts, body) = request.into_parts();
        let mut req = client.post(sub.endpoint.as_str()).body(body);
        for (name, value) in parts.headers.iter() {
            req = req.header(name.as_str(), value.as_bytes());
        }
        let res = req
            .send()
            .await
            .map_err(|e| format!("sending to {}: {e}", endpoint.host))?;
        let status = res.status().as_u16();
        Ok(match status {
            200..=299 => Outcome::Delivered,
            404 | 410 => Outcome::Gone,
            other => Outcome::Failed(format!("push service {} answered {other}", endpoint.host)),
        })
    }
}

/// The first address of the endpoint's host that may be used.
async fn resolve_checked(e: &Endpoint) -> Result<SocketAddr, String> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((e.host.as_str(), e.port))
        .await
        .map_err(|err| format!("resolving {}: {err}", e.host))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("{} has no address", e.host));
    }
    for a in &addrs {
        let ok = is_public(a.ip()) || (e.loopback_http && a.ip().is_loopback());
        if !ok {
            return Err(format!("{} resolves to a local or private address", e.host));
        }
    }
    Ok(addrs[0])
}

/// The JSON the service worker shows: title, body, and the page to open.
pub fn payload(title: &str, body: &str, url: &str) -> Vec<u8> {
    serde_json::json!({ "title": title, "body": body, "url": url })
        .to_string()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_https_endpoints_are_stored() {
        assert!(check_endpoint("https://fcm.googleapis.com/fcm/send/abc", false).is_ok());
        assert!(check_endpoint(
            "https://updates.push.services.mozilla.com/wpush/v2/x",
            false
        )
        .is_ok());
        for bad in [
            "",
            "http://fcm.googleapis.com/x",
            "https://localhost/x",
            "https://api.localhost/x",
            "https://127.0.0.1/x",
            "https://10.0.0.1/x",
            "https://172.16.5.4/x",
            "https://192.168.1.10/x",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/x",
            "https://[fe80::1]/x",
            "https://[fd00::1]/x",
            "https://0.0.0.0/x",
            "https://user:pw@push.example.org/x",
            "ftp://push.example.org/x",
            "not a url",
            "/relative",
        ] {
            assert!(check_endpoint(bad, false).is_err(), "{bad}");
        }
        assert!(check_endpoint(
            &format!("https://p.example.org/{}", "a".repeat(2100)),
            false
        )
        .is_err());
    }

    #[test]
    fn plain_http_loopback_only_when_allowed() {
        assert!(check_endpoint("http://127.0.0.1:8080/push/1", false).is_err());
        let e = check_endpoint("http://127.0.0.1:8080/push/1", true).unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.loopback_http),
            ("127.0.0.1", 8080, true)
        );
        assert!(check_endpoint("http://[::1]:9/x", true).is_ok());
        assert!(check_endpoint("http://localhost:9/x", true).is_ok());
        assert!(
            check_endpoint("http://10.0.0.1/x", true).is_err(),
            "private is never allowed"
        );
    }

    #[test]
    fn public_addresses() {
        assert!(is_public("8.8.8.8".parse().unwrap()));
        assert!(is_public("2a00:1450::1".parse().unwrap()));
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "100.64.0.1",
            "::ffff:192.168.0.1",
            "fc00::1",
            "::",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
    }
}
