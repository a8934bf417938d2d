//! Webhook endpoints: where an agent's events are delivered, and the rules for their addresses.
//! Only `https` to public addresses: a URL is a request Parley makes from inside its own
//! network, so an address that reaches loopback, a private range or cloud metadata
//! (169.254.169.254) would let any tenant probe it. `allow_private` (the operator's
//! `PARLEY_WEBHOOK_ALLOW_PRIVATE`, for tests and on-premise receivers) lifts both rules.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::{AgentId, EndpointId, EventSelection, SigningKey, Timestamp};
use crate::FieldError;

/// Longest URL accepted, as browsers and proxies commonly allow.
pub const MAX_URL_CHARS: usize = 2048;
/// Longest description.
pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// Where deliveries go: an absolute `https` URL (or `http` when private addresses are allowed)
/// without credentials, whose host, when written as an address, is public.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointUrl {
    url: url::Url,
}

impl EndpointUrl {
    pub fn new(raw: &str, allow_private: bool) -> Result<Self, FieldError> {
        let invalid = |why: &str| FieldError::new("url", why.to_string());
        let raw = raw.trim();
        if raw.chars().count() > MAX_URL_CHARS {
            return Err(invalid(&format!("must be at most {MAX_URL_CHARS} characters")));
        }
        let url = url::Url::parse(raw).map_err(|e| invalid(&format!("must be an absolute URL ({e})")))?;
        match url.scheme() {
            "https" => {}
            "http" if allow_private => {}
            _ => return Err(invalid("must be an https URL")),
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("must not carry a user name or password"));
        }
        if url.fragment().is_some() {
            return Err(invalid("must not have a #fragment (it is never sent)"));
        }
        let endpoint = Self { url };
        match endpoint.host() {
            Host::Name(_) => {}
            Host::Address(ip) if allow_private || is_public(ip) => {}
            Host::Address(_) => return Err(invalid("must not point at a loopback, private, link-local or other non-public address")),
        }
        Ok(endpoint)
    }

    /// A URL as stored: it passed [`new`](Self::new) when written, and its normalized form
    /// (percent-encoded, which can make it longer than the limit on what clients send) is read
    /// back as it is.
    pub fn stored(normalized: &str) -> Result<Self, String> {
        url::Url::parse(normalized).map(|url| Self { url }).map_err(|e| e.to_string())
    }

    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The host to connect to: a name (resolved at each delivery) or an address.
    pub fn host(&self) -> Host<'_> {
        match self.url.host() {
            Some(url::Host::Ipv4(ip)) => Host::Address(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Host::Address(IpAddr::V6(ip)),
            Some(url::Host::Domain(name)) => Host::Name(name),
            // `http` and `https` URLs always have a host: the parser refuses them without one.
            None => Host::Name(""),
        }
    }

    /// The port, the scheme's default when not written.
    pub fn port(&self) -> u16 {
        self.url.port_or_known_default().unwrap_or(443)
    }
}

/// An endpoint URL's host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host<'a> {
    Name(&'a str),
    Address(IpAddr),
}

/// Whether Parley may connect to `ip` for a tenant: not loopback, private, link-local, shared
/// (carrier-grade NAT), unspecified, broadcast, multicast, documentation, benchmarking or
/// reserved, in IPv4 or IPv6 (an IPv4 address mapped into IPv6 is judged as IPv4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (64..128).contains(&b)) // shared address space (carrier-grade NAT)
        || (a == 169 && b == 254) // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b))
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // documentation
        || (a == 192 && b == 168)
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || (a == 198 && b == 51 && c == 100) // documentation
        || (a == 203 && b == 0 && c == 113) // documentation
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local
        || (s[0] & 0xffc0) == 0xfe80 // link-local
        || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x0064 && s[1] == 0xff9b) // NAT64: reaches IPv4 addresses of any kind
        || (s[0] == 0x2002) // 6to4: the same
        || (s[0] == 0x2001 && s[1] == 0) // Teredo
        || s[..6] == [0, 0, 0, 0, 0, 0]) // IPv4-compatible (deprecated)
}

/// Checks what an endpoint URL's host name resolved to: at least one address, and (unless
/// `allow_private`) every one public, since a name with one private address among public ones
/// reaches it as well.
pub fn check_resolved(host: &str, addresses: &[IpAddr], allow_private: bool) -> Result<(), FieldError> {
    if addresses.is_empty() {
        return Err(FieldError::new("url", format!("its host {host} resolves to no address")));
    }
    match addresses.iter().find(|ip| !allow_private && !is_public(**ip)) {
        Some(ip) => Err(FieldError::new(
            "url",
            format!("its host {host} resolves to {ip}, a loopback, private, link-local or other non-public address"),
        )),
        None => Ok(()),
    }
}

/// An endpoint's free-text description: at most [`MAX_DESCRIPTION_CHARS`], trimmed; empty is none.
pub fn endpoint_description(raw: &str) -> Result<Option<String>, FieldError> {
    let text = super::text::bounded("description", raw, 0, MAX_DESCRIPTION_CHARS)?;
    Ok((!text.is_empty()).then_some(text))
}

/// The keys that sign an endpoint's deliveries: the current one always; after a rotation the
/// previous one too, until 24 hours later, so a receiver can switch without losing a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointSecrets {
    pub current: SigningKey,
    pub previous: Option<RotatedKey>,
}

/// A rotated key, still signing until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotatedKey {
    pub key: SigningKey,
    pub expires_at: Timestamp,
}

/// How long a rotated key keeps signing beside the new one.
pub const ROTATION_OVERLAP: chrono::TimeDelta = chrono::TimeDelta::hours(24);

impl EndpointSecrets {
    /// The keys that sign a delivery made at `now`, the current one first.
    pub fn signing(&self, now: Timestamp) -> Vec<&SigningKey> {
        let previous = self.previous.as_ref().filter(|p| p.expires_at > now).map(|p| &p.key);
        std::iter::once(&self.current).chain(previous).collect()
    }

    /// `new` becomes the current key; the current one signs beside it for [`ROTATION_OVERLAP`]
    /// (a key rotated out earlier stops at once: two keys sign at most).
    pub fn rotate(&mut self, new: SigningKey, now: Timestamp) {
        let old = std::mem::replace(&mut self.current, new);
        self.previous = Some(RotatedKey { key: old, expires_at: now + ROTATION_OVERLAP });
    }
}

/// Why an endpoint is off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisabledReason {
    /// Its owner set `enabled: false`.
    ByOwner,
    /// Its deliveries did nothing but fail for 3 days.
    Failing,
}

impl DisabledReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DisabledReason::ByOwner => "by_owner",
            DisabledReason::Failing => "failing",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        [DisabledReason::ByOwner, DisabledReason::Failing].into_iter().find(|r| r.as_str() == raw)
    }
}

/// When and why an endpoint was turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Disabled {
    pub at: Timestamp,
    pub reason: DisabledReason,
}

/// An agent's webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    pub id: EndpointId,
    pub agent_id: AgentId,
    pub url: EndpointUrl,
    pub events: EventSelection,
    pub description: Option<String>,
    pub secrets: EndpointSecrets,
    /// `None` while deliveries go out.
    pub disabled: Option<Disabled>,
    /// The first failure since the last success: 3 days of it disables the endpoint.
    pub failing_since: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl WebhookEndpoint {
    pub fn enabled(&self) -> bool {
        self.disabled.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> String {
        EndpointUrl::new(raw, false).unwrap_err().issue
    }

    #[test]
    fn https_urls_to_names_and_public_addresses_are_accepted() {
        for raw in
            ["https://example.com/hooks", "https://example.com:8443/a?b=c", "https://93.184.216.34/x", "https://[2606:2800:220:1::]/"]
        {
            assert!(EndpointUrl::new(raw, false).is_ok(), "{raw}");
        }
        assert_eq!(EndpointUrl::new("  https://Example.COM/h ", false).unwrap().as_str(), "https://example.com/h");
    }

    #[test]
    fn other_schemes_credentials_and_fragments_are_refused() {
        assert!(refused("http://example.com/").contains("https"));
        assert!(refused("ftp://example.com/").contains("https"));
        assert!(refused("example.com/hooks").contains("absolute"));
        assert!(refused("https://user:pw@example.com/").contains("password"));
        assert!(refused("https://example.com/#x").contains("fragment"));
        assert!(refused(&format!("https://example.com/{}", "a".repeat(MAX_URL_CHARS))).contains("at most"));
    }

    #[test]
    fn non_public_addresses_are_refused_unless_allowed() {
        for raw in [
            "https://127.0.0.1/",
            "https://10.0.0.1/",
            "https://172.16.5.4/",
            "https://192.168.1.1/",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/",
            "https://0.0.0.0/",
            "https://[::1]/",
            "https://[::ffff:127.0.0.1]/",
            "https://[fd00::1]/",
            "https://[fe80::1]/",
            "https://2130706433/", // 127.0.0.1 written as one number
            "https://0x7f.1/",
        ] {
            assert!(refused(raw).contains("non-public"), "{raw}");
            assert!(EndpointUrl::new(raw, true).is_ok(), "{raw} when allowed");
        }
        assert!(EndpointUrl::new("http://127.0.0.1:9000/hook", true).is_ok());
    }

    #[test]
    fn public_and_private_ranges_are_told_apart_at_their_edges() {
        let v4 = |s: &str| is_public(s.parse().unwrap());
        assert!(v4("172.15.255.255") && !v4("172.16.0.0") && !v4("172.31.255.255") && v4("172.32.0.0"));
        assert!(v4("100.63.255.255") && !v4("100.64.0.0") && !v4("100.127.255.255") && v4("100.128.0.0"));
        assert!(v4("8.8.8.8") && v4("1.1.1.1") && !v4("224.0.0.1") && !v4("255.255.255.255"));
        assert!(v4("2606:4700:4700::1111") && !v4("64:ff9b::7f00:1") && !v4("2001:db8::1"));
    }

    #[test]
    fn descriptions_are_trimmed_and_empty_is_none() {
        assert_eq!(endpoint_description("  Orders  ").unwrap().as_deref(), Some("Orders"));
        assert_eq!(endpoint_description("   ").unwrap(), None);
        assert!(endpoint_description(&"x".repeat(MAX_DESCRIPTION_CHARS + 1)).is_err());
    }
    #[test]
    fn a_rotated_key_signs_beside_the_new_one_for_a_day() {
        let t0 = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let (a, b, c) =
            (SigningKey::new(vec![1; 24]).unwrap(), SigningKey::new(vec![2; 24]).unwrap(), SigningKey::new(vec![3; 24]).unwrap());
        let mut secrets = EndpointSecrets { current: a.clone(), previous: None };
        assert_eq!(secrets.signing(t0), vec![&a]);
        secrets.rotate(b.clone(), t0);
        assert_eq!(secrets.signing(t0 + ROTATION_OVERLAP - chrono::TimeDelta::seconds(1)), vec![&b, &a]);
        assert_eq!(secrets.signing(t0 + ROTATION_OVERLAP), vec![&b]);
        secrets.rotate(c.clone(), t0 + chrono::TimeDelta::hours(1));
        assert_eq!(secrets.signing(t0 + chrono::TimeDelta::hours(1)), vec![&c, &b], "two keys at most");
    }

    #[test]
    fn a_long_url_reads_back_whole_once_encoded() {
        let url = EndpointUrl::new(&format!("https://example.com/{}", "é".repeat(1000)), false).unwrap();
        assert!(url.as_str().len() > MAX_URL_CHARS, "percent-encoding made it longer");
        assert_eq!(EndpointUrl::stored(url.as_str()).unwrap(), url);
    }

    #[test]
    fn disabled_reasons_parse_exactly() {
        for r in [DisabledReason::ByOwner, DisabledReason::Failing] {
            assert_eq!(DisabledReason::parse(r.as_str()), Some(r));
        }
        assert_eq!(DisabledReason::parse("Failing"), None);
    }
    #[test]
    fn a_name_is_refused_when_any_of_its_addresses_is_not_public() {
        let ips = |list: &[&str]| list.iter().map(|s| s.parse().unwrap()).collect::<Vec<IpAddr>>();
        assert!(check_resolved("example.com", &ips(&["93.184.216.34", "2606:2800:220:1::"]), false).is_ok());
        let e = check_resolved("sneaky.example", &ips(&["93.184.216.34", "::1"]), false).unwrap_err();
        assert!(e.issue.contains("::1"), "{}", e.issue);
        assert!(check_resolved("sneaky.example", &ips(&["::1"]), true).is_ok(), "allowed");
        assert!(check_resolved("nothing.example", &[], true).unwrap_err().issue.contains("no address"));
    }
}
