//! Counters in this process: one governor keyed limiter (GCRA) per policy.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use super::{Admit, Bucket, LimitStore, RateLimitConfig, StoreError, Tally, interval_micros};

type Keyed = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// How often idle keys are forgotten, so memory follows the keys in use, not all ever seen.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

pub struct MemoryStore {
    key: Option<Keyed>,
    search: Option<Keyed>,
    bad_key: Option<Keyed>,
    /// Addresses that spent their bad-key budget, until when. Governor cannot peek at a budget
    /// without spending it, and a valid key must not spend the bad-key budget.
    blocked: Mutex<HashMap<String, Instant>>,
    started: Instant,
    last_sweep_secs: AtomicU64,
}

/// The quota the Redis script applies too: burst N, one cell back every 60/N s (integer µs).
fn limiter(per_minute: u32) -> Option<Keyed> {
    let burst = NonZeroU32::new(per_minute)?;
    let quota = Quota::with_period(Duration::from_micros(interval_micros(per_minute)))?.allow_burst(burst);
    Some(RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>())
}

impl MemoryStore {
    pub fn new(config: &RateLimitConfig) -> Self {
        Self {
            key: limiter(config.per_minute),
            search: limiter(config.search_per_minute),
            bad_key: limiter(config.bad_key_per_minute),
            blocked: Mutex::new(HashMap::new()),
            started: Instant::now(),
            last_sweep_secs: AtomicU64::new(0),
        }
    }

    fn tally(limiter: &Keyed, key: &str) -> Tally {
        match limiter.check_key(&key.to_string()) {
            Ok(snapshot) => Tally::Allowed { remaining: snapshot.remaining_burst_capacity() },
            Err(not_until) => Tally::Refused { retry_after: not_until.wait_time_from(limiter.clock().now()) },
        }
    }

    fn blocked_for(&self, address: &str) -> Option<Duration> {
        let blocked = self.blocked.lock().unwrap_or_else(|e| e.into_inner());
        blocked.get(address).and_then(|until| until.checked_duration_since(Instant::now())).filter(|d| !d.is_zero())
    }

    /// Once a minute, at most: drops keys whose quota is full again and expired blocks.
    fn sweep(&self) {
        let now = self.started.elapsed().as_secs();
        let last = self.last_sweep_secs.load(Ordering::Relaxed);
        if now < last + SWEEP_EVERY.as_secs()
            || self.last_sweep_secs.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_err()
        {
            return;
        }
        for limiter in [&self.key, &self.search, &self.bad_key].into_iter().flatten() {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
        let instant = Instant::now();
        self.blocked.lock().unwrap_or_else(|e| e.into_inner()).retain(|_, until| *until > instant);
    }
}

#[async_trait]
impl LimitStore for MemoryStore {
    async fn admit(&self, address: &str, key_id: &str, buckets: &[Bucket]) -> Result<Admit, StoreError> {
        self.sweep();
        if let Some(retry_after) = self.blocked_for(address) {
            return Ok(Admit::Blocked { retry_after });
        }
        let mut tallies = Vec::with_capacity(buckets.len());
        for bucket in buckets {
            let limiter = match bucket {
                Bucket::Key => &self.key,
                Bucket::Search => &self.search,
            };
            let Some(limiter) = limiter else { continue };
            let tally = Self::tally(limiter, key_id);
            tallies.push(tally);
            if matches!(tally, Tally::Refused { .. }) {
                break;
            }
        }
        Ok(Admit::Counted(tallies))
    }

    async fn bad_key(&self, address: &str) -> Result<Admit, StoreError> {
        if let Some(retry_after) = self.blocked_for(address) {
            return Ok(Admit::Blocked { retry_after });
        }
        let Some(limiter) = &self.bad_key else { return Ok(Admit::Counted(vec![])) };
        let tally = Self::tally(limiter, address);
        if let Tally::Refused { retry_after } = tally {
            self.blocked.lock().unwrap_or_else(|e| e.into_inner()).insert(address.to_string(), Instant::now() + retry_after);
        }
        Ok(Admit::Counted(vec![tally]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(per_minute: u32, search: u32, bad_key: u32) -> MemoryStore {
        MemoryStore::new(&RateLimitConfig { per_minute, search_per_minute: search, bad_key_per_minute: bad_key, ..Default::default() })
    }

    #[tokio::test]
    async fn a_burst_of_the_quota_then_one_cell_per_interval() {
        let s = store(5, 0, 0);
        for left in (0..5).rev() {
            assert_eq!(s.admit("a", "k", &[Bucket::Key]).await.unwrap(), Admit::Counted(vec![Tally::Allowed { remaining: left }]));
        }
        let Admit::Counted(t) = s.admit("a", "k", &[Bucket::Key]).await.unwrap() else { panic!("not blocked") };
        let Tally::Refused { retry_after } = t[0] else { panic!("refused") };
        assert!(retry_after > Duration::from_secs(11) && retry_after <= Duration::from_secs(12), "{retry_after:?}");
        assert!(
            matches!(s.admit("a", "other", &[Bucket::Key]).await.unwrap(), Admit::Counted(t) if t[0] == Tally::Allowed { remaining: 4 })
        );
    }

    #[tokio::test]
    async fn a_spent_bad_key_budget_blocks_the_address_only() {
        let s = store(5, 0, 2);
        assert!(matches!(s.bad_key("a").await.unwrap(), Admit::Counted(t) if matches!(t[0], Tally::Allowed { .. })));
        assert!(matches!(s.bad_key("a").await.unwrap(), Admit::Counted(t) if matches!(t[0], Tally::Allowed { .. })));
        assert!(matches!(s.bad_key("a").await.unwrap(), Admit::Counted(t) if matches!(t[0], Tally::Refused { .. })));
        assert!(matches!(s.admit("a", "k", &[Bucket::Key]).await.unwrap(), Admit::Blocked { .. }));
        assert!(matches!(s.admit("b", "k", &[Bucket::Key]).await.unwrap(), Admit::Counted(_)));
    }
}
