//! Redis when it answers, this process's counters when it does not: a Redis outage must not
//! take the API down, nor refuse every request. While Redis is away one request per
//! `RETRY_EVERY` tries it again, so the limits go back to being shared soon after it returns.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::memory::MemoryStore;
use super::redis::RedisStore;
use super::{Admit, Bucket, LimitStore, StoreError};

/// Pause between attempts to reach Redis while it is away.
const RETRY_EVERY: Duration = Duration::from_secs(1);
/// Longest a request waits on Redis before being counted here instead.
const BUDGET: Duration = Duration::from_millis(500);
/// While Redis stays away, the warning is repeated at most this often, never once per request.
const WARN_EVERY: Duration = Duration::from_secs(60);

pub struct FallbackStore {
    redis: RedisStore,
    memory: MemoryStore,
    started: Instant,
    /// Milliseconds since `started` before which Redis is not tried (0: it is healthy).
    retry_at_ms: AtomicU64,
    /// Whether the last answer came from Redis, to log each switch once.
    shared: AtomicBool,
    last_warning_ms: AtomicU64,
}

impl FallbackStore {
    pub fn new(redis: RedisStore, memory: MemoryStore) -> Self {
        Self {
            redis,
            memory,
            started: Instant::now(),
            retry_at_ms: AtomicU64::new(0),
            shared: AtomicBool::new(true),
            last_warning_ms: AtomicU64::new(0),
        }
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Whether this request should ask Redis: always while it is healthy; while it is away,
    /// only the one request that claims the next retry slot.
    fn try_redis(&self) -> bool {
        let now = self.now_ms();
        let retry_at = self.retry_at_ms.load(Ordering::Acquire);
        retry_at == 0
            || (now >= retry_at
                && self
                    .retry_at_ms
                    .compare_exchange(retry_at, now + RETRY_EVERY.as_millis() as u64, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok())
    }

    fn succeeded(&self) {
        self.retry_at_ms.store(0, Ordering::Release);
        if !self.shared.swap(true, Ordering::AcqRel) {
            tracing::info!("Redis answers again: rate limits are shared by every instance again");
        }
    }

    fn failed(&self, error: &StoreError) {
        let now = self.now_ms();
        self.retry_at_ms.store(now + RETRY_EVERY.as_millis() as u64, Ordering::Release);
        let switched = self.shared.swap(false, Ordering::AcqRel);
        let last = self.last_warning_ms.load(Ordering::Acquire);
        let due = switched || now >= last + WARN_EVERY.as_millis() as u64;
        if due && self.last_warning_ms.compare_exchange(last, now.max(1), Ordering::AcqRel, Ordering::Acquire).is_ok() {
            tracing::warn!(
                error = %error,
                "Redis is unreachable: rate limits are counted by each instance on its own until it answers again"
            );
        }
    }

    async fn shared_or_local<F>(&self, redis: F, local: impl Future<Output = Result<Admit, StoreError>>) -> Result<Admit, StoreError>
    where
        F: Future<Output = Result<Admit, StoreError>>,
    {
        if self.try_redis() {
            let outcome = match tokio::time::timeout(BUDGET, redis).await {
                Ok(outcome) => outcome,
                Err(_) => Err(StoreError(format!("no answer within {} ms", BUDGET.as_millis()))),
            };
            match outcome {
                Ok(admit) => {
                    self.succeeded();
                    return Ok(admit);
                }
                Err(e) => self.failed(&e),
            }
        }
        local.await
    }
}

#[async_trait]
impl LimitStore for FallbackStore {
    async fn admit(&self, address: &str, key_id: &str, buckets: &[Bucket]) -> Result<Admit, StoreError> {
        self.shared_or_local(self.redis.admit(address, key_id, buckets), self.memory.admit(address, key_id, buckets)).await
    }

    async fn bad_key(&self, address: &str) -> Result<Admit, StoreError> {
        self.shared_or_local(self.redis.bad_key(address), self.memory.bad_key(address)).await
    }
}
