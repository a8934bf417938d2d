//! The one state every port of a [`MemoryStore`] shares: the tables a database would hold, behind
//! one mutex. Each port method takes the lock once, checks everything that could refuse the write,
//! and only then changes the tables, so a method is atomic the way one database transaction is:
//! another caller sees all of a write or none of it, and a refused write leaves nothing behind.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{Repositories, StoreResult, StoredFile};

/// An in-memory storage backend: every repository port of the domain over one shared state.
///
/// Clones share the state (it is behind an `Arc`), so ports taken from one store, or from its
/// clones, see each other's writes. Nothing is persisted: the data lives as long as the last clone.
#[derive(Clone, Default)]
pub struct MemoryStore {
    state: Arc<Mutex<State>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every repository port, all over this store's one state (and `health`, always healthy).
    pub fn repositories(&self) -> Repositories {
        Repositories {
            agents: Arc::new(self.clone()),
            keys: Arc::new(self.clone()),
            members: Arc::new(self.clone()),
            sessions: Arc::new(self.clone()),
            sign_in_attempts: Arc::new(self.clone()),
            business_hours: Arc::new(self.clone()),
            first_response: Arc::new(self.clone()),
            reports: Arc::new(self.clone()),
            rules: Arc::new(self.clone()),
            rule_runs: Arc::new(self.clone()),
            routing: Arc::new(self.clone()),
            tags: Arc::new(self.clone()),
            canned_responses: Arc::new(self.clone()),
            contacts: Arc::new(self.clone()),
            activities: Arc::new(self.clone()),
            messages: Arc::new(self.clone()),
            scheduled: Arc::new(self.clone()),
            products: Arc::new(self.clone()),
            vectors: Arc::new(self.clone()),
            carts: Arc::new(self.clone()),
            lines: Arc::new(self.clone()),
            templates: Arc::new(self.clone()),
            executions: Arc::new(self.clone()),
            idempotency: Arc::new(self.clone()),
            inbound: Arc::new(self.clone()),
            webhook_endpoints: Arc::new(self.clone()),
            events: Arc::new(self.clone()),
            files: Arc::new(self.clone()),
            mailboxes: Arc::new(self.clone()),
            health: Arc::new(self.clone()),
            changes: Arc::new(self.clone()),
        }
    }

    /// Runs `f` with the state locked: the memory counterpart of one transaction. `f` is
    /// synchronous, so no lock is ever held across an `.await`.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        // A panic inside `f` cannot leave a half-made write: every method checks before it
        // changes anything. So a poisoned lock still guards a consistent state.
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut state)
    }
}

/// Every table, keyed as the databases key them (a primary key clash is a `Conflict` there, and
/// here). Ordered maps, so scans are deterministic.
#[derive(Default)]
pub(crate) struct State {
    pub(crate) agents: BTreeMap<AgentId, Agent>,
    pub(crate) keys: BTreeMap<ApiKeyId, ApiKey>,
    pub(crate) members: BTreeMap<MemberId, Member>,
    /// When round robin last gave each member a conversation.
    pub(crate) last_assigned: BTreeMap<MemberId, Timestamp>,
    pub(crate) sessions: BTreeMap<SessionId, Session>,
    /// Sign-in marks by email, oldest first.
    pub(crate) sign_in_attempts: Vec<(Email, SignInMark, Timestamp)>,
    pub(crate) business_hours: BTreeMap<AgentId, BusinessHours>,
    pub(crate) first_response_targets: BTreeMap<AgentId, ResponseTarget>,
    pub(crate) rules: BTreeMap<RuleId, Rule>,
    /// By (rule, event): one run each.
    pub(crate) rule_runs: BTreeMap<(RuleId, EventId), RuleRun>,
    /// Events waiting for their agent's rules: when each was made, and when it is due (a
    /// claim moves it to the end of its lease).
    pub(crate) rule_queue: BTreeMap<EventId, (Timestamp, Timestamp)>,
    pub(crate) tags: BTreeMap<TagId, Tag>,
    pub(crate) canned_responses: BTreeMap<CannedResponseId, CannedResponse>,
    pub(crate) contacts: BTreeMap<ContactId, Contact>,
    pub(crate) activities: BTreeMap<ActivityId, StoredActivity>,
    pub(crate) messages: BTreeMap<MessageId, Message>,
    /// Scheduled messages' sends, each with the end of its claim's lease (none before a claim).
    pub(crate) scheduled: BTreeMap<MessageId, (ScheduledSend, Option<Timestamp>)>,
    pub(crate) products: BTreeMap<(AgentId, ProductId), StoredProduct>,
    /// Each agent's catalog revision, once it has a catalog.
    pub(crate) catalog_revisions: BTreeMap<AgentId, u64>,
    /// By code: codes are unique across agents.
    pub(crate) carts: BTreeMap<String, Cart>,
    pub(crate) lines: BTreeMap<LineId, Line>,
    /// By (agent, line, platform id), as a line's sync upserts them.
    pub(crate) templates: BTreeMap<(AgentId, LineId, TemplateId), Template>,
    pub(crate) executions: BTreeMap<String, Execution>,
    pub(crate) idempotency: BTreeMap<(AgentId, String), IdempotencyRecord>,
    pub(crate) webhook_events: BTreeMap<String, InboundDelivery>,
    pub(crate) endpoints: BTreeMap<EndpointId, StoredEndpoint>,
    pub(crate) events: BTreeMap<EventId, Event>,
    pub(crate) deliveries: BTreeMap<(EventId, EndpointId), Delivery>,
    pub(crate) attempts: Vec<DeliveryAttempt>,
    pub(crate) files: BTreeMap<(AgentId, String), StoredFile>,
    pub(crate) mailboxes: BTreeMap<LineId, MailboxCursor>,
    /// Reports' counts by (agent, slot, assignee, channel).
    pub(crate) report_counts: BTreeMap<ReportKey, Tally>,
    /// Reports' first responses and resolutions, by agent.
    pub(crate) report_spans: Vec<(AgentId, ReportSpan)>,
}

/// What one count of reports is kept under: agent, slot, assignee, channel.
pub(crate) type ReportKey = (AgentId, Timestamp, Option<String>, Option<&'static str>);

/// An activity with what the databases keep on its row beside it.
pub(crate) struct StoredActivity {
    pub(crate) activity: Activity,
    /// Its tags, linked once each.
    pub(crate) tags: BTreeSet<TagId>,
    /// Inbound messages stored since the last read.
    pub(crate) unread_count: u64,
    /// The newest message (by `created_at`, then id) as its insert found it: a late, older
    /// message never replaces it.
    pub(crate) last_message: Option<MessageSummary>,
    /// When its contact was last sent the agent's away message.
    pub(crate) away_sent_at: Option<Timestamp>,
}

/// A product as imported, with its published document, the revision that last wrote it and
/// its vector.
pub(crate) struct StoredProduct {
    pub(crate) product: Product,
    pub(crate) document: ProductDocument,
    pub(crate) revision: u64,
    /// The vector and the embedder that made it.
    pub(crate) vector: Option<(String, Vec<f32>)>,
}

/// An idempotency key's record.
pub(crate) struct IdempotencyRecord {
    pub(crate) fingerprint: String,
    pub(crate) response: Option<IdempotentResponse>,
    pub(crate) claimed_at: Timestamp,
    pub(crate) recovery_point: Option<String>,
}

/// A webhook endpoint with when a worker last claimed its deliveries (`None`: never), which
/// orders the rotation of `due_endpoints`.
pub(crate) struct StoredEndpoint {
    pub(crate) endpoint: WebhookEndpoint,
    pub(crate) served_at: Option<Timestamp>,
}

/// One event's delivery to one endpoint.
pub(crate) struct Delivery {
    pub(crate) event_created_at: Timestamp,
    pub(crate) attempts: u32,
    /// When it is due; while claimed, the claim's lease end; `None` once delivered or given up.
    pub(crate) next_attempt_at: Option<Timestamp>,
}

/// Where a polled mailbox's reader is, and who holds it until when.
#[derive(Default)]
pub(crate) struct MailboxCursor {
    pub(crate) position: MailboxPosition,
    pub(crate) holder: Option<(String, Timestamp)>,
}

impl State {
    /// The foreign key every tenant table has on `agents`: a row of an unknown agent is refused,
    /// as the databases refuse it.
    pub(crate) fn require_agent(&self, agent: &AgentId) -> StoreResult<()> {
        if self.agents.contains_key(agent) { Ok(()) } else { Err(StoreError::Conflict(format!("no agent {agent}"))) }
    }
}

/// One page of `matching` (already in list order), with their total.
pub(crate) fn page_of<T>(matching: Vec<T>, request: PageRequest) -> Page<T> {
    let total = matching.len() as u64;
    let offset = usize::try_from(request.offset()).unwrap_or(usize::MAX);
    let items = matching.into_iter().skip(offset).take(request.limit() as usize).collect();
    Page { items, total, request }
}

/// A `Conflict` naming what clashed, as a unique key of the databases would.
pub(crate) fn conflict(what: impl std::fmt::Display) -> StoreError {
    StoreError::Conflict(what.to_string())
}
