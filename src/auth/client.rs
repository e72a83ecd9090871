//! Who the client is, for the per-client sign-in limit: the peer address of
//! the connection, or, when that peer is a trusted reverse proxy
//! (`CASHKEEPER_TRUSTED_PROXY`), the address the proxy names in
//! `X-Forwarded-For`. Entries are read from the right, past every trusted
//! proxy, so a client cannot choose its address by sending the header itself.

use axum::http::HeaderMap;
use std::net::IpAddr;

pub fn address(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpAddr]) -> Option<IpAddr> {
    let peer = peer.map(canonical)?;
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    for hop in forwarded.iter().rev() {
        match hop.parse::<IpAddr>().map(canonical) {
            Ok(ip) if trusted.contains(&ip) => continue,
            Ok(ip) => return Some(ip),
            // Garbage where an address should be: the proxy is the client.
            Err(_) => return Some(peer),
        }
    }
    Some(peer)
}

/// An IPv4 address seen through an IPv6 socket (`::ffff:1.2.3.4`) as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_peer_is_the_client_unless_it_is_a_trusted_proxy() {
        let h = headers("203.0.113.9");
        assert_eq!(
            address(Some(ip("198.51.100.1")), &h, &[]),
            Some(ip("198.51.100.1"))
        );
        assert_eq!(
            address(Some(ip("10.0.0.2")), &h, &[ip("10.0.0.2")]),
            Some(ip("203.0.113.9"))
        );
    }

    #[test]
    fn a_forged_entry_on_the_left_is_ignored() {
        // The client sent "1.2.3.4" itself; the proxy appended the real peer.
        let h = headers("1.2.3.4, 203.0.113.9");
        assert_eq!(
            address(Some(ip("10.0.0.2")), &h, &[ip("10.0.0.2")]),
            Some(ip("203.0.113.9"))
        );
        // Two trusted proxies in a row.
        let h = headers("1.2.3.4, 203.0.113.9, 10.0.0.3");
        assert_eq!(
            address(Some(ip("10.0.0.2")), &h, &[ip("10.0.0.2"), ip("10.0.0.3")]),
            Some(ip("203.0.113.9"))
        );
    }

    #[test]
    fn without_a_usable_header_the_proxy_is_the_client() {
        let trusted = [ip("10.0.0.2")];
        assert_eq!(
            address(Some(ip("10.0.0.2")), &HeaderMap::new(), &trusted),
            Some(ip("10.0.0.2"))
        );
        assert_eq!(
            address(Some(ip("10.0.0.2")), &headers("unknown"), &trusted),
            Some(ip("10.0.0.2"))
        );
        assert_eq!(
            address(
                Some(ip("::ffff:10.0.0.2")),
                &headers("203.0.113.9"),
                &trusted
            ),
            Some(ip("203.0.113.9"))
        );
    }
}
