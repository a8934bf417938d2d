//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// Lines: an agent's accounts on a messaging platform (or mailboxes), through which its
/// messages come and go.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LineRepository: Send + Sync {
    /// MUST return `Conflict` when the account is already a line (of any agent) of the same
    /// channel type: webhooks find a line by it.
    async fn insert(&self, line: &Line) -> StoreResult<()>;
    /// The agent's line `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &LineId) -> StoreResult<Option<Line>>;
    /// The line `id` of whichever agent: for a platform that names the line in its request
    /// and proves it with the line's own secret (email forwarders).
    async fn find(&self, id: &LineId) -> StoreResult<Option<Line>>;
    /// The agent's lines, oldest first (then id).
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Line>>;
    /// Every line of every agent, oldest first: for periodic template sync.
    async fn all(&self) -> StoreResult<Vec<Line>>;
    /// The line of `channel_type` whose platform account is `account_id`
    /// ([`LineAccount::account_id`](crate::model::LineAccount::account_id)), of any agent.
    async fn find_by_account(&self, channel_type: ChannelType, account_id: &str) -> StoreResult<Option<Line>>;
    /// Sets the agent's line `id`'s pace; `false` when the agent has no such line.
    async fn set_pace(&self, agent: &AgentId, id: &LineId, pace: Pace) -> StoreResult<bool>;
}

/// Message templates, as the platform lists them for each line's business account, kept up to
/// date by template sync.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TemplateRepository: Send + Sync {
    /// Makes the line's stored templates exactly `templates` (the platform's current list), in one
    /// transaction: new ones get `created_at = at`, known ones keep theirs, missing ones go.
    async fn replace_for_line(&self, line: &Line, templates: &[TemplateDefinition], at: Timestamp, events: &[Event]) -> StoreResult<()>;
    /// All the agent's templates, by name, then language, then line's age, then line id.
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Template>>;
    /// One line's templates, by name, then language.
    async fn list_for_line(&self, agent: &AgentId, line: &LineId) -> StoreResult<Vec<Template>>;
    /// A template by the platform's id; when lines share a business account, the copy on the
    /// agent's oldest line.
    async fn get(&self, agent: &AgentId, id: &TemplateId) -> StoreResult<Option<Template>>;
}

/// Executions: one record per template message sent under a campaign key, following the
/// message's delivery status.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ExecutionRepository: Send + Sync {
    /// Stores a new execution. MUST return `Conflict` when the agent already has an execution with
    /// the same platform message id; executions without one (refused sends) never clash.
    async fn insert(&self, execution: &Execution) -> StoreResult<()>;
    /// The agent's execution for the platform message id `message_id` (`pm.…`): how a status
    /// report finds the send it is about.
    async fn find_by_message(&self, agent: &AgentId, message_id: &str) -> StoreResult<Option<Execution>>;
    /// Writes `execution` only if the stored status is still `expected` (compare-and-set, so
    /// concurrent webhook processors never lose an update); `false` otherwise.
    async fn update(&self, execution: &Execution, expected: ExecutionStatus, events: &[Event]) -> StoreResult<bool>;
    /// The key's executions changed after `since`, by `updated_at` then id, at most `limit`.
    async fn list(&self, agent: &AgentId, key: &CampaignKey, since: Option<Timestamp>, limit: u32) -> StoreResult<Vec<Execution>>;
    /// Whether the agent ever sent under `key`.
    async fn key_exists(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<bool>;
}

/// Spaces each line's sends to its pace, across every process that shares the pacer (Redis),
/// and holds a line back when the platform says it is over its throughput.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SendPacer: Send + Sync {
    /// Waits for `line`'s next turn at `pace` and takes it: callers at once go out one
    /// interval apart, in the order they asked.
    async fn wait_turn(&self, line: &LineId, pace: Pace);
    /// No turn on `line` starts for `pause` from now (the platform refused for throughput).
    async fn hold(&self, line: &LineId, pause: std::time::Duration);
}
