//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// What reports read. The writes that count (a message stored or going out, a close) add to
/// them in their own transactions, by [`ReportFacts`]: every backend's message and activity
/// writes keep them, so a report agrees with what happened.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ReportRepository: Send + Sync {
    /// The agent's counts of the slots starting in `[from, to)`: one per slot, assignee and
    /// channel that counted anything, in no particular order.
    async fn counts(&self, agent: &AgentId, from: Timestamp, to: Timestamp) -> StoreResult<Vec<SlotCount>>;
    /// The agent's first responses and resolutions that ended in `[from, to)`, in no
    /// particular order.
    async fn spans(&self, agent: &AgentId, from: Timestamp, to: Timestamp) -> StoreResult<Vec<ReportSpan>>;
}
