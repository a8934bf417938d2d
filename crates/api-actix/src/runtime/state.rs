//! What every handler can reach: the domain services, wired to their adapters.

use std::sync::Arc;

use parley_adapters_embeddings::ExactIndex;
use parley_domain::ports::{ApiObjects, Clock, Embedder, IdSource, MessagingPlatform, PoolStatus, Repositories, StorageHealth};
use parley_domain::services::*;
use tokio::sync::Notify;

use crate::runtime::config::ApiConfig;
use crate::runtime::limits::Limiter;
use crate::runtime::metrics::{Backlogs, Metrics, Probe, TimedEmbedder};

pub struct AppState {
    pub keys: KeyService,
    pub tags: TagService,
    pub canned_responses: CannedResponseService,
    pub contacts: ContactService,
    pub activities: ActivityService,
    pub catalog: CatalogService,
    pub search: Arc<SearchService>,
    pub carts: CartService,
    pub lines: LineService,
    pub sends: SendService,
    pub messages: MessageService,
    pub idempotency: IdempotencyService,
    pub campaigns: CampaignService,
    pub inbound: InboundService,
    /// Reads email lines' mailboxes (the workers run it).
    pub mailboxes: MailboxService,
    pub webhook_endpoints: WebhookEndpointService,
    /// Delivers events to webhook endpoints (the workers run it).
    pub deliveries: Arc<EventDeliveryService>,
    /// Wakes the event delivery worker when a delivery was made due in this process.
    pub event_wakeup: Arc<Notify>,
    /// Whether the database answers, for readiness probes.
    pub health: Arc<dyn StorageHealth>,
    /// Wakes the inbound processor when a delivery was stored.
    pub inbound_wakeup: Arc<Notify>,
    /// The background workers' runtime, once they run: deliveries received over HTTP are
    /// processed there (see `routes/inbound.rs`).
    pub workers_runtime: std::sync::OnceLock<tokio::runtime::Handle>,
    pub config: ApiConfig,
    /// What `GET /metrics` reports.
    pub metrics: Arc<Metrics>,
    /// Set when a graceful shutdown starts: readiness then answers 503, so load balancers stop
    /// sending requests over connections they keep open.
    pub shutting_down: std::sync::atomic::AtomicBool,
    /// Rate limits, built from `config.rate_limits` by [`AppState::with_config`].
    pub limits: Arc<Limiter>,
}

impl AppState {
    pub fn new(
        repos: Repositories,
        platform: Arc<dyn MessagingPlatform>,
        embedder: Arc<dyn Embedder>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
        objects: Arc<dyn ApiObjects>,
    ) -> Self {
        let metrics = Arc::new(Metrics::new());
        let embedder: Arc<dyn Embedder> = Arc::new(TimedEmbedder::new(embedder, metrics.clone()));
        let index = Arc::new(ExactIndex::new(embedder.dimensions()));
        let search = Arc::new(SearchService::new(repos.products.clone(), repos.vectors.clone(), embedder, index));
        Self {
            keys: KeyService::new(repos.agents.clone(), repos.keys.clone(), clock.clone(), ids.clone()),
            tags: TagService::new(repos.tags.clone(), clock.clone(), ids.clone(), objects.clone()),
            canned_responses: CannedResponseService::new(repos.canned_responses.clone(), clock.clone(), ids.clone()),
            contacts: ContactService::new(repos.contacts.clone(), clock.clone(), ids.clone(), objects.clone()),
            activities: ActivityService::new(
                repos.activities.clone(),
                repos.messages.clone(),
                repos.contacts.clone(),
                repos.tags.clone(),
                clock.clone(),
                ids.clone(),
                objects.clone(),
            ),
            catalog: CatalogService::new(repos.products.clone(), repos.agents.clone(), clock.clone(), search.clone()),
            search,
            carts: CartService::new(repos.carts.clone(), repos.products.clone(), clock.clone(), ids.clone(), objects.clone()),
            lines: LineService::new(
                repos.lines.clone(),
                repos.templates.clone(),
                platform.clone(),
                clock.clone(),
                ids.clone(),
                objects.clone(),
            ),
            sends: SendService::new(SendPorts::from(&repos), platform.clone(), clock.clone(), ids.clone(), objects.clone()),
            messages: MessageService::new(MessagePorts::from(&repos), platform.clone(), clock.clone(), ids.clone(), objects.clone()),
            idempotency: IdempotencyService::new(repos.idempotency.clone(), clock.clone()),
            campaigns: CampaignService::new(repos.executions.clone(), repos.messages.clone()),
            webhook_endpoints: WebhookEndpointService::new(
                repos.webhook_endpoints.clone(),
                repos.events.clone(),
                Arc::new(parley_adapters_system::SystemResolver),
                objects.clone(),
                clock.clone(),
                ids.clone(),
            ),
            deliveries: Arc::new(EventDeliveryService::new(
                repos.events.clone(),
                webhook_sender(false, parley_adapters_webhooks::SEND_TIMEOUT),
                clock.clone(),
                ids.clone(),
            )),
            event_wakeup: Arc::new(Notify::new()),
            mailboxes: MailboxService::new(
                repos.lines.clone(),
                repos.mailboxes.clone(),
                Arc::new(parley_adapters_email::ports::ImapReader),
                clock.clone(),
                format!("{}-{}", std::process::id(), ids.secret(12)),
            ),
            inbound: InboundService::new(InboundPorts::from(&repos), crate::runtime::platform::decoders(), platform, clock, ids, objects),
            health: repos.health.clone(),
            inbound_wakeup: Arc::new(Notify::new()),
            workers_runtime: std::sync::OnceLock::new(),
            config: ApiConfig::default(),
            metrics,
            shutting_down: std::sync::atomic::AtomicBool::new(false),
            limits: Arc::new(Limiter::off()),
        }
    }

    /// Production adapters and the built-in static embedder, without background workers: for
    /// one-shot commands and tools. Sandbox sends are accepted but their statuses are not delivered.
    /// `objects` shows the objects events report (the HTTP layer's representation).
    pub fn with_system(repos: Repositories, objects: Arc<dyn ApiObjects>) -> Self {
        let (platform, _deliveries) = crate::runtime::platform::platform(
            parley_adapters_whatsapp::CloudApiConfig::default(),
            crate::runtime::platform::instagram_config(parley_adapters_whatsapp::DEFAULT_INSTAGRAM_BASE_URL),
            std::time::Duration::from_secs(3),
        )
        .expect("the default Cloud API settings are valid");
        let embedder = Arc::new(parley_adapters_embeddings::StaticEmbedder::bundled());
        Self::new(
            repos,
            platform,
            embedder,
            Arc::new(parley_adapters_system::SystemClock),
            Arc::new(parley_adapters_system::RandomIds),
            objects,
        )
    }

    /// Call inside a tokio runtime when the limits use Redis (its connection task runs there).
    pub fn with_config(mut self, config: ApiConfig) -> Self {
        self.limits = Arc::new(Limiter::new(config.rate_limits.clone()));
        let allow_private = config.webhook_allow_private;
        let max_endpoints = config.webhook_endpoints_max.unwrap_or(parley_domain::services::DEFAULT_MAX_ENDPOINTS);
        self.webhook_endpoints = self.webhook_endpoints.clone().allowing_private(allow_private).with_max_endpoints(max_endpoints);
        let timeout = config.webhook_send_timeout.unwrap_or(parley_adapters_webhooks::SEND_TIMEOUT);
        self.deliveries = Arc::new(self.deliveries.with_sender(webhook_sender(allow_private, timeout)));
        self.messages = self.messages.with_storefront_url(config.storefront_url.clone());
        self.config = config;
        self
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
        })
    }
}

/// The HTTP sender of event deliveries, with the address rules unless `allow_private`.
fn webhook_sender(allow_private: bool, timeout: std::time::Duration) -> Arc<dyn parley_domain::ports::WebhookSender> {
    Arc::new(
        parley_adapters_webhooks::HttpWebhookSender::new(allow_private, timeout)
            .expect("the webhook HTTP client builds with rustls and fixed settings"),
    )
}
