//! The one home of what makes an outbound address acceptable: web push
//! endpoints (`push.rs`) and bank addresses (`fints/address.rs`) go only to
//! public hosts, checked on the URL and again on what its name resolves to.

use reqwest::Url;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Whether an address is one an outbound request (a push, a bank) may go to: a global unicast address,
/// so not loopback, private, link-local, carrier-grade NAT, unspecified,
/// multicast, documentation, benchmarking or reserved.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(v4: Ipv4Addr) -> bool {
    let [a, b, c, _] = v4.octets();
    !(v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT, 100.64/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments, 192.0.0/24
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking, 198.18/15
        || a >= 240) // reserved
}

fn is_public_v6(v6: Ipv6Addr) -> bool {
    if let Some(v4) = v6.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let s = v6.segments();
    // NAT64 (64:ff9b::/96): what counts is the IPv4 address inside, so
    // IPv6-only hosts behind DNS64 still reach the push services.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [a, b] = s[6].to_be_bytes();
        let [c, d] = s[7].to_be_bytes();
        return is_public_v4(Ipv4Addr::new(a, b, c, d));
    }
    // Global unicast is 2000::/3; everything else (loopback, unspecified,
    // unique local fc00::/7, link-local fe80::/10, multicast, mapped and
    // compatible forms) is not.
    (s[0] & 0xe000) == 0x2000
        && (s[0] & 0xfe00) != 0x2000 // 2001::/23 IETF protocol assignments (Teredo, ORCHID …)
        && !(s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        && s[0] != 0x2002 // 6to4: an IPv4 address in disguise
        && (s[0] & 0xfff0) != 0x3ff0 // documentation, 3fff::/20
}

/// Names that never denote a public host, whatever DNS says.
pub fn is_local_name(name: &str) -> bool {
    name == "localhost"
        || !name.contains('.') // single label: resolved through search domains, i.e. the local network
        || [".localhost", ".local", ".localdomain", ".internal", ".lan", ".home.arpa"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// The host of a parsed URL as the checks compare it: without the brackets
/// of an IPv6 literal and without a trailing dot (WHATWG parsing has already
/// lower-cased it and turned every IPv4 spelling, `127.1`, `0x7f000001`,
/// percent-encoding, into the dotted form).
pub fn url_host(url: &Url) -> Option<String> {
    Some(
        url.host_str()?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_string(),
    )
}

/// The first of the addresses `host` resolved to, if every one of them is
/// public or one `also` allows (one local address among public ones is
/// enough to refuse). The error names the host only, for the log.
pub fn check_addresses(
    host: &str,
    addrs: &[SocketAddr],
    also: impl Fn(IpAddr) -> bool,
) -> Result<SocketAddr, String> {
    let first = *addrs
        .first()
        .ok_or_else(|| format!("{host} has no address"))?;
    for a in addrs {
        if !(is_public(a.ip()) || also(a.ip())) {
            return Err(format!("{host} resolves to a local or private address"));
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses() {
        for a in [
            "8.8.8.8",
            "142.250.185.10",
            "2a00:1450:4001::1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
        for a in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.0.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::",
            "::1",
            "::ffff:192.168.0.1",
            "::7f00:1",
            "64:ff9b::7f00:1",
            "fc00::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "2001::1",
            "2002:a00:1::1",
            "3fff::1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn local_names() {
        for n in [
            "localhost",
            "intranet",
            "printer.local",
            "api.localhost",
            "nas.home.arpa",
        ] {
            assert!(is_local_name(n), "{n}");
        }
        for n in ["banking.dkb.de", "fints.gls.de"] {
            assert!(!is_local_name(n), "{n}");
        }
    }

    #[test]
    fn every_address_must_pass() {
        let public: SocketAddr = "93.184.215.14:443".parse().unwrap();
        let private: SocketAddr = "10.0.0.7:443".parse().unwrap();
        assert_eq!(check_addresses("h", &[public], |_| false), Ok(public));
        assert!(check_addresses("h", &[public, private], |_| false).is_err());
        assert_eq!(
            check_addresses("h", &[private, public], |ip| ip.is_loopback()
                || ip == private.ip()),
            Ok(private)
        );
        assert_eq!(
            check_addresses("h", &[], |_| true),
            Err("h has no address".to_string())
        );
    }
}
