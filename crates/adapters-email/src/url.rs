//! Mail server URLs: `smtp://host[:port]` (plain), `smtps://host[:port]` (implicit TLS),
//! `imap://host[:port]` (plain), `imaps://host[:port]` (implicit TLS). Credentials are
//! configured apart, so a URL carrying them (or a path or query) is refused, as is any other
//! scheme.

use std::fmt;

/// Which protocol a [`ServerUrl`] speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Smtp,
    Imap,
}

/// A validated mail server address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerUrl {
    pub protocol: Protocol,
    /// A host name or an IP address (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// Implicit TLS from the first byte (`smtps`, `imaps`); otherwise plain.
    pub tls: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("not a URL: {0}")]
    Invalid(String),
    #[error("unsupported scheme {found:?}: use {expected}")]
    Scheme { found: String, expected: &'static str },
    #[error("the URL has no host")]
    MissingHost,
    #[error("the URL may only name a host and a port (credentials are configured apart)")]
    ExtraParts,
}

impl ServerUrl {
    /// An SMTP server: `smtp://host[:port]` (port 25) or `smtps://host[:port]` (port 465).
    pub fn smtp(url: &str) -> Result<Self, UrlError> {
        Self::parse(url, Protocol::Smtp)
    }

    /// An IMAP server: `imap://host[:port]` (port 143) or `imaps://host[:port]` (port 993).
    pub fn imap(url: &str) -> Result<Self, UrlError> {
        Self::parse(url, Protocol::Imap)
    }

    fn parse(text: &str, protocol: Protocol) -> Result<Self, UrlError> {
        let url = url::Url::parse(text.trim()).map_err(|e| UrlError::Invalid(e.to_string()))?;
        let (tls, default_port, expected) = match (protocol, url.scheme()) {
            (Protocol::Smtp, "smtp") => (false, 25, ""),
            (Protocol::Smtp, "smtps") => (true, 465, ""),
            (Protocol::Imap, "imap") => (false, 143, ""),
            (Protocol::Imap, "imaps") => (true, 993, ""),
            (Protocol::Smtp, _) => (false, 0, "smtp://host:port or smtps://host:port"),
            (Protocol::Imap, _) => (false, 0, "imap://host:port or imaps://host:port"),
        };
        if !expected.is_empty() {
            return Err(UrlError::Scheme { found: url.scheme().to_owned(), expected });
        }
        if !url.username().is_empty()
            || url.password().is_some()
            || !matches!(url.path(), "" | "/")
            || url.query().is_some()
            || url.fragment().is_some()
        {
            return Err(UrlError::ExtraParts);
        }
        let host = match url.host() {
            Some(url::Host::Domain(domain)) if !domain.is_empty() => domain.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            _ => return Err(UrlError::MissingHost),
        };
        Ok(Self { protocol, host, port: url.port().unwrap_or(default_port), tls })
    }
}

impl fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = match (self.protocol, self.tls) {
            (Protocol::Smtp, false) => "smtp",
            (Protocol::Smtp, true) => "smtps",
            (Protocol::Imap, false) => "imap",
            (Protocol::Imap, true) => "imaps",
        };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_default_ports() {
        let url = ServerUrl::smtp("smtp://mail.example.com").unwrap();
        assert_eq!((url.host.as_str(), url.port, url.tls), ("mail.example.com", 25, false));
        let url = ServerUrl::smtp("smtps://mail.example.com").unwrap();
        assert_eq!((url.port, url.tls), (465, true));
        let url = ServerUrl::imap("imap://127.0.0.1:10143").unwrap();
        assert_eq!((url.host.as_str(), url.port, url.tls), ("127.0.0.1", 10143, false));
        let url = ServerUrl::imap("imaps://[::1]/").unwrap();
        assert_eq!((url.host.as_str(), url.port, url.tls), ("::1", 993, true));
        assert_eq!(url.to_string(), "imaps://[::1]:993");
    }

    #[test]
    fn other_schemes_are_refused_with_the_expected_ones() {
        let err = ServerUrl::smtp("imap://host").unwrap_err();
        assert!(err.to_string().contains("smtp://host:port"), "{err}");
        let err = ServerUrl::imap("https://host").unwrap_err();
        assert!(matches!(err, UrlError::Scheme { .. }), "{err}");
        assert!(matches!(ServerUrl::imap("nonsense"), Err(UrlError::Invalid(_))));
    }

    #[test]
    fn credentials_paths_and_missing_hosts_are_refused() {
        assert_eq!(ServerUrl::smtp("smtp://user:pw@host:25"), Err(UrlError::ExtraParts));
        assert_eq!(ServerUrl::imap("imap://host/INBOX"), Err(UrlError::ExtraParts));
        assert_eq!(ServerUrl::imap("imap://host?x=1"), Err(UrlError::ExtraParts));
        assert!(ServerUrl::smtp("smtp://:25").is_err());
    }
}
