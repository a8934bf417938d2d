//! Settings of the HTTP API beyond the database: where storefronts live and which browser
//! origins may call the catalog and cart endpoints.

use std::time::Duration;

/// Browser origins allowed on the publishable-key endpoints.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum CorsOrigins {
    /// `*`: any origin (the default; catalog data is public).
    #[default]
    Any,
    /// Only these exact origins, e.g. `https://shop.example.com`.
    List(Vec<String>),
}

impl CorsOrigins {
    /// `*`, or a comma-separated list of `scheme://host[:port]` origins.
    pub fn parse(raw: &str) -> Result<Self, String> {
        let raw = raw.trim();
        if raw == "*" {
            return Ok(Self::Any);
        }
        let origins: Vec<String> = raw.split(',').map(|o| o.trim().trim_end_matches('/').to_string()).filter(|o| !o.is_empty()).collect();
        if origins.is_empty() {
            return Err("PARLEY_CORS_ORIGINS must be * or a comma-separated list of origins".into());
        }
        for o in &origins {
            let rest = o.strip_prefix("https://").or_else(|| o.strip_prefix("http://"));
            if rest.is_none_or(|r| r.is_empty() || r.contains('/')) {
                return Err(format!("{o:?} is not an origin like https://shop.example.com"));
            }
        }
        Ok(Self::List(origins))
    }
}

#[derive(Debug, Clone, Default)]
pub struct ApiConfig {
    /// When set, a created cart also answers `url` = `{storefront_url}/c/<code>`.
    pub storefront_url: Option<String>,
    pub cors_origins: CorsOrigins,
    /// `hub.verify_token` the platform's subscription handshake must present.
    pub whatsapp_verify_token: Option<String>,
    /// The app secret that signs webhook deliveries (`X-Hub-Signature-256`).
    pub whatsapp_app_secret: Option<String>,
    /// `GET /metrics` is served on an address of its own (`PARLEY_METRICS_BIND`), not on the API's.
    pub separate_metrics_address: bool,
    /// Off by default; `parley serve` passes its flags' (the product's limits unless changed).
    pub rate_limits: crate::runtime::limits::RateLimitConfig,
    /// How long a request's body may take to arrive (15 s unless `parley serve` is told otherwise).
    pub body_deadline: BodyDeadline,
    /// Webhook deliveries are only stored here, for the instances that process them
    /// (`PARLEY_WEBHOOK_PROCESSING=false`); otherwise each is processed as it arrives.
    pub ingest_only: bool,
    /// Webhook endpoints may use `http` and reach private addresses
    /// (`PARLEY_WEBHOOK_ALLOW_PRIVATE=true`: tests and on-premise receivers).
    pub webhook_allow_private: bool,
    /// How long a webhook endpoint has to answer a delivery; `None`: 10 s (tests shorten it).
    pub webhook_send_timeout: Option<std::time::Duration>,
    /// How many webhook endpoints each agent may have (`PARLEY_WEBHOOK_ENDPOINTS_MAX`); `None`:
    /// the domain's default, 16.
    pub webhook_endpoints_max: Option<u32>,
    /// How long an event stream stays quiet before its comment line (`PARLEY_STREAM_HEARTBEAT_SECS`);
    /// `None`: 15 s.
    pub stream_heartbeat: Option<std::time::Duration>,
}

impl ApiConfig {
    /// Meta's app secret and verify token, which prove WhatsApp's and Instagram's webhooks: the
    /// platforms are built with them (`runtime::platform`).
    pub fn meta_signature(&self) -> parley_adapters_whatsapp::MetaSignature {
        parley_adapters_whatsapp::MetaSignature {
            app_secret: self.whatsapp_app_secret.clone(),
            verify_token: self.whatsapp_verify_token.clone(),
        }
    }
}

/// Checks a storefront base URL and drops a trailing slash.
pub fn parse_storefront_url(raw: &str) -> Result<String, String> {
    let url = raw.trim().trim_end_matches('/');
    let host = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match host {
        Some(h) if !h.is_empty() && !url.contains(char::is_whitespace) => Ok(url.to_string()),
        _ => Err(format!("PARLEY_STOREFRONT_URL must be an http(s) URL, got {raw:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_star_or_a_list() {
        assert_eq!(CorsOrigins::parse("*").unwrap(), CorsOrigins::Any);
        assert_eq!(
            CorsOrigins::parse("https://a.com, http://localhost:3000/").unwrap(),
            CorsOrigins::List(vec!["https://a.com".into(), "http://localhost:3000".into()])
        );
        assert!(CorsOrigins::parse("a.com").is_err());
        assert!(CorsOrigins::parse("https://a.com/path").is_err());
        assert!(CorsOrigins::parse(" , ").is_err());
    }

    #[test]
    fn storefront_urls_are_http_and_lose_trailing_slashes() {
        assert_eq!(parse_storefront_url("https://shop.example.com/").unwrap(), "https://shop.example.com");
        assert!(parse_storefront_url("shop.example.com").is_err());
    }
}

/// How long a request's body may take to arrive (`http::body_deadline` enforces it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyDeadline(pub Duration);

impl BodyDeadline {
    pub const DEFAULT: Duration = Duration::from_secs(15);
}

impl Default for BodyDeadline {
    fn default() -> Self {
        Self(Self::DEFAULT)
    }
}
