//! Rate limits: per API key over every endpoint, per key on search on top, and per client
//! address for requests with a bad key. GCRA everywhere (smooth: a quota of N per minute lets N
//! through at once, then one every 60/N seconds), counted in this process ([`memory`]) or, with
//! `REDIS_URL`, in Redis shared by every instance ([`redis`]) with the process as a fallback
//! while Redis is unreachable ([`fallback`]). Decisions are written down in docs/rate-limits.md.

pub mod client;
pub mod config;
pub mod fallback;
pub mod memory;
pub mod redis;

use std::net::{IpAddr, SocketAddr};

use actix_web::http::header::HeaderMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

pub use config::{RateLimitArgs, RateLimitConfig, RedisConfig};

/// What a request is counted against. A search counts against `Key` first, then `Search`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// Every authenticated request of one key.
    Key,
    /// `GET /v1/products/search` of one key, on top of `Key`.
    Search,
}

/// One policy's verdict on one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tally {
    /// Counted; this many more requests would pass right now.
    Allowed { remaining: u32 },
    /// Not counted; one more request passes after this wait.
    Refused { retry_after: Duration },
}

/// A store's answer for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admit {
    /// The client address spent its bad-key budget: refused whatever the key, counting nothing.
    Blocked { retry_after: Duration },
    /// One tally per bucket asked for, in order; counting stops at the first refusal, so a
    /// refused tally is always the last.
    Counted(Vec<Tally>),
}

/// The store could not answer (Redis unreachable or misbehaving).
#[derive(Debug, thiserror::Error)]
#[error("rate-limit store: {0}")]
pub struct StoreError(pub String);

/// Where the counters live. Implementations: [`memory::MemoryStore`] (one process),
/// [`redis::RedisStore`] (shared), [`fallback::FallbackStore`] (Redis, else memory).
#[async_trait]
pub trait LimitStore: Send + Sync {
    /// Counts one request of a valid key against `buckets` (all enabled), unless `address` is
    /// blocked for bad keys.
    async fn admit(&self, address: &str, key_id: &str, buckets: &[Bucket]) -> Result<Admit, StoreError>;

    /// Counts one bad-key request from `address`; a refusal blocks the address for the wait it
    /// names. Only called when the bad-key limit is on.
    async fn bad_key(&self, address: &str) -> Result<Admit, StoreError>;
}

/// One policy's state for the `RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    pub limit: u32,
    pub remaining: u32,
    /// Whole seconds until `remaining` is back to `limit` if no request is made.
    pub reset_secs: u64,
}

impl Usage {
    /// GCRA gives a cell back every 60/limit seconds, so the quota is full again after
    /// (limit − remaining) of them. Computed here from `remaining` alone so both stores report
    /// the same figure (an upper bound by less than one interval), rounded up.
    fn new(limit: u32, remaining: u32) -> Self {
        let remaining = remaining.min(limit);
        let missing = u64::from(limit - remaining);
        Self { limit, remaining, reset_secs: (missing * 60).div_ceil(u64::from(limit.max(1))) }
    }
}

/// The limiter's decision on an authenticated request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The policy the headers describe: the refusing one, else the one with the fewest
    /// requests left. `None` when the address is blocked (nothing was counted, and headers
    /// would tell a valid key from a bad one) or no limit is on.
    pub usage: Option<Usage>,
    /// Set when the request is refused (429).
    pub retry_after: Option<Duration>,
}

/// The limits as the HTTP layer sees them.
pub struct Limiter {
    config: RateLimitConfig,
    store: Option<Arc<dyn LimitStore>>,
}

impl Limiter {
    /// No limit at all.
    pub fn off() -> Self {
        Self { config: RateLimitConfig::default(), store: None }
    }

    /// Counts in this process, or in Redis (falling back to this process) when configured.
    pub fn new(config: RateLimitConfig) -> Self {
        if !config.any_on() {
            return Self::off();
        }
        let memory = memory::MemoryStore::new(&config);
        let store: Arc<dyn LimitStore> = match &config.redis {
            Some(redis) => match redis::RedisStore::new(redis, &config) {
                Ok(shared) => Arc::new(fallback::FallbackStore::new(shared, memory)),
                Err(e) => {
                    tracing::error!(error = %e, "rate limits cannot use Redis; counting in this process only");
                    Arc::new(memory)
                }
            },
            None => Arc::new(memory),
        };
        Self { config, store: Some(store) }
    }

    /// The address a request is counted against: its peer's, or behind a trusted proxy the
    /// client's it forwarded.
    pub fn client_address(&self, peer: Option<SocketAddr>, headers: &HeaderMap) -> String {
        address_key(self.config.trusted_proxies.client_ip(peer.map(|p| p.ip()), headers))
    }

    pub fn config(&self) -> &RateLimitConfig {
        &self.config
    }

    /// Counts one request of a valid key. `None` when no limit applies to it.
    pub async fn admit(&self, address: &str, key_id: &str, search: bool) -> Option<Decision> {
        let store = self.store.as_ref()?;
        let mut buckets = Vec::with_capacity(2);
        if self.config.per_minute > 0 {
            buckets.push(Bucket::Key);
        }
        if search && self.config.search_per_minute > 0 {
            buckets.push(Bucket::Search);
        }
        if buckets.is_empty() && self.config.bad_key_per_minute == 0 {
            return None;
        }
        let admit = match store.admit(address, key_id, &buckets).await {
            Ok(admit) => admit,
            Err(e) => {
                // Only a store without fallback can fail; serving beats refusing everyone.
                tracing::warn!(error = %e, "rate limit not checked");
                return None;
            }
        };
        Some(self.decide(&buckets, admit))
    }

    fn decide(&self, buckets: &[Bucket], admit: Admit) -> Decision {
        let tallies = match admit {
            Admit::Blocked { retry_after } => return Decision { usage: None, retry_after: Some(retry_after) },
            Admit::Counted(tallies) => tallies,
        };
        let mut decision = Decision { usage: None, retry_after: None };
        for (bucket, tally) in buckets.iter().zip(tallies) {
            let limit = self.config.limit_of(*bucket);
            match tally {
                Tally::Refused { retry_after } => {
                    return Decision { usage: Some(Usage::new(limit, 0)), retry_after: Some(retry_after) };
                }
                Tally::Allowed { remaining } => {
                    let usage = Usage::new(limit, remaining);
                    // The tighter policy: fewer left, then the longer wait to be full again.
                    let tighter = decision.usage.is_none_or(|u| {
                        (usage.remaining, std::cmp::Reverse(usage.reset_secs)) < (u.remaining, std::cmp::Reverse(u.reset_secs))
                    });
                    if tighter {
                        decision.usage = Some(usage);
                    }
                }
            }
        }
        decision
    }

    /// Counts one request with a missing, unknown or revoked key from `address`; `Some(wait)`
    /// when the address is over its limit and must be answered 429 instead of 401.
    pub async fn bad_key(&self, address: &str) -> Option<Duration> {
        if self.config.bad_key_per_minute == 0 {
            return None;
        }
        match self.store.as_ref()?.bad_key(address).await {
            Ok(Admit::Blocked { retry_after }) => Some(retry_after),
            Ok(Admit::Counted(tallies)) => match tallies.last() {
                Some(Tally::Refused { retry_after }) => {
                    // Once per block: the requests refused during it are `Blocked`.
                    tracing::warn!(
                        address,
                        blocked_secs = retry_after.as_secs_f64().ceil() as u64,
                        "too many requests with a bad key from one client address: every request from it is refused until the wait ends"
                    );
                    Some(*retry_after)
                }
                _ => None,
            },
            Err(e) => {
                tracing::warn!(error = %e, "bad-key limit not checked");
                None
            }
        }
    }
}

/// The client address as the limits count it: its IP (see [`client`] for which), IPv6 by its
/// /64 (one host usually holds a whole /64, so single addresses would be free to rotate).
pub fn address_key(ip: Option<IpAddr>) -> String {
    match ip.map(client::canonical) {
        None => "unknown".into(),
        Some(IpAddr::V4(v4)) => v4.to_string(),
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
        }
    }
}

/// The per-minute quota as GCRA parameters: one cell back every `interval`, `burst` at most.
/// Integer microseconds, the same in both stores, so they agree on every decision.
pub(crate) fn interval_micros(per_minute: u32) -> u64 {
    60_000_000 / u64::from(per_minute.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_is_the_time_to_refill_what_was_spent() {
        assert_eq!(Usage::new(100, 99).reset_secs, 1, "0.6 s rounds up");
        assert_eq!(Usage::new(5, 4).reset_secs, 12);
        assert_eq!(Usage::new(5, 0).reset_secs, 60);
        assert_eq!(Usage::new(5, 5).reset_secs, 0);
    }

    #[test]
    fn addresses_group_ipv6_by_64_and_unmap_ipv4() {
        assert_eq!(address_key(Some("10.1.2.3".parse().unwrap())), "10.1.2.3");
        assert_eq!(address_key(Some("2001:db8:1:2:3:4:5:6".parse().unwrap())), "2001:db8:1:2::/64");
        assert_eq!(address_key(Some("::ffff:10.1.2.3".parse().unwrap())), "10.1.2.3");
        assert_eq!(address_key(None), "unknown");
    }

    #[test]
    fn search_reports_the_tighter_policy() {
        let limiter = Limiter { config: RateLimitConfig { per_minute: 100, search_per_minute: 30, ..Default::default() }, store: None };
        let both = [Bucket::Key, Bucket::Search];
        let d = limiter.decide(&both, Admit::Counted(vec![Tally::Allowed { remaining: 99 }, Tally::Allowed { remaining: 29 }]));
        assert_eq!(d.usage.map(|u| (u.limit, u.remaining)), Some((30, 29)));
        let d = limiter.decide(&both, Admit::Counted(vec![Tally::Allowed { remaining: 3 }, Tally::Allowed { remaining: 29 }]));
        assert_eq!(d.usage.map(|u| (u.limit, u.remaining)), Some((100, 3)));
        let wait = Duration::from_secs(2);
        let d = limiter.decide(&both, Admit::Counted(vec![Tally::Allowed { remaining: 50 }, Tally::Refused { retry_after: wait }]));
        assert_eq!((d.usage.map(|u| (u.limit, u.remaining)), d.retry_after), (Some((30, 0)), Some(wait)));
    }
}
