//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// Each agent's business hours: one set per agent, or none (always open).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait BusinessHoursRepository: Send + Sync {
    /// The agent's hours, `None` when it has set none.
    async fn get(&self, agent: &AgentId) -> StoreResult<Option<BusinessHours>>;
    /// Replaces the agent's hours (`Some`), or removes them (`None`); `at` is when.
    async fn put<'a>(&self, agent: &AgentId, hours: Option<&'a BusinessHours>, at: Timestamp) -> StoreResult<()>;
}
