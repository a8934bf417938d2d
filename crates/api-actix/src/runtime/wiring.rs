//! The composition root: every adapter is chosen once, and every service built once on the
//! adapters it uses, with the configuration applied as it is built. `parley serve`, the one-shot
//! commands and the tests all wire the app here, so what they run is wired the same way.

use std::sync::Arc;
use std::time::Duration;

use parley_adapters_embeddings::ExactIndex;
use parley_domain::ports::{Clock, Embedder, IdSource, MessagingPlatform, PasswordHashing, Repositories, SendPacer, WebhookSender};
use parley_domain::services::*;
use tokio::sync::Notify;

use crate::runtime::config::ApiConfig;
use crate::runtime::event_hub::EventHub;
use crate::runtime::intake::Intake;
use crate::runtime::limits::Limiter;
use crate::runtime::metrics::{Metrics, TimedEmbedder};
use crate::runtime::platform::{PlatformSettings, Platforms};
use crate::runtime::state::{AppState, Representations};

/// How often the live tail of events is read while a stream listens: an event reaches every
/// stream within this plus a read.
const STREAM_POLL_EVERY: Duration = Duration::from_millis(250);

/// The adapters a caller chooses; the rest (the address resolver, the event webhook sender, the
/// IMAP reader, the vector index) follow from the configuration.
pub struct Adapters {
    /// Storage: SQLite, PostgreSQL or memory.
    pub repos: Repositories,
    /// The messaging platforms: where messages go out, media come from and webhooks are
    /// proven and read.
    pub platforms: Platforms,
    /// Texts to vectors, for search by meaning.
    pub embedder: Arc<dyn Embedder>,
    /// Time: the system clock, or a test's.
    pub clock: Arc<dyn Clock>,
    /// Ids and key secrets.
    pub ids: Arc<dyn IdSource>,
    /// Members' password hashing (Argon2id).
    pub passwords: Arc<dyn PasswordHashing>,
    /// The HTTP layer's representations the background work needs.
    pub representations: Representations,
}

impl Adapters {
    /// The production adapters around `repos`: the platforms' default settings (sandbox
    /// deliveries are not delivered: there are no workers), the built-in static embedder, the
    /// system clock and random ids. For one-shot commands and tools.
    pub fn one_shot(repos: Repositories, representations: Representations) -> Self {
        let (platforms, _deliveries) = Platforms::build(PlatformSettings::default()).expect("the platforms' default settings are valid");
        Self::system(repos, platforms, Arc::new(parley_adapters_embeddings::StaticEmbedder::bundled()), representations)
    }

    /// `platforms` and `embedder` around `repos`, with the system clock and random ids.
    pub fn system(repos: Repositories, platforms: Platforms, embedder: Arc<dyn Embedder>, representations: Representations) -> Self {
        Self {
            repos,
            platforms,
            embedder,
            clock: Arc::new(parley_adapters_system::SystemClock),
            ids: Arc::new(parley_adapters_system::RandomIds),
            passwords: Arc::new(parley_adapters_system::Argon2Passwords::new()),
            representations,
        }
    }
}

/// The app: every service wired to `adapters`, `config` applied. Call inside a tokio runtime
/// when the rate limits use Redis (its connection task runs there).
pub fn wire(adapters: Adapters, config: ApiConfig) -> AppState {
    let Adapters { repos, platforms, embedder, clock, ids, passwords, representations } = adapters;
    let event_body = representations.event_body;
    let platform = platforms.sender();
    let inbound =
        Arc::new(InboundService::new(InboundPorts::from(&repos), platforms.decoders(), platform.clone(), clock.clone(), ids.clone()));
    let inbound_wakeup = Arc::new(Notify::new());
    let workers_runtime = Arc::new(std::sync::OnceLock::new());
    let metrics = Arc::new(Metrics::new());
    let embedder: Arc<dyn Embedder> = Arc::new(TimedEmbedder::new(embedder, metrics.clone()));
    let index = Arc::new(ExactIndex::new(embedder.dimensions()));
    let search = Arc::new(SearchService::new(repos.products.clone(), repos.vectors.clone(), embedder, index));
    let event_stream = Arc::new(EventStreamService::new(repos.events.clone(), clock.clone()));
    let allow_private = config.webhook_allow_private;
    let webhook_timeout = config.webhook_send_timeout.unwrap_or(parley_adapters_webhooks::SEND_TIMEOUT);
    let sending = Sending { platform: platform.clone(), pacer: crate::runtime::pacing::pacer(config.rate_limits.redis.as_ref()) };
    let rule_engine = Arc::new(rule_engine(&repos, &sending, &clock, &ids, &config, representations));
    AppState {
        rule_engine,
        scheduled: Arc::new(scheduled_sender(&repos, &sending, &clock, &ids, &config)),
        keys: Arc::new(KeyService::new(repos.agents.clone(), repos.keys.clone(), clock.clone(), ids.clone())),
        members: Arc::new(MemberService::new(repos.agents.clone(), repos.members.clone(), passwords.clone(), clock.clone(), ids.clone())),
        sessions: Arc::new(SessionService::new(
            repos.members.clone(),
            repos.sessions.clone(),
            repos.sign_in_attempts.clone(),
            passwords,
            clock.clone(),
            ids.clone(),
        )),
        tags: Arc::new(TagService::new(repos.tags.clone(), clock.clone(), ids.clone())),
        canned_responses: Arc::new(CannedResponseService::new(repos.canned_responses.clone(), clock.clone(), ids.clone())),
        business_hours: Arc::new(BusinessHoursService::new(repos.business_hours.clone(), clock.clone())),
        first_response: Arc::new(FirstResponseService::new(
            repos.first_response.clone(),
            repos.activities.clone(),
            clock.clone(),
            ids.clone(),
        )),
        reports: Arc::new(ReportService::new(repos.reports.clone(), repos.business_hours.clone(), clock.clone())),
        rules: Arc::new(RuleService::new(
            repos.rules.clone(),
            repos.rule_runs.clone(),
            RuleReferences {
                tags: repos.tags.clone(),
                members: repos.members.clone(),
                templates: repos.templates.clone(),
                canned_responses: repos.canned_responses.clone(),
            },
            clock.clone(),
            ids.clone(),
        )),
        contacts: Arc::new(ContactService::new(repos.contacts.clone(), clock.clone(), ids.clone())),
        activities: Arc::new(activity_service(&repos, &clock, &ids)),
        catalog: Arc::new(CatalogService::new(repos.products.clone(), repos.agents.clone(), clock.clone(), search.clone())),
        search,
        carts: Arc::new(CartService::new(repos.carts.clone(), repos.products.clone(), clock.clone(), ids.clone())),
        lines: Arc::new(LineService::new(repos.lines.clone(), repos.templates.clone(), platform.clone(), clock.clone(), ids.clone())),
        sends: Arc::new(send_service(&repos, &sending, &clock, &ids)),
        messages: Arc::new(message_service(&repos, &sending, &clock, &ids, &config)),
        idempotency: Arc::new(IdempotencyService::new(repos.idempotency.clone(), clock.clone())),
        campaigns: Arc::new(CampaignService::new(repos.executions.clone(), repos.messages.clone())),
        webhook_endpoints: Arc::new(
            WebhookEndpointService::new(
                repos.webhook_endpoints.clone(),
                repos.events.clone(),
                Arc::new(parley_adapters_system::SystemResolver),
                clock.clone(),
                ids.clone(),
            )
            .allowing_private(allow_private)
            .with_max_endpoints(config.webhook_endpoints_max.unwrap_or(DEFAULT_MAX_ENDPOINTS)),
        ),
        deliveries: Arc::new(EventDeliveryService::new(
            repos.events.clone(),
            webhook_sender(allow_private, webhook_timeout),
            clock.clone(),
            ids.clone(),
        )),
        event_stream: event_stream.clone(),
        event_hub: Arc::new(EventHub::new(
            event_body,
            STREAM_POLL_EVERY,
            config.stream_heartbeat.unwrap_or(crate::runtime::event_hub::DEFAULT_HEARTBEAT),
        )),
        event_body,
        event_wakeup: Arc::new(Notify::new()),
        mailboxes: MailboxService::new(
            repos.lines.clone(),
            repos.mailboxes.clone(),
            Arc::new(parley_adapters_email::ports::ImapReader),
            clock.clone(),
            format!("{}-{}", std::process::id(), ids.secret(12)),
        ),
        inbound: inbound.clone(),
        intake: Arc::new(Intake {
            inbound,
            wakeup: inbound_wakeup.clone(),
            workers_runtime: workers_runtime.clone(),
            ingest_only: config.ingest_only,
            metrics: metrics.clone(),
        }),
        platforms: Arc::new(platforms),
        pages: Arc::new(crate::runtime::page_cache::PageCache::new(repos.changes.clone())),
        health: repos.health.clone(),
        inbound_wakeup,
        workers_runtime,
        metrics,
        lifecycle: Arc::default(),
        limits: Arc::new(Limiter::new(config.rate_limits.clone())),
        config,
    }
}

/// The HTTP sender of event deliveries, with the address rules unless `allow_private`.
fn webhook_sender(allow_private: bool, timeout: Duration) -> Arc<dyn WebhookSender> {
    Arc::new(
        parley_adapters_webhooks::HttpWebhookSender::new(allow_private, timeout)
            .expect("the webhook HTTP client builds with rustls and fixed settings"),
    )
}

/// The rule engine, acting through services of its own that report their changes as a rule's
/// (so they run no rules).
fn rule_engine(
    repos: &Repositories,
    sending: &Sending,
    clock: &Arc<dyn Clock>,
    ids: &Arc<dyn IdSource>,
    config: &ApiConfig,
    representations: Representations,
) -> RuleEngine {
    RuleEngine::new(
        repos.rules.clone(),
        repos.rule_runs.clone(),
        RuleReads {
            activities: repos.activities.clone(),
            contacts: repos.contacts.clone(),
            hours: repos.business_hours.clone(),
            canned_responses: repos.canned_responses.clone(),
        },
        RuleActors {
            activities: activity_service(repos, clock, ids).by_rules(),
            messages: message_service(repos, sending, clock, ids, config).by_rules(),
            sends: send_service(repos, sending, clock, ids).by_rules(),
            round_robin: RoundRobin::new(repos.routing.clone(), clock.clone()),
        },
        representations.template_components,
        clock.clone(),
    )
}

/// Conversations: status, assignment, tags (the API's, and a rule's `by_rules()`).
fn activity_service(repos: &Repositories, clock: &Arc<dyn Clock>, ids: &Arc<dyn IdSource>) -> ActivityService {
    ActivityService::new(
        repos.activities.clone(),
        repos.messages.clone(),
        repos.contacts.clone(),
        repos.tags.clone(),
        repos.members.clone(),
        clock.clone(),
        ids.clone(),
    )
}

/// Timelines, replies and notes (the API's, and a rule's `by_rules()`).
fn message_service(
    repos: &Repositories,
    sending: &Sending,
    clock: &Arc<dyn Clock>,
    ids: &Arc<dyn IdSource>,
    config: &ApiConfig,
) -> MessageService {
    MessageService::new(MessagePorts::from(repos), sending.platform.clone(), clock.clone(), ids.clone())
        .with_storefront_url(config.storefront_url.clone())
        .with_pacer(sending.pacer.clone())
}

/// Template sends (the API's, and a rule's `by_rules()`).
fn send_service(repos: &Repositories, sending: &Sending, clock: &Arc<dyn Clock>, ids: &Arc<dyn IdSource>) -> SendService {
    SendService::new(SendPorts::from(repos), sending.platform.clone(), clock.clone(), ids.clone()).with_pacer(sending.pacer.clone())
}

/// Scheduled messages at their time, through services of their own.
fn scheduled_sender(
    repos: &Repositories,
    sending: &Sending,
    clock: &Arc<dyn Clock>,
    ids: &Arc<dyn IdSource>,
    config: &ApiConfig,
) -> ScheduledSender {
    ScheduledSender::new(
        repos.scheduled.clone(),
        repos.lines.clone(),
        sending.pacer.clone(),
        Arc::new(message_service(repos, sending, clock, ids, config)),
        Arc::new(send_service(repos, sending, clock, ids)),
        clock.clone(),
    )
}

/// What sends messages: the platforms, and each line's pace.
struct Sending {
    platform: Arc<dyn MessagingPlatform>,
    pacer: Arc<dyn SendPacer>,
}
