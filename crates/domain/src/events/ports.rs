//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// Host names to addresses, for the webhook endpoints' address rules: checked when an endpoint
/// is created or changed, and again at each delivery (DNS can change).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AddressResolver: Send + Sync {
    /// Every address `host` resolves to, or why it does not resolve.
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<std::net::IpAddr>, String>;
}

/// Webhook endpoints, each agent's own.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookEndpointRepository: Send + Sync {
    /// Stores a new endpoint unless its agent already has `max_per_agent` (`false`, nothing
    /// written). The count and the insert are one step: concurrent creations never pass the
    /// limit together.
    async fn insert(&self, endpoint: &WebhookEndpoint, max_per_agent: u32) -> StoreResult<bool>;
    /// The agent's endpoint `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<Option<WebhookEndpoint>>;
    /// Newest first (`created_at` desc, then id desc), with the agent's total.
    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<WebhookEndpoint>>;
    /// Replaces url, events, description, secrets, `disabled`, `failing_since`,
    /// `paused_until` and `updated_at`;
    /// `false` when the agent has no such endpoint.
    async fn update(&self, endpoint: &WebhookEndpoint) -> StoreResult<bool>;
    /// Removes it with its deliveries; `false` when the agent has no such endpoint.
    async fn delete(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<bool>;
}

/// Events, kept 30 days, each agent's own.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait EventRepository: Send + Sync {
    /// Stores `event` with a delivery, due now, for each of its agent's enabled endpoints
    /// subscribed to its type (to `only` alone when given, enabled or not: a test ping).
    async fn emit<'a>(&self, event: &Event, only: Option<&'a EndpointId>) -> StoreResult<()>;
    /// The agent's event `id`; another agent's, or one deleted after 30 days, is `None`.
    async fn get(&self, agent: &AgentId, id: &EventId) -> StoreResult<Option<Event>>;
    /// Newest first (`created_at` desc, then id desc), with the total of those matching.
    async fn list(&self, agent: &AgentId, filter: &EventFilter, page: PageRequest) -> StoreResult<Page<Event>>;
    /// Up to `limit` events after `cursor` ([`EventCursor::precedes`]), of `agent` or of every
    /// agent, oldest first (`created_at`, then id): what event streams read.
    async fn after<'a>(&self, agent: Option<&'a AgentId>, cursor: &EventCursor, limit: u32) -> StoreResult<Vec<Event>>;
    /// Up to `limit` deliveries due by `now`, oldest event first, each claimed until `until`:
    /// no other claim takes it before then (several processes share the work), and one whose
    /// claimant died is due again after it.
    /// Deliveries to disabled endpoints wait, unclaimed, until the endpoint is enabled again.
    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>>;
    /// [`claim_due`](Self::claim_due) of one endpoint's deliveries; the endpoint counts as
    /// served at `now` (see [`due_endpoints`](Self::due_endpoints)), whatever was claimed.
    async fn claim_due_for(&self, endpoint: &EndpointId, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>>;
    /// Up to `limit` enabled endpoints (of any agent) with deliveries due by `now`, whose
    /// breaker is not open at `now` (`paused_until` unset or passed): the least recently served
    /// first (by the time of their last [`claim_due_for`](Self::claim_due_for), never served
    /// first, then by id), so every endpoint with work comes round however many others have
    /// work too. A worker claims each one's share, so a slow endpoint's backlog never stands
    /// before the others'.
    async fn due_endpoints(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<DueEndpoint>>;
    /// Records a try of a delivery claimed until `until`, in one transaction: the attempt,
    /// the delivery's count and next try (none once delivered or given up), and `after` on
    /// the endpoint (`Healthy` clears `failing_since` and `paused_until`; `Pause` sets
    /// `paused_until`). Returns `false`, writing nothing, when that claim no longer holds the
    /// delivery (its lease ran out and another process took it).
    async fn record_attempt(&self, attempt: &DeliveryAttempt, until: Timestamp, after: EndpointAfterAttempt) -> StoreResult<bool>;
    /// The endpoint's attempts, newest first (`attempted_at` desc, then event id, then
    /// attempt desc), with its total. MUST return `NotFound` when the endpoint is not the agent's.
    async fn attempts(&self, agent: &AgentId, endpoint: &EndpointId, page: PageRequest) -> StoreResult<Page<DeliveryAttempt>>;
    /// Makes the event due to the endpoint at `now`, whether it was delivered, given up,
    /// still retrying or never sent there; its attempts keep counting. `false` when the agent
    /// has no such event or no such endpoint.
    async fn redeliver(&self, agent: &AgentId, event: &EventId, endpoint: &EndpointId, now: Timestamp) -> StoreResult<bool>;
    /// Deletes events created before `before`, with their deliveries and attempts, at most
    /// `limit` events per call (retention runs in short transactions); returns how many.
    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64>;
    /// Deliveries waiting for a try (due, retrying or claimed), across agents: for metrics.
    async fn backlog(&self) -> StoreResult<u64>;
}

/// A delivery as it goes on the wire: POSTed to `url` with `Content-Type: application/json`
/// and the Standard Webhooks headers.
#[derive(Debug, Clone)]
pub struct OutgoingDelivery<'a> {
    /// The endpoint's URL.
    pub url: &'a EndpointUrl,
    /// `webhook-id`: the event id.
    pub id: &'a str,
    /// `webhook-timestamp`: unix seconds of this attempt.
    pub timestamp: i64,
    /// `webhook-signature`.
    pub signature: String,
    /// The event as JSON: the exact bytes signed.
    pub body: &'a str,
}

/// How a receiver answered a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiverAnswer {
    /// It answered with this status (any: 2xx is success, the caller decides).
    Status(u16),
    /// It never answered: the address was refused, the connection failed, or the time ran out.
    NoAnswer(String),
}

/// Sends deliveries to webhook endpoints over HTTP: one POST, a bounded wait, no redirects
/// followed, and a host name's addresses checked against the address rules at each send
/// (unless private addresses are allowed), since DNS can change after an endpoint was made.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// POSTs the delivery once and tells how the receiver answered; never retries, and every
    /// failure to reach the receiver is a [`ReceiverAnswer::NoAnswer`].
    async fn send<'a>(&self, delivery: &OutgoingDelivery<'a>) -> ReceiverAnswer;
}
