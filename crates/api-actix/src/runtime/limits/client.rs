//! The client address the per-address limit counts. Without trusted proxies it is the TCP
//! peer's. Behind proxies named in `PARLEY_TRUSTED_PROXIES` it is read from `X-Forwarded-For`,
//! right to left: each trusted proxy appends the address that connected to it, so the first
//! address that is not a trusted proxy is the client. Entries left of it were written by the
//! client itself and are never believed, and a peer that is not a trusted proxy is never asked.

use std::net::{IpAddr, SocketAddr};

use actix_web::http::header::HeaderMap;
use ipnet::IpNet;

const FORWARDED_FOR: &str = "x-forwarded-for";

/// The networks whose `X-Forwarded-For` is believed; empty by default (none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// A comma-separated list of addresses (`10.0.0.7`) and networks (`10.0.0.0/8`, `fd00::/8`);
    /// empty: none.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let parse_one = |entry: &str| {
            entry
                .parse::<IpNet>()
                .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                .map_err(|_| format!("PARLEY_TRUSTED_PROXIES: {entry:?} is neither an IP address nor a network such as 10.0.0.0/8"))
        };
        raw.split(',').map(str::trim).filter(|e| !e.is_empty()).map(parse_one).collect::<Result<_, _>>().map(Self)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client's IP: the peer's, or behind trusted proxies the nearest untrusted address they
    /// forwarded. A forwarded entry that is not an address ends the walk at the last hop known.
    pub fn client_ip(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
        let mut client = peer.map(canonical)?;
        if !self.trusts(client) {
            return Some(client);
        }
        // Several headers count as one list, in order.
        let forwarded: Vec<&str> =
            headers.get_all(FORWARDED_FOR).filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).map(str::trim).collect();
        for entry in forwarded.into_iter().rev() {
            let Some(hop) = parse_hop(entry) else { break };
            client = canonical(hop);
            if !self.trusts(client) {
                break;
            }
        }
        Some(client)
    }
}

/// An `X-Forwarded-For` entry: an address, possibly with a port (`1.2.3.4:5`, `[::1]:5`).
fn parse_hop(entry: &str) -> Option<IpAddr> {
    entry.parse::<IpAddr>().ok().or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

/// IPv4-mapped IPv6 as the IPv4 address it is.
pub(crate) fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for v in values {
            map.append(HeaderName::from_static(FORWARDED_FOR), HeaderValue::from_str(v).unwrap());
        }
        map
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn parses_addresses_and_networks_and_names_a_bad_entry() {
        let t = TrustedProxies::parse(" 10.0.0.7, 192.168.0.0/16 ,fd00::/8,").unwrap();
        assert_eq!(t.0.len(), 3);
        assert!(t.trusts("192.168.4.5".parse().unwrap()) && t.trusts("::ffff:10.0.0.7".parse().unwrap()));
        assert!(!t.trusts("10.0.0.8".parse().unwrap()));
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        let e = TrustedProxies::parse("10.0.0.1, proxy.internal").unwrap_err();
        assert!(e.contains("\"proxy.internal\""), "{e}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
    }

    #[test]
    fn without_trusted_proxies_the_peer_is_the_client_whatever_it_forwards() {
        let none = TrustedProxies::default();
        assert_eq!(none.client_ip(ip("203.0.113.9"), &headers(&["198.51.100.1"])), ip("203.0.113.9"));
        assert_eq!(none.client_ip(None, &headers(&["198.51.100.1"])), None);
        let some = TrustedProxies::parse("10.0.0.0/8").unwrap();
        assert_eq!(some.client_ip(ip("203.0.113.9"), &headers(&["198.51.100.1"])), ip("203.0.113.9"), "an untrusted peer is not asked");
    }

    #[test]
    fn behind_trusted_proxies_the_nearest_untrusted_hop_is_the_client() {
        let t = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let peer = ip("10.0.0.2");
        assert_eq!(t.client_ip(peer, &headers(&["198.51.100.1"])), ip("198.51.100.1"));
        // The client wrote the first entry itself: only what the proxies appended is believed.
        assert_eq!(t.client_ip(peer, &headers(&["1.1.1.1, 198.51.100.1, 10.0.0.9"])), ip("198.51.100.1"));
        assert_eq!(t.client_ip(peer, &headers(&["1.1.1.1", "198.51.100.1:5555, 10.0.0.9"])), ip("198.51.100.1"), "headers join");
        assert_eq!(t.client_ip(peer, &headers(&["[2001:db8::1]:80"])), ip("2001:db8::1"));
        assert_eq!(t.client_ip(peer, &headers(&[])), peer, "nothing forwarded: the proxy itself");
        assert_eq!(t.client_ip(peer, &headers(&["10.0.0.5, 10.0.0.9"])), ip("10.0.0.5"), "every hop trusted: the first");
        assert_eq!(t.client_ip(peer, &headers(&["198.51.100.1, garbage, 10.0.0.9"])), ip("10.0.0.9"), "the walk stops at garbage");
    }
}
