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
    /// What the agent's reports hold for `[from, to)`, read at one moment: the counts of the
    /// slots starting in it (possibly several per slot, assignee and channel, to be added up),
    /// and the first responses and resolutions that ended in it; in no particular order.
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp) -> StoreResult<ReportRange>;
}
