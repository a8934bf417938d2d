//! Counters in Redis, shared by every instance: one EVALSHA of `gcra.lua` per request (the
//! script is sent once; `Script` loads it again by itself after a Redis restart).

use std::time::Duration;

use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};

use super::{Admit, Bucket, LimitStore, RateLimitConfig, RedisConfig, StoreError, Tally, interval_micros};

/// Short: a limit check must never hold a request long; past this the fallback takes over.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
const RESPONSE_TIMEOUT: Duration = Duration::from_millis(250);

pub struct RedisStore {
    connection: ConnectionManager,
    script: Script,
    prefix: String,
    /// `(interval µs, burst)` per policy; `None` when off.
    key: Option<(u64, u32)>,
    search: Option<(u64, u32)>,
    bad_key: Option<(u64, u32)>,
}

fn quota(per_minute: u32) -> Option<(u64, u32)> {
    (per_minute > 0).then(|| (interval_micros(per_minute), per_minute))
}

impl RedisStore {
    /// Connects lazily (the first request connects), so `serve` starts while Redis is down.
    /// Must run inside a tokio runtime: the connection's background task is spawned on it.
    pub fn new(redis: &RedisConfig, config: &RateLimitConfig) -> Result<Self, StoreError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(StoreError("no tokio runtime to run the Redis connection on".into()));
        }
        let client = Client::open(redis.url.as_str()).map_err(|e| StoreError(e.to_string()))?;
        let settings = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            // Reconnection is retried by the next request after the fallback's pause, not here.
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(client, settings).map_err(|e| StoreError(e.to_string()))?;
        Ok(Self {
            connection,
            script: Script::new(include_str!("gcra.lua")),
            prefix: redis.key_prefix.clone(),
            key: quota(config.per_minute),
            search: quota(config.search_per_minute),
            bad_key: quota(config.bad_key_per_minute),
        })
    }

    fn block_key(&self, address: &str) -> String {
        format!("{}block:{address}", self.prefix)
    }

    async fn run(&self, invocation: &redis::ScriptInvocation<'_>) -> Result<Vec<i64>, StoreError> {
        let mut connection = self.connection.clone();
        invocation.invoke_async(&mut connection).await.map_err(|e| StoreError(e.to_string()))
    }
}

/// The script's flat `{kind, value}` pairs.
fn parse(values: &[i64]) -> Result<Admit, StoreError> {
    let mut tallies = Vec::with_capacity(values.len() / 2);
    for pair in values.chunks(2) {
        let &[kind, value] = pair else { return Err(StoreError(format!("unexpected script reply {values:?}"))) };
        let micros = Duration::from_micros(value.max(0) as u64);
        match kind {
            2 => return Ok(Admit::Blocked { retry_after: micros }),
            1 => tallies.push(Tally::Allowed { remaining: u32::try_from(value.max(0)).unwrap_or(u32::MAX) }),
            0 => tallies.push(Tally::Refused { retry_after: micros }),
            _ => return Err(StoreError(format!("unexpected script reply {values:?}"))),
        }
    }
    Ok(Admit::Counted(tallies))
}

#[async_trait]
impl LimitStore for RedisStore {
    async fn admit(&self, address: &str, key_id: &str, buckets: &[Bucket]) -> Result<Admit, StoreError> {
        let mut invocation = self.script.prepare_invoke();
        invocation.key(self.block_key(address)).arg("admit").arg(if self.bad_key.is_some() { "1" } else { "0" });
        for bucket in buckets {
            let (name, quota) = match bucket {
                Bucket::Key => ("key", self.key),
                Bucket::Search => ("search", self.search),
            };
            let Some((interval, burst)) = quota else { continue };
            invocation.key(format!("{}{name}:{key_id}", self.prefix)).arg(interval).arg(burst);
        }
        parse(&self.run(&invocation).await?)
    }

    async fn bad_key(&self, address: &str) -> Result<Admit, StoreError> {
        let Some((interval, burst)) = self.bad_key else { return Ok(Admit::Counted(vec![])) };
        let mut invocation = self.script.prepare_invoke();
        invocation
            .key(self.block_key(address))
            .key(format!("{}bad_key:{address}", self.prefix))
            .arg("bad_key")
            .arg("-")
            .arg(interval)
            .arg(burst);
        parse(&self.run(&invocation).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_replies_become_tallies() {
        assert_eq!(parse(&[2, 1_500_000]).unwrap(), Admit::Blocked { retry_after: Duration::from_millis(1500) });
        assert_eq!(
            parse(&[1, 4, 0, 2_000_000]).unwrap(),
            Admit::Counted(vec![Tally::Allowed { remaining: 4 }, Tally::Refused { retry_after: Duration::from_secs(2) }])
        );
        assert!(parse(&[1]).is_err());
    }
}
