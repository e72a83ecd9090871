//! Cross-site protection of every state-changing request (the actions and
//! the `/api` routes that write): a browser on another site must not be
//! able to make a signed-in user's browser change anything.
//!
//! A request is refused when its `Origin` names another origin than the
//! service's own (`CASHKEEPER_BASE_URL`: scheme, host and port; the
//! request's `Host` header is not trusted, since a DNS-rebinding page sends
//! a `Host` matching its own origin), or when the browser says through
//! `Sec-Fetch-Site` that another site sent it. Without `CASHKEEPER_BASE_URL`
//! the service was reached by whatever address it listens on, so an origin
//! whose host is an IP address or `localhost` and equals the `Host` header
//! is accepted too: no DNS name is involved there, so no rebinding either.
//! Requests without both headers come from scripts, not browsers.

use crate::config::Config;
use axum::http::{header, HeaderMap};

/// Scheme, host and port of an origin or base URL, compared case-blind.
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    fn parse(text: &str) -> Option<Origin> {
        let (scheme, rest) = text.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default_port = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains(['/', '?', '#', '@']) {
            return None;
        }
        let (host, port) = split_port(authority)?;
        Some(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            port: port.unwrap_or(default_port),
        })
    }

    /// A host no DNS answer stands behind: an IP address or `localhost`.
    fn host_is_literal(&self) -> bool {
        self.host == "localhost"
            || self.host.parse::<std::net::Ipv4Addr>().is_ok()
            || self
                .host
                .strip_prefix('[')
                .and_then(|h| h.strip_suffix(']'))
                .is_some_and(|h| h.parse::<std::net::Ipv6Addr>().is_ok())
    }
}

/// `host[:port]`, with `[v6]` kept in brackets.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    (!host.is_empty()).then_some((host, port))
}

/// Whether the body is declared as JSON (`application/json`, any charset).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// What a request that changes something may carry as its body.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// JSON only (the actions).
    Json,
    /// JSON, a multipart upload, or nothing (the `/api` routes).
    JsonOrUpload,
}

/// `Some(reason)` when a request that changes something is not one the
/// service's own pages make: its body is of a kind a form on another site
/// can send (form encoding, plain text), or another site sent it.
pub fn write_refusal(config: &Config, headers: &HeaderMap, body: Body) -> Option<&'static str> {
    let body_ok = match headers.get(header::CONTENT_TYPE) {
        None => body == Body::JsonOrUpload,
        Some(v) => {
            is_json(headers)
                || (body == Body::JsonOrUpload
                    && v.to_str().is_ok_and(|t| {
                        t.trim_start()
                            .to_ascii_lowercase()
                            .starts_with("multipart/form-data")
                    }))
        }
    };
    if !body_ok {
        return Some("content type must be application/json");
    }
    cross_site(config, headers)
}

/// `Some(reason)` when a state-changing request comes from another site.
fn cross_site(config: &Config, headers: &HeaderMap) -> Option<&'static str> {
    const REFUSED: &str = "cross-site request refused";
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !(site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none")) {
            return Some(REFUSED);
        }
    }
    // No `Origin` (and no `Sec-Fetch-Site` saying otherwise): not a browser
    // sending another site's request.
    let origin = headers.get(header::ORIGIN)?;
    let Some(origin) = origin.to_str().ok().and_then(Origin::parse) else {
        // "null" (a sandboxed frame, a file) and anything unreadable.
        return Some(REFUSED);
    };
    if Origin::parse(&config.base_url).is_some_and(|own| own == origin) {
        return None;
    }
    if !config.base_url_set && origin.scheme == "http" && origin.host_is_literal() {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| Origin::parse(&format!("http://{h}")));
        if host.is_some_and(|h| h == origin) {
            return None;
        }
        // Most likely the service itself, opened by a DNS name or over
        // https without CASHKEEPER_BASE_URL: say what to set.
        return Some(
            "cross-site request refused; if this is cashkeeper's own page, \
             set CASHKEEPER_BASE_URL to the address in your browser",
        );
    }
    Some(REFUSED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(base_url: Option<&str>) -> Config {
        let mut c = Config::for_data_dir("/tmp/unused");
        if let Some(b) = base_url {
            c.base_url = b.to_string();
            c.base_url_set = true;
        } else {
            c.base_url = "http://0.0.0.0:3000".into();
        }
        c
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn the_configured_origin_passes_in_any_letter_case_and_with_its_default_port() {
        let c = config(Some("https://money.example.org"));
        for o in [
            "https://money.example.org",
            "HTTPS://Money.Example.org",
            "https://money.example.org:443",
        ] {
            assert_eq!(cross_site(&c, &headers(&[("origin", o)])), None, "{o}");
        }
    }

    #[test]
    fn another_scheme_host_or_port_is_refused() {
        let c = config(Some("https://money.example.org"));
        for o in [
            "http://money.example.org",
            "https://money.example.org:8443",
            "https://evil.example",
            "https://money.example.org.evil.example",
            "null",
            "",
        ] {
            assert!(
                cross_site(&c, &headers(&[("origin", o)])).is_some(),
                "{o:?}"
            );
        }
    }

    #[test]
    fn a_host_header_matching_the_origin_is_not_enough() {
        // DNS rebinding: evil.example resolves to the service, so the
        // browser sends Host: evil.example:3000 with its own origin.
        let h = headers(&[
            ("origin", "http://evil.example:3000"),
            ("host", "evil.example:3000"),
        ]);
        assert!(cross_site(&config(Some("http://127.0.0.1:3000")), &h).is_some());
        assert!(cross_site(&config(None), &h).is_some());
    }

    #[test]
    fn without_a_base_url_an_ip_address_or_localhost_reaching_the_service_passes() {
        let c = config(None);
        for (o, host) in [
            ("http://192.168.1.5:3000", "192.168.1.5:3000"),
            ("http://localhost:3000", "localhost:3000"),
            ("http://[::1]:3000", "[::1]:3000"),
        ] {
            let h = headers(&[("origin", o), ("host", host)]);
            assert_eq!(cross_site(&c, &h), None, "{o}");
        }
        // The origin must be the host the request went to.
        let h = headers(&[
            ("origin", "http://192.168.1.6:3000"),
            ("host", "192.168.1.5:3000"),
        ]);
        assert!(cross_site(&c, &h).is_some());
        // With a base URL set, only it counts.
        let h = headers(&[
            ("origin", "http://192.168.1.5:3000"),
            ("host", "192.168.1.5:3000"),
        ]);
        assert!(cross_site(&config(Some("https://money.example.org")), &h).is_some());
    }

    #[test]
    fn actions_take_only_json_and_api_routes_also_uploads() {
        let c = config(Some("https://money.example.org"));
        let json = headers(&[("content-type", "application/json; charset=utf-8")]);
        let upload = headers(&[("content-type", "multipart/form-data; boundary=x")]);
        let text = headers(&[("content-type", "text/plain")]);
        let none = HeaderMap::new();
        assert_eq!(write_refusal(&c, &json, Body::Json), None);
        assert_eq!(write_refusal(&c, &json, Body::JsonOrUpload), None);
        assert_eq!(write_refusal(&c, &upload, Body::JsonOrUpload), None);
        assert_eq!(write_refusal(&c, &none, Body::JsonOrUpload), None);
        for (h, body) in [
            (&upload, Body::Json),
            (&none, Body::Json),
            (&text, Body::JsonOrUpload),
        ] {
            assert_eq!(
                write_refusal(&c, h, body),
                Some("content type must be application/json")
            );
        }
    }

    #[test]
    fn the_browsers_own_word_about_the_sender_counts() {
        let c = config(Some("https://money.example.org"));
        assert!(cross_site(&c, &headers(&[("sec-fetch-site", "cross-site")])).is_some());
        assert!(cross_site(&c, &headers(&[("sec-fetch-site", "same-site")])).is_some());
        assert_eq!(
            cross_site(&c, &headers(&[("sec-fetch-site", "same-origin")])),
            None
        );
        // Scripts send neither header.
        assert_eq!(cross_site(&c, &HeaderMap::new()), None);
    }
}
