//! Each line's pace (the domain's `SendPacer`): sends spaced to the line's messages a second,
//! kept in this process ([`memory`]) or, with `REDIS_URL`, in Redis shared by every instance
//! ([`redis`]), this process taking over while Redis does not answer. Decisions are written
//! down in docs/automation.md ("Sends at each line's pace").

pub mod memory;
pub mod redis;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use parley_domain::model::{LineId, Pace};
use parley_domain::ports::SendPacer;

use crate::runtime::limits::RedisConfig;

/// The pacer for `redis` (shared), else this process's.
pub fn pacer(redis: Option<&RedisConfig>) -> Arc<dyn SendPacer> {
    let memory = memory::MemoryPacer::default();
    match redis.map(redis::RedisPacer::new) {
        Some(Ok(shared)) => Arc::new(Fallback { shared, memory }),
        Some(Err(e)) => {
            tracing::warn!(error = %e, "line pacing: Redis is not usable; each process paces its own sends");
            Arc::new(memory)
        }
        None => Arc::new(memory),
    }
}

/// Redis, else this process while Redis fails (each process then paces alone, as limits do).
struct Fallback {
    shared: redis::RedisPacer,
    memory: memory::MemoryPacer,
}

#[async_trait]
impl SendPacer for Fallback {
    async fn wait_turn(&self, line: &LineId, pace: Pace) {
        match self.shared.turn(line, pace).await {
            Ok(wait) => tokio::time::sleep(wait).await,
            Err(e) => {
                tracing::warn!(error = %e, line = line.as_str(), "line pacing: Redis failed; this process paces the send");
                self.memory.wait_turn(line, pace).await;
            }
        }
    }

    async fn hold(&self, line: &LineId, pause: Duration) {
        if let Err(e) = self.shared.hold(line, pause).await {
            tracing::warn!(error = %e, line = line.as_str(), "line pacing: Redis failed; the hold is kept in this process");
        }
        self.memory.hold(line, pause).await;
    }
}
