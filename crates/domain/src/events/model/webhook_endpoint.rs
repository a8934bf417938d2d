//! Webhook endpoints: where an agent's events are delivered, and the rules for their addresses.
//! Only `https` to public addresses: a URL is a request Parley makes from inside its own
//! network, so an address that reaches loopback, a private range or cloud metadata
//! (169.254.169.254) would let any tenant probe it. `allow_private` (the operator's
//! `PARLEY_WEBHOOK_ALLOW_PRIVATE`, for tests and on-premise receivers) lifts both rules.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::FieldError;
use crate::model::{AgentId, EndpointId, EventSelection, SigningKey, Timestamp};

/// The operator's setting that lifts the address rules, named in their refusals so that a
/// developer testing against a local receiver learns how to allow it.
pub const ALLOW_PRIVATE: &str = "PARLEY_WEBHOOK_ALLOW_PRIVATE=true";

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
    /// `raw` trimmed and normalized; a `FieldError` on `url` when longer than
    /// [`MAX_URL_CHARS`], not absolute, not `https` (`http` too when `allow_private`), carrying a
    /// user name, password or fragment, or with a non-public address for host (unless
    /// `allow_private`). A host name is checked when it resolves ([`check_resolved`]).
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
            "http" => {
                return Err(invalid(&format!(
                    "must be an https URL (http only for a private receiver, on a server run with {ALLOW_PRIVATE})"
                )));
            }
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
            Host::Address(_) => {
                return Err(invalid(&format!(
                    "must not point at a loopback, private, link-local or other non-public address (allowed on a server run with {ALLOW_PRIVATE})"
                )));
            }
        }
        Ok(endpoint)
    }

    /// A URL as stored: it passed [`new`](Self::new) when written, and its normalized form
    /// (percent-encoded, which can make it longer than the limit on what clients send) is read
    /// back as it is.
    pub fn stored(normalized: &str) -> Result<Self, String> {
        url::Url::parse(normalized).map(|url| Self { url }).map_err(|e| e.to_string())
    }

    /// The URL, normalized.
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
    /// A name, resolved at each delivery.
    Name(&'a str),
    /// An address, written in the URL.
    Address(IpAddr),
}

/// Whether Parley may connect to `ip` for a tenant: whether the address is globally reachable
/// by the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates, RFC
/// 8190), read row by row in [`IPV4_BLOCKS`] and [`IPV6_BLOCKS`]. The most specific block holding
/// the address decides, so a globally reachable assignment inside a refused block (PCP anycast
/// 192.0.0.9 inside 192.0.0.0/24, AMT 2001:3::/32 inside 2001::/23) is allowed as the registry
/// says. Addresses outside every special-purpose block follow the address-space registries: IPv4
/// multicast is refused, and in IPv6 only Global Unicast (2000::/3) is public, the rest being
/// reserved by the IETF, unique-local, link-scoped or multicast. IPv6 blocks whose addresses
/// stand for IPv4 addresses (mapped, NAT64, 6to4, Teredo) are refused whatever IPv4 address they
/// carry: a translator or relay would take the connection to it.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        // IPv4 blocks are compared as `::a.b.c.d/(96 + n)`, so one comparison serves both.
        IpAddr::V4(v4) => {
            most_specific(u32::from(v4).into(), IPV4_BLOCKS.iter().map(|b| (u32::from(b.network).into(), b.length + 96, b.public)))
        }
        IpAddr::V6(v6) => most_specific(v6.into(), IPV6_BLOCKS.iter().map(|b| (b.network.into(), b.length, b.public))),
    }
}

/// Whether the longest of `blocks` (network, prefix length, public) holding `ip` is public;
/// both tables start with a `/0` row, so one always does.
fn most_specific(ip: u128, blocks: impl Iterator<Item = (u128, u8, bool)>) -> bool {
    blocks
        .filter(|&(network, length, _)| {
            let mask = if length == 0 { 0 } else { u128::MAX << (128 - u32::from(length)) };
            ip & mask == network & mask
        })
        .max_by_key(|&(_, length, _)| length)
        .is_some_and(|(_, _, public)| public)
}

/// A row of an address registry: the block, and whether Parley connects to addresses in it.
#[derive(Debug, Clone, Copy)]
pub struct AddressBlock<A> {
    /// The block's first address.
    pub network: A,
    /// Its prefix length, in bits.
    pub length: u8,
    /// The registry's name for it.
    pub name: &'static str,
    /// The registry's "Globally Reachable" column, except where a comment says otherwise.
    pub public: bool,
}

const fn v4(network: Ipv4Addr, length: u8, name: &'static str, public: bool) -> AddressBlock<Ipv4Addr> {
    AddressBlock { network, length, name, public }
}

const fn v6(network: Ipv6Addr, length: u8, name: &'static str, public: bool) -> AddressBlock<Ipv6Addr> {
    AddressBlock { network, length, name, public }
}

const fn a4(a: u8, b: u8, c: u8, d: u8) -> Ipv4Addr {
    Ipv4Addr::new(a, b, c, d)
}

#[expect(clippy::too_many_arguments, reason = "an IPv6 address is eight groups")]
const fn a6(a: u16, b: u16, c: u16, d: u16, e: u16, f: u16, g: u16, h: u16) -> Ipv6Addr {
    Ipv6Addr::new(a, b, c, d, e, f, g, h)
}

/// The IANA IPv4 Special-Purpose Address Registry, every row (RFC 6890 as updated by RFC 8190 and
/// later assignments), after the rows of the IPv4 address space it refines.
pub const IPV4_BLOCKS: &[AddressBlock<Ipv4Addr>] = &[
    // Not special-purpose: allocated to the regional registries, public.
    v4(a4(0, 0, 0, 0), 0, "(the IPv4 address space)", true),
    // IANA IPv4 Address Space Registry, not the special-purpose one.
    v4(a4(224, 0, 0, 0), 4, "Multicast", false),
    // The special-purpose registry, in its order.
    v4(a4(0, 0, 0, 0), 8, "\"This network\"", false),
    v4(a4(0, 0, 0, 0), 32, "\"This host on this network\"", false),
    v4(a4(10, 0, 0, 0), 8, "Private-Use", false),
    v4(a4(100, 64, 0, 0), 10, "Shared Address Space", false),
    v4(a4(127, 0, 0, 0), 8, "Loopback", false),
    v4(a4(169, 254, 0, 0), 16, "Link Local", false),
    v4(a4(172, 16, 0, 0), 12, "Private-Use", false),
    // "Not usable unless by virtue of a more specific reservation": the rows below.
    v4(a4(192, 0, 0, 0), 24, "IETF Protocol Assignments", false),
    v4(a4(192, 0, 0, 0), 29, "IPv4 Service Continuity Prefix", false),
    v4(a4(192, 0, 0, 8), 32, "IPv4 dummy address", false),
    v4(a4(192, 0, 0, 9), 32, "Port Control Protocol Anycast", true),
    v4(a4(192, 0, 0, 10), 32, "Traversal Using Relays around NAT Anycast", true),
    v4(a4(192, 0, 0, 170), 32, "NAT64/DNS64 Discovery", false),
    v4(a4(192, 0, 0, 171), 32, "NAT64/DNS64 Discovery", false),
    v4(a4(192, 0, 2, 0), 24, "Documentation (TEST-NET-1)", false),
    v4(a4(192, 31, 196, 0), 24, "AS112-v4", true),
    v4(a4(192, 52, 193, 0), 24, "AMT", true),
    // Deprecated by RFC 7526, which removed the row's values (blank, "N/A"): its relays lead
    // into IPv6 space of any kind, refused.
    v4(a4(192, 88, 99, 0), 24, "Deprecated (6to4 Relay Anycast)", false),
    v4(a4(192, 88, 99, 2), 32, "6a44-relay anycast address", false),
    v4(a4(192, 168, 0, 0), 16, "Private-Use", false),
    v4(a4(192, 175, 48, 0), 24, "Direct Delegation AS112 Service", true),
    v4(a4(198, 18, 0, 0), 15, "Benchmarking", false),
    v4(a4(198, 51, 100, 0), 24, "Documentation (TEST-NET-2)", false),
    v4(a4(203, 0, 113, 0), 24, "Documentation (TEST-NET-3)", false),
    v4(a4(240, 0, 0, 0), 4, "Reserved", false),
    v4(a4(255, 255, 255, 255), 32, "Limited Broadcast", false),
];

/// The IANA IPv6 Special-Purpose Address Registry, every row, after the rows of the IPv6
/// address space registry it refines.
pub const IPV6_BLOCKS: &[AddressBlock<Ipv6Addr>] = &[
    // IANA IPv6 Address Space Registry: all of it is reserved by the IETF (::/8 holds the
    // deprecated IPv4-compatible ::/96 and SIIT's IPv4-translated ::ffff:0:0:0/96, 5f00::/16
    // lies in 4000::/3, fec0::/10 is the deprecated site-local) except these.
    v6(a6(0, 0, 0, 0, 0, 0, 0, 0), 0, "Reserved by IETF", false),
    v6(a6(0x2000, 0, 0, 0, 0, 0, 0, 0), 3, "Global Unicast", true),
    v6(a6(0xff00, 0, 0, 0, 0, 0, 0, 0), 8, "Multicast", false),
    // The special-purpose registry, in its order.
    v6(a6(0, 0, 0, 0, 0, 0, 0, 1), 128, "Loopback Address", false),
    v6(a6(0, 0, 0, 0, 0, 0, 0, 0), 128, "Unspecified Address", false),
    // Connects to the IPv4 address it maps: refused whichever it is (the registry: False).
    v6(a6(0, 0, 0, 0, 0, 0xffff, 0, 0), 96, "IPv4-mapped Address", false),
    // The registry says True, but a NAT64 reaches IPv4 addresses of any kind: refused.
    v6(a6(0x64, 0xff9b, 0, 0, 0, 0, 0, 0), 96, "IPv4-IPv6 Translat.", false),
    v6(a6(0x64, 0xff9b, 1, 0, 0, 0, 0, 0), 48, "IPv4-IPv6 Translat.", false),
    v6(a6(0x100, 0, 0, 0, 0, 0, 0, 0), 64, "Discard-Only Address Block", false),
    v6(a6(0x100, 0, 0, 1, 0, 0, 0, 0), 64, "Dummy IPv6 Prefix", false),
    // False "unless allowed by a more specific allocation": the True rows below.
    v6(a6(0x2001, 0, 0, 0, 0, 0, 0, 0), 23, "IETF Protocol Assignments", false),
    // "N/A": tunnels to an IPv4 address it carries: refused.
    v6(a6(0x2001, 0, 0, 0, 0, 0, 0, 0), 32, "TEREDO", false),
    v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 1), 128, "Port Control Protocol Anycast", true),
    v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 2), 128, "Traversal Using Relays around NAT Anycast", true),
    v6(a6(0x2001, 1, 0, 0, 0, 0, 0, 3), 128, "DNS-SD Service Registration Protocol Anycast", true),
    v6(a6(0x2001, 2, 0, 0, 0, 0, 0, 0), 48, "Benchmarking", false),
    v6(a6(0x2001, 3, 0, 0, 0, 0, 0, 0), 32, "AMT", true),
    v6(a6(0x2001, 4, 0x112, 0, 0, 0, 0, 0), 48, "AS112-v6", true),
    v6(a6(0x2001, 0x10, 0, 0, 0, 0, 0, 0), 28, "Deprecated (previously ORCHID)", false),
    v6(a6(0x2001, 0x20, 0, 0, 0, 0, 0, 0), 28, "ORCHIDv2", true),
    v6(a6(0x2001, 0x30, 0, 0, 0, 0, 0, 0), 28, "Drone Remote ID Protocol Entity Tags (DETs) Prefix", true),
    v6(a6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0), 32, "Documentation", false),
    // "N/A": reaches the IPv4 address it carries through a relay: refused.
    v6(a6(0x2002, 0, 0, 0, 0, 0, 0, 0), 16, "6to4", false),
    v6(a6(0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0), 48, "Direct Delegation AS112 Service", true),
    v6(a6(0x3fff, 0, 0, 0, 0, 0, 0, 0), 20, "Documentation", false),
    v6(a6(0x5f00, 0, 0, 0, 0, 0, 0, 0), 16, "Segment Routing (SRv6) SIDs", false),
    v6(a6(0xfc00, 0, 0, 0, 0, 0, 0, 0), 7, "Unique-Local", false),
    v6(a6(0xfe80, 0, 0, 0, 0, 0, 0, 0), 10, "Link-Local Unicast", false),
];

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
            format!(
                "its host {host} resolves to {ip}, a loopback, private, link-local or other non-public address (allowed on a server run with {ALLOW_PRIVATE})"
            ),
        )),
        None => Ok(()),
    }
}

/// An endpoint's free-text description: at most [`MAX_DESCRIPTION_CHARS`], trimmed; empty is none.
pub fn endpoint_description(raw: &str) -> Result<Option<String>, FieldError> {
    let text = crate::model::text::bounded("description", raw, 0, MAX_DESCRIPTION_CHARS)?;
    Ok((!text.is_empty()).then_some(text))
}

/// The keys that sign an endpoint's deliveries: the current one always; after a rotation the
/// previous one too, until 24 hours later, so a receiver can switch without losing a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointSecrets {
    /// The key that signs every delivery.
    pub current: SigningKey,
    /// The key rotated out, still signing until it expires; `None` without a recent rotation.
    pub previous: Option<RotatedKey>,
}

/// A rotated key, still signing until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotatedKey {
    /// The rotated-out key.
    pub key: SigningKey,
    /// When it stops signing: [`ROTATION_OVERLAP`] after the rotation.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisabledReason {
    /// Its owner set `enabled: false`.
    ByOwner,
    /// Its deliveries did nothing but fail for 3 days.
    Failing,
}

impl DisabledReason {
    /// Its wire name: `by_owner` or `failing`.
    pub fn as_str(self) -> &'static str {
        match self {
            DisabledReason::ByOwner => "by_owner",
            DisabledReason::Failing => "failing",
        }
    }

    /// The reason named exactly `raw`; `None` otherwise.
    pub fn parse(raw: &str) -> Option<Self> {
        [DisabledReason::ByOwner, DisabledReason::Failing].into_iter().find(|r| r.as_str() == raw)
    }
}

/// When and why an endpoint was turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Disabled {
    /// When it was turned off.
    pub at: Timestamp,
    /// Why.
    pub reason: DisabledReason,
}

/// An agent's webhook endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookEndpoint {
    /// Its id (`we_…`).
    pub id: EndpointId,
    /// The agent whose events it receives.
    pub agent_id: AgentId,
    /// Where deliveries go.
    pub url: EndpointUrl,
    /// Which event types it receives.
    pub events: EventSelection,
    /// The owner's note about it, at most [`MAX_DESCRIPTION_CHARS`]; `None` when empty.
    pub description: Option<String>,
    /// The keys that sign its deliveries.
    pub secrets: EndpointSecrets,
    /// `None` while deliveries go out.
    pub disabled: Option<Disabled>,
    /// The first failure since the last success: 3 days of it disables the endpoint.
    pub failing_since: Option<Timestamp>,
    /// The circuit breaker: after a failure of an endpoint already failing, none of its
    /// deliveries is claimed before this time (a receiver that hangs stops holding slots).
    pub paused_until: Option<Timestamp>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When its owner last changed it (URL, events, description, enabled, secret); deliveries
    /// failing, the breaker and a disabling for failures leave it.
    pub updated_at: Timestamp,
}

impl WebhookEndpoint {
    /// Whether deliveries go out to it (it is not disabled).
    pub fn enabled(&self) -> bool {
        self.disabled.is_none()
    }

    /// The endpoint as its owner may see it, without its keys or delivery state.
    pub fn public(&self) -> PublicEndpoint {
        PublicEndpoint {
            id: self.id.clone(),
            url: self.url.clone(),
            events: self.events.clone(),
            description: self.description.clone(),
            disabled: self.disabled,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

/// An endpoint as the API shows it: never its keys (an event reporting it is stored, listed and
/// sent to the endpoint itself).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PublicEndpoint {
    /// Its id (`we_…`).
    pub id: EndpointId,
    /// Where deliveries go.
    pub url: EndpointUrl,
    /// Which event types it receives.
    pub events: EventSelection,
    /// The owner's note about it; `None` when empty.
    pub description: Option<String>,
    /// `None` while deliveries go out.
    pub disabled: Option<Disabled>,
    /// When it was made.
    pub created_at: Timestamp,
    /// When its owner last changed it.
    pub updated_at: Timestamp,
}

impl PublicEndpoint {
    /// Whether deliveries go out to it (it is not disabled).
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
        assert!(refused("http://example.com/").contains(ALLOW_PRIVATE), "the refusal says how a private receiver is allowed");
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

    /// Every row of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
    /// updates): the block, its "Globally Reachable" column, an address inside it, and whether
    /// Parley connects to it. They agree except where the last column says why not.
    const REGISTRY_ROWS: &[(&str, &str, &str, bool, &str)] = &[
        // IPv4 Special-Purpose Address Registry
        ("0.0.0.0/8", "False", "0.1.2.3", false, ""),
        ("0.0.0.0/32", "False", "0.0.0.0", false, ""),
        ("10.0.0.0/8", "False", "10.20.30.40", false, ""),
        ("100.64.0.0/10", "False", "100.100.100.100", false, ""),
        ("127.0.0.0/8", "False", "127.0.0.1", false, ""),
        ("169.254.0.0/16", "False", "169.254.169.254", false, ""),
        ("172.16.0.0/12", "False", "172.20.0.1", false, ""),
        ("192.0.0.0/24", "False", "192.0.0.100", false, ""),
        ("192.0.0.0/29", "False", "192.0.0.1", false, ""),
        ("192.0.0.8/32", "False", "192.0.0.8", false, ""),
        ("192.0.0.9/32", "True", "192.0.0.9", true, ""),
        ("192.0.0.10/32", "True", "192.0.0.10", true, ""),
        ("192.0.0.170/32", "False", "192.0.0.170", false, ""),
        ("192.0.0.171/32", "False", "192.0.0.171", false, ""),
        ("192.0.2.0/24", "False", "192.0.2.1", false, ""),
        ("192.31.196.0/24", "True", "192.31.196.1", true, ""),
        ("192.52.193.0/24", "True", "192.52.193.1", true, ""),
        ("192.88.99.0/24", "N/A", "192.88.99.1", false, "deprecated (RFC 7526 removed its values): refused"),
        ("192.88.99.2/32", "False", "192.88.99.2", false, ""),
        ("192.168.0.0/16", "False", "192.168.1.1", false, ""),
        ("192.175.48.0/24", "True", "192.175.48.6", true, ""),
        ("198.18.0.0/15", "False", "198.19.255.1", false, ""),
        ("198.51.100.0/24", "False", "198.51.100.7", false, ""),
        ("203.0.113.0/24", "False", "203.0.113.9", false, ""),
        ("240.0.0.0/4", "False", "250.1.2.3", false, ""),
        ("255.255.255.255/32", "False", "255.255.255.255", false, ""),
        // IPv6 Special-Purpose Address Registry
        ("::1/128", "False", "::1", false, ""),
        ("::/128", "False", "::", false, ""),
        ("::ffff:0:0/96", "False", "::ffff:8.8.8.8", false, ""),
        ("64:ff9b::/96", "True", "64:ff9b::808:808", false, "reaches IPv4 addresses of any kind through a NAT64: refused"),
        ("64:ff9b:1::/48", "False", "64:ff9b:1::a00:1", false, ""),
        ("100::/64", "False", "100::1", false, ""),
        ("100:0:0:1::/64", "False", "100:0:0:1::1", false, ""),
        ("2001::/23", "False", "2001:100::1", false, ""),
        ("2001::/32", "N/A", "2001:0:4136:e378:8000:63bf:3fff:fdd2", false, "Teredo reaches the IPv4 address it carries: refused"),
        ("2001:1::1/128", "True", "2001:1::1", true, ""),
        ("2001:1::2/128", "True", "2001:1::2", true, ""),
        ("2001:1::3/128", "True", "2001:1::3", true, ""),
        ("2001:2::/48", "False", "2001:2::1", false, ""),
        ("2001:3::/32", "True", "2001:3::1", true, ""),
        ("2001:4:112::/48", "True", "2001:4:112::1", true, ""),
        ("2001:10::/28", "False", "2001:10::1", false, ""),
        ("2001:20::/28", "True", "2001:20::1", true, ""),
        ("2001:30::/28", "True", "2001:30::1", true, ""),
        ("2001:db8::/32", "False", "2001:db8::1", false, ""),
        ("2002::/16", "N/A", "2002:c000:201::1", false, "6to4 reaches the IPv4 address it carries: refused"),
        ("2620:4f:8000::/48", "True", "2620:4f:8000::1", true, ""),
        ("3fff::/20", "False", "3fff:fff::1", false, ""),
        ("5f00::/16", "False", "5f00::1", false, ""),
        ("fc00::/7", "False", "fd12:3456::1", false, ""),
        ("fe80::/10", "False", "fe80::1", false, ""),
    ];

    fn parse_block(block: &str) -> (IpAddr, u8) {
        let (network, length) = block.split_once('/').unwrap();
        (network.parse().unwrap(), length.parse().unwrap())
    }

    /// Whether `ip` is in the block, by comparing the block's leading bits (IPv4 moved to the top).
    fn contains((network, length): (IpAddr, u8), ip: IpAddr) -> bool {
        let top = |ip: IpAddr| match ip {
            IpAddr::V4(v4) => (u128::from(u32::from(v4)) << 96, 4),
            IpAddr::V6(v6) => (u128::from(v6), 6),
        };
        let ((network, family), (ip, ip_family)) = (top(network), top(ip));
        family == ip_family && (length == 0 || (network ^ ip) >> (128 - u32::from(length)) == 0)
    }

    #[test]
    fn every_special_purpose_registry_row_is_judged_as_the_registry_says() {
        for &(block, globally_reachable, inside, public, why_not) in REGISTRY_ROWS {
            let ip: IpAddr = inside.parse().unwrap();
            assert!(contains(parse_block(block), ip), "{inside} is not in {block}");
            assert_eq!(is_public(ip), public, "{block} ({globally_reachable}): {inside}");
            // "N/A" always says what Parley does; True or False only where Parley departs from it.
            let departs = globally_reachable == "N/A" || public != (globally_reachable == "True");
            assert_eq!(departs, !why_not.is_empty(), "{block}: say why Parley departs from the registry, and only then");
            let url = match ip {
                IpAddr::V4(_) => format!("https://{ip}/hook"),
                IpAddr::V6(_) => format!("https://[{ip}]/hook"),
            };
            assert_eq!(EndpointUrl::new(&url, false).is_ok(), public, "{url}");
        }
        // The code's tables hold the same rows, no more, no fewer (beside the address-space rows).
        let code_rows: Vec<(IpAddr, u8)> = IPV4_BLOCKS
            .iter()
            .map(|b| (IpAddr::V4(b.network), b.length))
            .chain(IPV6_BLOCKS.iter().map(|b| (IpAddr::V6(b.network), b.length)))
            .collect();
        for &(block, ..) in REGISTRY_ROWS {
            assert!(code_rows.contains(&parse_block(block)), "{block} has no row in the code's tables");
        }
        let address_space = ["0.0.0.0/0", "224.0.0.0/4", "::/0", "2000::/3", "ff00::/8"].map(parse_block);
        for row in &code_rows {
            assert!(
                REGISTRY_ROWS.iter().any(|r| parse_block(r.0) == *row) || address_space.contains(row),
                "{row:?} is in the code but not in the registry rows"
            );
        }
    }

    #[test]
    fn outside_the_special_purpose_blocks_the_address_space_registries_decide() {
        let public = |s: &str| is_public(s.parse().unwrap());
        // IPv4: allocated unicast is public, multicast is not.
        assert!(public("8.8.8.8") && public("1.1.1.1") && public("223.255.255.254"));
        assert!(!public("224.0.0.1") && !public("239.255.255.250"));
        // IPv6: only Global Unicast (2000::/3) is; the rest is reserved, unique-local,
        // link-scoped or multicast.
        assert!(public("2606:4700:4700::1111") && public("2a00:1450:4001::1"));
        for reserved in ["::ffff:0:7f00:1", "::127.0.0.1", "::8.8.8.8", "1::1", "4000::1", "fec0::1", "ff02::1", "fe00::1"] {
            assert!(!public(reserved), "{reserved}");
        }
    }

    #[test]
    fn the_ranges_the_probe_found_accepted_are_refused() {
        for raw in ["https://[::ffff:0:7f00:1]/", "https://[2001:2::1]/", "https://[100::1]/", "https://192.88.99.1/"] {
            assert!(refused(raw).contains("non-public"), "{raw}");
        }
    }

    #[test]
    fn globally_reachable_assignments_inside_refused_blocks_are_told_apart_at_their_edges() {
        let public = |s: &str| is_public(s.parse().unwrap());
        assert!(!public("192.0.0.8") && public("192.0.0.9") && public("192.0.0.10") && !public("192.0.0.11"));
        assert!(!public("2001:1::") && public("2001:1::1") && public("2001:1::3") && !public("2001:1::4"));
        assert!(!public("2001:2:ffff::1") && public("2001:3::") && public("2001:3:ffff:ffff:ffff:ffff:ffff:ffff") && !public("2001:4::"));
        assert!(!public("2001:4:111:ffff::1") && public("2001:4:112::") && !public("2001:4:113::"));
        assert!(!public("2001:1ff:ffff::1") && public("2001:200::1"), "2001::/23 ends at 2001:1ff:…");
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
        assert!(e.issue.contains(ALLOW_PRIVATE), "{}", e.issue);
        assert!(check_resolved("sneaky.example", &ips(&["::1"]), true).is_ok(), "allowed");
        assert!(check_resolved("nothing.example", &[], true).unwrap_err().issue.contains("no address"));
    }
}
