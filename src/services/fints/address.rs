//! Which bank addresses the client may connect to (docs/bank-sync.md,
//! "Bank addresses"): `https://` to a public host, checked on the URL and
//! again on every address its name resolves to. `CASHKEEPER_FINTS_ALLOW_LOCAL`
//! also admits loopback and private networks, over `http://` too.

use crate::error::BankAddressProblem;
use crate::services::net::{check_addresses, is_local_name, is_public, url_host};
use reqwest::Url;
use std::net::{IpAddr, SocketAddr};

/// The longest bank address accepted.
pub const MAX_URL_LEN: usize = 2048;

/// A bank address that passed [`check_bank_url`]: the URL as it will be
/// requested (WHATWG-parsed, as reqwest parses it), its host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BankAddress {
    pub url: Url,
    /// A DNS name (lower case) or an IP literal without brackets.
    pub host: String,
    pub port: u16,
    /// Whether local addresses are allowed (`CASHKEEPER_FINTS_ALLOW_LOCAL`),
    /// which the check of the resolved addresses repeats.
    pub allow_local: bool,
}

/// Loopback or a private network: what `CASHKEEPER_FINTS_ALLOW_LOCAL`
/// admits. Link-local (cloud metadata services), unspecified and the other
/// non-global ranges stay refused.
pub fn is_local_network(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_local_network(IpAddr::V4(v4)),
            None => v6.is_loopback() || (v6.segments()[0] & 0xfe00) == 0xfc00,
        },
    }
}

/// Checks a bank address before it is stored or used.
pub fn check_bank_url(raw: &str, allow_local: bool) -> Result<BankAddress, BankAddressProblem> {
    let raw = raw.trim();
    if raw.is_empty()
        || raw.len() > MAX_URL_LEN
        || raw.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(BankAddressProblem::NotAUrl);
    }
    let url = Url::parse(raw).map_err(|_| BankAddressProblem::NotAUrl)?;
    if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
        return Err(BankAddressProblem::NotAUrl);
    }
    let scheme = url.scheme();
    if !matches!(scheme, "https" | "http") {
        return Err(BankAddressProblem::NotHttps);
    }
    let host = url_host(&url)
        .filter(|h| !h.is_empty())
        .ok_or(BankAddressProblem::NotAUrl)?;
    let port = url.port_or_known_default().unwrap_or(443);
    let local = match host.parse::<IpAddr>() {
        Ok(ip) if is_public(ip) => false,
        Ok(ip) if allow_local && is_local_network(ip) => true,
        Ok(_) => return Err(BankAddressProblem::Local),
        Err(_) => is_local_name(&host),
    };
    if local && !allow_local {
        return Err(BankAddressProblem::Local);
    }
    if scheme != "https" && !local {
        return Err(BankAddressProblem::NotHttps);
    }
    Ok(BankAddress {
        url,
        host,
        port,
        allow_local,
    })
}

/// The address to connect to, of those the bank's host resolved to: every
/// one must be public (or local, when allowed), so a name pointed at a
/// private address is refused however it is resolved. A plain-http address
/// must resolve to local addresses only. The error is for the log.
pub fn check_bank_addresses(
    bank: &BankAddress,
    addrs: &[SocketAddr],
) -> Result<SocketAddr, String> {
    if bank.url.scheme() == "http" {
        let first = addrs
            .first()
            .ok_or_else(|| format!("{} has no address", bank.host))?;
        return match addrs.iter().all(|a| is_local_network(a.ip())) {
            true => Ok(*first),
            false => Err(format!(
                "{} is plain http but resolves to a public address",
                bank.host
            )),
        };
    }
    check_addresses(&bank.host, addrs, |ip| {
        bank.allow_local && is_local_network(ip)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BankAddressProblem::*;

    fn problem(raw: &str, allow_local: bool) -> Option<BankAddressProblem> {
        check_bank_url(raw, allow_local).err()
    }

    #[test]
    fn banks_public_https_addresses_are_accepted() {
        for ok in [
            "https://banking-dkb.s-fints-pt-dkb.de/fints30",
            "https://fints.gls.de/fints",
            "https://hbci-pintan.gad.de/cgi-bin/hbciservlet",
            "https://FinTS.Postbank.de:443/fints30/",
            "https://8.8.8.8/fints",
            "https://[2a00:1450:4001::1]/fints",
        ] {
            for allow_local in [false, true] {
                let a = check_bank_url(ok, allow_local).unwrap_or_else(|p| panic!("{ok}: {p:?}"));
                assert_eq!(a.allow_local, allow_local);
            }
        }
        let a = check_bank_url(" https://FinTS.Postbank.de:8443/x ", false).unwrap();
        assert_eq!((a.host.as_str(), a.port), ("fints.postbank.de", 8443));
    }

    #[test]
    fn plain_http_local_and_odd_addresses_are_refused() {
        for (raw, want) in [
            ("", NotAUrl),
            ("fints.gls.de/fints", NotAUrl),
            ("https://", NotAUrl),
            ("https://user:pw@fints.gls.de/", NotAUrl),
            ("https://fints.gls.de/#x", NotAUrl),
            ("https://fints.gls.de/a b", NotAUrl),
            ("ftp://fints.gls.de/", NotHttps),
            ("http://fints.gls.de/fints", NotHttps),
            ("http://8.8.8.8/fints", NotHttps),
            ("https://localhost/fints", Local),
            ("https://bank/fints", Local),
            ("https://mock.local/fints", Local),
            ("https://127.0.0.1/fints", Local),
            ("https://127.1/fints", Local),
            ("https://0x7f000001/fints", Local),
            ("https://10.1.2.3/fints", Local),
            ("https://192.168.0.10/fints", Local),
            ("https://169.254.169.254/", Local),
            ("https://100.64.0.1/", Local),
            ("https://[::1]/fints", Local),
            ("https://[fd00::1]/fints", Local),
            ("https://[::ffff:10.0.0.1]/", Local),
            ("http://127.0.0.1:3000/fints", Local),
        ] {
            assert_eq!(problem(raw, false), Some(want), "{raw:?}");
        }
    }

    #[test]
    fn allow_local_admits_loopback_and_private_networks_over_http() {
        for ok in [
            "http://127.0.0.1:3000/fints",
            "http://[::1]:9/fints",
            "http://localhost:8080/",
            "http://mockbank:8080/fints",
            "http://10.0.0.5/fints",
            "http://192.168.1.20/fints",
            "http://[fd12::5]/fints",
            "https://127.0.0.1/fints",
        ] {
            let a = check_bank_url(ok, true).unwrap_or_else(|p| panic!("{ok}: {p:?}"));
            assert!(a.allow_local, "{ok}");
        }
        for (raw, want) in [
            ("http://fints.gls.de/fints", NotHttps),
            ("http://169.254.169.254/", Local),
            ("http://0.0.0.0:3000/", Local),
            ("http://100.64.0.1/", Local),
            ("http://[fe80::1]/", Local),
            ("http://user:pw@127.0.0.1:9/", NotAUrl),
        ] {
            assert_eq!(problem(raw, true), Some(want), "{raw:?}");
        }
    }

    #[test]
    fn every_resolved_address_must_be_allowed() {
        let public: SocketAddr = "93.184.215.14:443".parse().unwrap();
        let private: SocketAddr = "10.0.0.7:443".parse().unwrap();
        let loopback: SocketAddr = "127.0.0.1:443".parse().unwrap();
        let link_local: SocketAddr = "169.254.169.254:443".parse().unwrap();
        let bank = check_bank_url("https://fints.gls.de/fints", false).unwrap();
        assert_eq!(check_bank_addresses(&bank, &[public]), Ok(public));
        for bad in [vec![public, private], vec![loopback], vec![]] {
            let err = check_bank_addresses(&bank, &bad).unwrap_err();
            assert!(err.contains("fints.gls.de"), "{err}");
        }
        let bank = check_bank_url("https://fints.gls.de/fints", true).unwrap();
        assert_eq!(check_bank_addresses(&bank, &[private, public]), Ok(private));
        assert!(check_bank_addresses(&bank, &[link_local]).is_err());
        // Plain http is for the local network only, whatever the name says.
        let bank = check_bank_url("http://mockbank:8080/fints", true).unwrap();
        assert_eq!(check_bank_addresses(&bank, &[loopback]), Ok(loopback));
        assert!(check_bank_addresses(&bank, &[loopback, public]).is_err());
        assert!(check_bank_addresses(&bank, &[]).is_err());
    }
}
