//! What every handler can reach: the domain services, wired to their adapters by
//! [`wire`](crate::runtime::wiring::wire).

use std::sync::Arc;

use parley_domain::model::Event;
use parley_domain::ports::{PoolStatus, StorageHealth};
use parley_domain::services::*;
use tokio::sync::Notify;

use crate::runtime::config::ApiConfig;
use crate::runtime::intake::Intake;
use crate::runtime::limits::Limiter;
use crate::runtime::metrics::{Backlogs, Metrics, Probe};
use crate::runtime::platform::Platforms;

/// How an event is sent to an endpoint: the API's representation of it (the HTTP layer's
/// [`event_body`](crate::http::dto::event_body)), signed as is. The outer layer owns the
/// representation, so it hands the function in when it wires the app.
pub type EventBody = fn(&Event) -> String;

/// What the background work needs of the API's representations, handed in by the HTTP layer
/// ([`REPRESENTATIONS`](crate::http::dto::REPRESENTATIONS)) when it wires the app: the body an
/// event's delivery sends, and a rule's template components as a send takes them.
#[derive(Clone, Copy)]
pub struct Representations {
    /// An event as its deliveries send it.
    pub event_body: EventBody,
    /// A `send_template` action's components, as the API took them, read for a send.
    pub template_components: parley_domain::services::TemplateComponents,
}

pub struct AppState {
    pub keys: Arc<KeyService>,
    pub members: Arc<MemberService>,
    pub sessions: Arc<SessionService>,
    pub tags: Arc<TagService>,
    pub canned_responses: Arc<CannedResponseService>,
    pub business_hours: Arc<BusinessHoursService>,
    /// The first-response target, and the misses the workers announce.
    pub first_response: Arc<FirstResponseService>,
    /// Conversation reports.
    pub reports: Arc<ReportService>,
    pub rules: Arc<RuleService>,
    /// Runs rules on the events that wait for them (the workers run it).
    pub rule_engine: Arc<RuleEngine>,
    /// Sends scheduled messages at their time (the workers run it).
    pub scheduled: Arc<ScheduledSender>,
    pub contacts: Arc<ContactService>,
    pub activities: Arc<ActivityService>,
    pub catalog: Arc<CatalogService>,
    pub search: Arc<SearchService>,
    pub carts: Arc<CartService>,
    pub lines: Arc<LineService>,
    pub sends: Arc<SendService>,
    pub messages: Arc<MessageService>,
    pub idempotency: Arc<IdempotencyService>,
    pub campaigns: Arc<CampaignService>,
    pub inbound: Arc<InboundService>,
    /// Takes the platforms' webhook deliveries in.
    pub intake: Arc<Intake>,
    /// The messaging platforms, for their webhooks' proofs.
    pub platforms: Arc<Platforms>,
    /// Reads email lines' mailboxes (the workers run it).
    pub mailboxes: MailboxService,
    pub webhook_endpoints: Arc<WebhookEndpointService>,
    /// Delivers events to webhook endpoints (the workers run it).
    pub deliveries: Arc<EventDeliveryService>,
    /// The body each delivery sends and signs.
    pub event_body: EventBody,
    /// The events API as a stream: where streams resume and what they missed.
    pub event_stream: Arc<EventStreamService>,
    /// The live tail every `GET /v1/stream` of this process is fed from.
    pub event_hub: Arc<crate::runtime::event_hub::EventHub>,
    /// Wakes the event delivery worker when a delivery was made due in this process.
    pub event_wakeup: Arc<Notify>,
    /// List pages kept while the store has not changed.
    pub pages: Arc<crate::runtime::page_cache::PageCache>,
    /// Whether the database answers, for readiness probes.
    pub health: Arc<dyn StorageHealth>,
    /// Wakes the inbound processor when a delivery was stored.
    pub inbound_wakeup: Arc<Notify>,
    /// The background workers' runtime, once they run: deliveries received over HTTP are
    /// processed there (see `runtime/intake.rs`).
    pub workers_runtime: Arc<std::sync::OnceLock<tokio::runtime::Handle>>,
    pub config: ApiConfig,
    /// What `GET /metrics` reports.
    pub metrics: Arc<Metrics>,
    /// Whether a graceful shutdown has started.
    pub lifecycle: Arc<Lifecycle>,
    /// Rate limits, built from `config.rate_limits`.
    pub limits: Arc<Limiter>,
}

/// Wakes the event delivery worker: what a handler that makes a delivery due reaches.
pub struct EventWakeup(pub Arc<Notify>);

impl EventWakeup {
    /// The worker looks for due deliveries now rather than at its next pause's end.
    pub fn notify(&self) {
        self.0.notify_one();
    }
}

/// Set when a graceful shutdown starts: readiness then answers 503, so load balancers stop
/// sending requests over connections they keep open, and media streams end early.
#[derive(Debug, Default)]
pub struct Lifecycle(std::sync::atomic::AtomicBool);

impl Lifecycle {
    /// The shutdown has started (never undone).
    pub fn begin_shutdown(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether the shutdown has started.
    pub fn shutting_down(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// A scrape reads the pool and the backlogs through the services that own them.
#[async_trait::async_trait]
impl Probe for AppState {
    fn pool(&self) -> PoolStatus {
        self.health.pool()
    }

    // Each count reads an index only (`webhook_events_due`, `webhook_events_failed`, the outbox's).
    async fn backlogs(&self) -> Result<Backlogs, parley_domain::DomainError> {
        Ok(Backlogs {
            inbound: self.inbound.backlog().await?,
            inbound_given_up: self.inbound.given_up().await?,
            events: self.deliveries.backlog().await?,
            rules: self.rule_engine.backlog().await?,
            scheduled: self.scheduled.pending().await?,
        })
    }
}
