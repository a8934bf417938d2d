//! Rate-limit settings: the `parley serve` flags and what they become.

use clap::Args;

use super::Bucket;
use super::client::TrustedProxies;
use crate::runtime::redact::redact_url;

/// Above this a cell would come back more often than every 60 µs, finer than the stores count.
const MAX_PER_MINUTE: i64 = 1_000_000;

/// `parley serve` flags of the rate limits (flattened into `ServeArgs`).
#[derive(Debug, Args)]
pub struct RateLimitArgs {
    /// Requests per minute per API key, over every endpoint (0 = no limit). Smooth: a full quota
    /// lets that many through at once, then one more every 60/N seconds.
    #[arg(long, env = "PARLEY_RATE_LIMIT_PER_MINUTE", default_value_t = 100,
        value_parser = clap::value_parser!(u32).range(0..=MAX_PER_MINUTE))]
    pub rate_limit_per_minute: u32,
    /// Searches (`GET /v1/products/search`) per minute per API key, counted on top of the limit
    /// above (0 = no limit).
    #[arg(long, env = "PARLEY_SEARCH_RATE_LIMIT_PER_MINUTE", default_value_t = 30,
        value_parser = clap::value_parser!(u32).range(0..=MAX_PER_MINUTE))]
    pub search_rate_limit_per_minute: u32,
    /// Requests with a missing, unknown or revoked key per minute per client address (0 = no
    /// limit). Past it, every request from the address gets 429 until Retry-After, valid key or not.
    #[arg(long, env = "PARLEY_BAD_KEY_RATE_LIMIT_PER_MINUTE", default_value_t = 20,
        value_parser = clap::value_parser!(u32).range(0..=MAX_PER_MINUTE))]
    pub bad_key_rate_limit_per_minute: u32,
    /// Redis that holds the counters for every instance, e.g. redis://:PASSWORD@HOST:6379/0
    /// (unset: each process counts on its own). While it is unreachable each process counts on
    /// its own and a warning is logged.
    #[arg(long, env = "REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,
    /// Reverse proxies and load balancers whose `X-Forwarded-For` is believed, so the per-address
    /// limit counts the client instead of the proxy: a comma-separated list of addresses and
    /// networks, e.g. 10.0.0.0/8,fd00::/8 (unset: the TCP peer is the client).
    #[arg(long, env = "PARLEY_TRUSTED_PROXIES")]
    pub trusted_proxies: Option<String>,
    /// Prefix of every Redis key the rate limits write.
    #[arg(long, env = "PARLEY_REDIS_KEY_PREFIX", default_value = "parley:rl:")]
    pub redis_key_prefix: String,
}

impl RateLimitArgs {
    /// Checks the Redis URL (an empty one means unset).
    pub fn to_config(&self) -> Result<RateLimitConfig, String> {
        let redis = match self.redis_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
            Some(url) => {
                ::redis::Client::open(url).map_err(|e| format!("REDIS_URL {} is not a Redis URL: {e}", redact_url(url)))?;
                Some(RedisConfig { url: url.to_string(), key_prefix: self.redis_key_prefix.clone() })
            }
            None => None,
        };
        Ok(RateLimitConfig {
            per_minute: self.rate_limit_per_minute,
            search_per_minute: self.search_rate_limit_per_minute,
            bad_key_per_minute: self.bad_key_rate_limit_per_minute,
            redis,
            trusted_proxies: TrustedProxies::parse(self.trusted_proxies.as_deref().unwrap_or_default())?,
        })
    }
}

/// The limits in force; 0 turns one off. The default is every limit off (tests, tools):
/// `parley serve` applies the documented defaults through its flags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RateLimitConfig {
    pub per_minute: u32,
    pub search_per_minute: u32,
    pub bad_key_per_minute: u32,
    /// Counters shared through Redis; `None`: in this process.
    pub redis: Option<RedisConfig>,
    /// Proxies whose `X-Forwarded-For` names the client; none by default.
    pub trusted_proxies: TrustedProxies,
}

impl RateLimitConfig {
    /// The product's limits: 100 per minute per key, 30 searches on top, 20 bad keys per address.
    pub fn standard() -> Self {
        Self { per_minute: 100, search_per_minute: 30, bad_key_per_minute: 20, redis: None, trusted_proxies: TrustedProxies::default() }
    }

    pub fn any_on(&self) -> bool {
        self.per_minute > 0 || self.search_per_minute > 0 || self.bad_key_per_minute > 0
    }

    pub fn limit_of(&self, bucket: Bucket) -> u32 {
        match bucket {
            Bucket::Key => self.per_minute,
            Bucket::Search => self.search_per_minute,
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct RedisConfig {
    pub url: String,
    /// Every key starts with it (deployments or tests sharing one Redis stay apart).
    pub key_prefix: String,
}

/// By hand, so a password in the URL never reaches a log.
impl std::fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisConfig").field("url", &redact_url(&self.url)).field("key_prefix", &self.key_prefix).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve_args(args: &[&str]) -> Result<RateLimitArgs, String> {
        use clap::Parser;
        #[derive(Parser)]
        struct Serve {
            #[command(flatten)]
            limits: RateLimitArgs,
        }
        Serve::try_parse_from(std::iter::once("serve").chain(args.iter().copied())).map(|s| s.limits).map_err(|e| e.to_string())
    }

    #[test]
    fn flags_are_checked_and_default_to_the_products_limits() {
        let standard = serve_args(&[]).unwrap().to_config().unwrap();
        if std::env::var_os("PARLEY_RATE_LIMIT_PER_MINUTE").is_none() && std::env::var_os("REDIS_URL").is_none() {
            assert_eq!(standard, RateLimitConfig::standard());
        }
        assert!(serve_args(&["--rate-limit-per-minute", "1000001"]).is_err(), "finer than the stores count");
        assert!(serve_args(&["--search-rate-limit-per-minute", "-1"]).is_err());
        let err = serve_args(&["--redis-url", "http://:hunter2@cache"]).unwrap().to_config().unwrap_err();
        assert!(err.contains("REDIS_URL") && !err.contains("hunter2"), "{err}");
        let shared = serve_args(&["--redis-url", "redis://cache:6379/2", "--redis-key-prefix", "eu:"]).unwrap().to_config().unwrap();
        assert_eq!(shared.redis, Some(RedisConfig { url: "redis://cache:6379/2".into(), key_prefix: "eu:".into() }));
        assert_eq!(serve_args(&["--redis-url", " "]).unwrap().to_config().unwrap().redis, None, "empty means unset");
    }

    #[test]
    fn redis_passwords_stay_out_of_debug_output() {
        let c = RedisConfig { url: "redis://:hunter2@cache:6379/0".into(), key_prefix: "p:".into() };
        assert!(!format!("{c:?}").contains("hunter2"));
    }
}
