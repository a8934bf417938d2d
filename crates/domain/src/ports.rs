//! The ports: what the use cases need from the outside world. Adapters implement them.
//!
//! What a request asks of a repository is scoped by agent: each method takes the agent, or a
//! record that names its agent, and an id of another agent behaves exactly like an unknown id.
//! The exceptions serve the process rather than a tenant: finding a key by its hash (how a
//! request's agent becomes known), lines by id, platform account or all of them (a platform's
//! delivery names a line, not an agent), and the workers' claims and counts (inbound
//! deliveries, event deliveries, mailbox leases, vectors still to compute). Storage backends are
//! held to these contracts by the shared conformance suite (`conformance` feature).

use async_trait::async_trait;

use crate::StoreError;
use crate::model::*;

pub use crate::access::ports::*;
pub use crate::automation::ports::*;
pub use crate::catalog::ports::*;
pub use crate::conversations::ports::*;
pub use crate::events::ports::*;
pub use crate::lines::ports::*;
pub use crate::messaging::ports::*;
pub use crate::reports::ports::*;

/// What every repository method returns: its answer, or the [`StoreError`] the backend met.
pub type StoreResult<T> = Result<T, StoreError>;

/// The current time, truncated to milliseconds.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant, in UTC, truncated to milliseconds.
    fn now(&self) -> Timestamp;
}

/// Unguessable identifiers and key secrets, from a cryptographically secure source.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait IdSource: Send + Sync {
    /// `{prefix}_{random}`, e.g. `tag_3kTq…`.
    fn new_id(&self, kind: IdKind) -> String;
    /// `len` random base-62 characters.
    fn secret(&self, len: usize) -> String;
    /// `len` random characters drawn uniformly from `alphabet` (cart codes).
    fn code(&self, alphabet: &'static [u8], len: usize) -> String;
    /// `len` random bytes (signing keys).
    fn bytes(&self, len: usize) -> Vec<u8>;
    /// A number drawn uniformly from [0, 1) (retry jitter).
    fn unit(&self) -> f64;
}

/// Idempotency keys: a request repeated with the same key (per agent) gets the first one's
/// answer instead of running again.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdempotencyRepository: Send + Sync {
    /// Claims `key` for the agent with the request's fingerprint, atomically. A record older
    /// than `expired_before` is forgotten first, so the key is free again.
    async fn claim(
        &self,
        agent: &AgentId,
        key: &str,
        fingerprint: &str,
        at: Timestamp,
        expired_before: Timestamp,
    ) -> StoreResult<IdempotencyClaim>;
    /// Records the answer of the request that claimed `key`.
    async fn complete(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> StoreResult<()>;
    /// Attaches a recovery point to the agent's claimed `key`: the id of what the request
    /// recorded (a reply's message), so a retry after the request was cut can answer it. A later
    /// call replaces it; an unknown key changes nothing.
    async fn set_recovery_point(&self, agent: &AgentId, key: &str, resource: &str) -> StoreResult<()>;
    /// The recovery point attached to the agent's `key`, if any.
    async fn recovery_point(&self, agent: &AgentId, key: &str) -> StoreResult<Option<String>>;
}

/// A storage connection pool right now, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStatus {
    /// The most connections the pool opens.
    pub max_size: usize,
    /// Connections open now, in use or idle.
    pub size: usize,
    /// Idle connections ready to be handed out.
    pub available: usize,
    /// Requests waiting for a connection.
    pub waiting: usize,
}

/// Whether storage can serve requests right now (for readiness probes and metrics).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait StorageHealth: Send + Sync {
    /// `Unavailable` when the database cannot be reached.
    async fn check(&self) -> StoreResult<()>;
    /// `"sqlite"` or `"postgres"`.
    fn backend(&self) -> &'static str;
    /// The connection pool's state (no I/O).
    fn pool(&self) -> PoolStatus;
}

/// A mark of the stored data's state, so a reader may keep what it derived from the store (a
/// rendered page) until the store moves on.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ChangeProbe: Send + Sync {
    /// A value that differs from every value read before it once anything was committed since,
    /// by this process or another one; `None` when this backend cannot tell, and then nothing
    /// derived from it may be kept.
    async fn version(&self) -> StoreResult<Option<u64>>;
}

// Every write that changes what the API shows takes `events`: the events that report the change
// (docs/events.md, "The outbox"), written in the same transaction only when the write takes
// effect (not for a duplicate message, a lost compare-and-set, a tag already attached), so a
// change and its events commit together or not at all.

/// Every repository port, as one storage backend provides them.
#[derive(Clone)]
pub struct Repositories {
    /// The tenants.
    pub agents: std::sync::Arc<dyn AgentRepository>,
    /// API keys, by hash.
    pub keys: std::sync::Arc<dyn ApiKeyRepository>,
    /// The agents' team members.
    pub members: std::sync::Arc<dyn MemberRepository>,
    /// Members' sessions, by token hash.
    pub sessions: std::sync::Arc<dyn SessionRepository>,
    /// Failed sign-ins, by email.
    pub sign_in_attempts: std::sync::Arc<dyn SignInAttemptRepository>,
    /// Members' loads, for round robin.
    pub routing: std::sync::Arc<dyn RoutingRepository>,
    /// The rules' runs, one per (rule, event).
    pub rule_runs: std::sync::Arc<dyn RuleRunRepository>,
    /// Each agent's automation rules.
    pub rules: std::sync::Arc<dyn RuleRepository>,
    /// Each agent's business hours.
    pub business_hours: std::sync::Arc<dyn BusinessHoursRepository>,
    /// Each agent's first-response target, and the conversations that missed it.
    pub first_response: std::sync::Arc<dyn FirstResponseRepository>,
    /// What reports read: counts per quarter hour, first responses and resolutions.
    pub reports: std::sync::Arc<dyn ReportRepository>,
    /// Tags that label activities, unique by name per agent.
    pub tags: std::sync::Arc<dyn TagRepository>,
    /// Saved answers, unique by short code per agent.
    pub canned_responses: std::sync::Arc<dyn CannedResponseRepository>,
    /// Contacts and their channels.
    pub contacts: std::sync::Arc<dyn ContactRepository>,
    /// Conversations.
    pub activities: std::sync::Arc<dyn ActivityRepository>,
    /// The messages and notes of activities' timelines.
    pub messages: std::sync::Arc<dyn MessageRepository>,
    /// Scheduled messages and what sending each needs.
    pub scheduled: std::sync::Arc<dyn ScheduledSendRepository>,
    /// Each agent's catalog, imported in bulk.
    pub products: std::sync::Arc<dyn ProductRepository>,
    /// The catalog's search vectors and revisions.
    pub vectors: std::sync::Arc<dyn ProductVectorRepository>,
    /// Carts, written once under codes unique across agents.
    pub carts: std::sync::Arc<dyn CartRepository>,
    /// Messaging platform accounts and mailboxes.
    pub lines: std::sync::Arc<dyn LineRepository>,
    /// Message templates of each line.
    pub templates: std::sync::Arc<dyn TemplateRepository>,
    /// Template sends and their delivery status.
    pub executions: std::sync::Arc<dyn ExecutionRepository>,
    /// Idempotency keys and their answers.
    pub idempotency: std::sync::Arc<dyn IdempotencyRepository>,
    /// The platforms' webhook deliveries, inbound.
    pub inbound: std::sync::Arc<dyn InboundDeliveryRepository>,
    /// The agents' webhook endpoints, outbound.
    pub webhook_endpoints: std::sync::Arc<dyn WebhookEndpointRepository>,
    /// Events and their deliveries to endpoints.
    pub events: std::sync::Arc<dyn EventRepository>,
    /// Files kept for messages.
    pub files: std::sync::Arc<dyn FileRepository>,
    /// Mailbox readers' positions and leases.
    pub mailboxes: std::sync::Arc<dyn MailboxCursorRepository>,
    /// Whether the database answers, and its pool.
    pub health: std::sync::Arc<dyn StorageHealth>,
    /// Whether anything stored changed since a moment.
    pub changes: std::sync::Arc<dyn ChangeProbe>,
}
