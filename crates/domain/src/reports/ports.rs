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
    /// What the agent's reports hold for `[from, to)` as grouping `by` needs it, read at one
    /// moment: the counts of the slots starting in it added up per the grouping's key, and the
    /// first responses and resolutions that ended in it (see [`ReportRange`]).
    async fn range(&self, agent: &AgentId, from: Timestamp, to: Timestamp, by: GroupBy) -> StoreResult<ReportRange>;
}
