//! Webhook endpoints and the events list: what an integration registers to hear about changes,
//! and what it reads to catch up (`docs/events.md`).

use std::sync::Arc;

use crate::error::{CHECKED, Violations};
use crate::model::*;
use crate::ports::{AddressResolver, Clock, EventRepository, IdSource, WebhookEndpointRepository};
use crate::services::{EventMaker, Patch, not_null, required};
use crate::{DomainError, FieldError};

/// Raw fields of a new webhook endpoint, validated by [`WebhookEndpointService::create`].
#[derive(Debug, Clone, Default)]
pub struct NewEndpointInput {
    /// Required: an absolute `https` URL of at most 2,048 characters, without credentials or
    /// fragment, whose host is a public address or a name resolving only to public ones
    /// (`http` and private addresses only when the operator allows them).
    pub url: Option<String>,
    /// Required: the event types it receives, by wire name, at least one and each once; or
    /// `["*"]` for every type, present and future.
    pub events: Option<Vec<String>>,
    /// Free text, at most 500 characters once trimmed; blank or absent means none.
    pub description: Option<String>,
}

/// Raw partial update of a webhook endpoint: each field kept, cleared or set.
#[derive(Debug, Clone, Default)]
pub struct EndpointPatchInput {
    /// A new URL, under the same rules as on creation; never cleared.
    pub url: Patch<String>,
    /// A new selection of event types, under the same rules as on creation; never cleared.
    pub events: Patch<Vec<String>>,
    /// A new description; cleared or set blank, the endpoint has none.
    pub description: Patch<String>,
    /// `false` disables the endpoint (by its owner); `true` enables a disabled one. Never
    /// cleared.
    pub enabled: Patch<bool>,
}

/// Raw events-list query, validated here.
#[derive(Debug, Clone, Default)]
pub struct EventListQuery {
    /// An event type's wire name (`ping` included): only events of that type. Errors name it
    /// `type`.
    pub event_type: Option<String>,
    /// An RFC 3339 time: only events created after it (not at it).
    pub since: Option<String>,
    /// Page size, an integer from 1 to 100; 20 when absent.
    pub limit: Option<String>,
    /// Matching events to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
}

/// A raw page of endpoints or of an endpoint's attempts.
#[derive(Debug, Clone, Default)]
pub struct WebhookPageQuery {
    /// Page size, an integer from 1 to 100; 20 when absent.
    pub limit: Option<String>,
    /// Items to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
}

impl WebhookPageQuery {
    fn page(&self) -> Result<PageRequest, DomainError> {
        PageRequest::parse(self.limit.as_deref(), self.offset.as_deref(), WEBHOOK_PAGES).map_err(DomainError::Validation)
    }
}

/// An endpoint with the secret that signs its deliveries: shown when the endpoint is made and
/// when its secret is rotated, never again.
#[derive(Debug, Clone)]
pub struct EndpointWithSecret {
    /// The endpoint as stored.
    pub endpoint: WebhookEndpoint,
    /// Its current signing secret, `whsec_…`, which receivers check signatures with.
    pub secret: String,
}

/// Pages of endpoints, events and attempts.
pub const WEBHOOK_PAGES: PageBounds = PageBounds::CONVERSATIONS;

/// How many endpoints an agent may have unless the operator says otherwise (Stripe's limit):
/// each one multiplies every change's deliveries, so the number bounds what one tenant can ask
/// of the delivery worker.
pub const DEFAULT_MAX_ENDPOINTS: u32 = 16;

/// A disabled endpoint gets nothing, a test or a redelivery included, until it is enabled.
fn refuse_disabled(endpoint: &WebhookEndpoint) -> Result<(), DomainError> {
    match endpoint.disabled {
        None => Ok(()),
        Some(_) => Err(DomainError::Conflict {
            message: "the webhook endpoint is disabled: enable it (PATCH with \"enabled\": true) to deliver to it".into(),
            details: vec![FieldError::new("endpoint", "is disabled")],
        }),
    }
}

/// The agent's webhook endpoints (registered, changed, tested, their secrets rotated) and the
/// events list. Endpoint changes record no events of their own.
#[derive(Clone)]
pub struct WebhookEndpointService {
    endpoints: Arc<dyn WebhookEndpointRepository>,
    events: Arc<dyn EventRepository>,
    resolver: Arc<dyn AddressResolver>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    allow_private: bool,
    max_endpoints: u32,
}

impl WebhookEndpointService {
    /// A service over these ports, with the default address rules (`https`, public addresses
    /// only) and [`DEFAULT_MAX_ENDPOINTS`] per agent; `resolver` checks what URL host names
    /// resolve to, `objects` renders the endpoint a test ping carries, and `ids` also draws
    /// signing keys.
    pub fn new(
        endpoints: Arc<dyn WebhookEndpointRepository>,
        events: Arc<dyn EventRepository>,
        resolver: Arc<dyn AddressResolver>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self { endpoints, events, resolver, clock, ids, allow_private: false, max_endpoints: DEFAULT_MAX_ENDPOINTS }
    }

    /// How many endpoints each agent may have (the operator's `PARLEY_WEBHOOK_ENDPOINTS_MAX`).
    pub fn with_max_endpoints(mut self, max: u32) -> Self {
        self.max_endpoints = max;
        self
    }

    /// Lifts the address rules: `http` and private addresses allowed (the operator's
    /// `PARLEY_WEBHOOK_ALLOW_PRIVATE`, for tests and on-premise receivers).
    pub fn allowing_private(mut self, allow: bool) -> Self {
        self.allow_private = allow;
        self
    }

    /// A URL by the address rules: its form, and what its host name resolves to now.
    async fn checked_url(&self, raw: &str) -> Result<EndpointUrl, FieldError> {
        let url = EndpointUrl::new(raw, self.allow_private)?;
        if let Host::Name(host) = url.host()
            && !self.allow_private
        {
            let addresses = self
                .resolver
                .resolve(host, url.port())
                .await
                .map_err(|e| FieldError::new("url", format!("its host {host} does not resolve ({e})")))?;
            check_resolved(host, &addresses, false)?;
        }
        Ok(url)
    }

    fn new_key(&self) -> SigningKey {
        SigningKey::new(self.ids.bytes(KEY_BYTES)).expect("KEY_BYTES is within the specification's 24 to 64")
    }

    /// Registers an endpoint, enabled, with a fresh signing secret, returned this once.
    /// `Validation` names every missing or bad field (a URL host that does not resolve, or
    /// resolves to a private address, included); `Conflict` (on `url`) when the agent already
    /// has its maximum of endpoints.
    pub async fn create(&self, agent: &AgentId, input: NewEndpointInput) -> Result<EndpointWithSecret, DomainError> {
        let mut v = Violations::default();
        let events = v.check(required("events", input.events).and_then(|e| EventSelection::new(&e)));
        let description = match input.description {
            None => Some(None),
            Some(d) => v.check(endpoint_description(&d)),
        };
        let url = match required("url", input.url) {
            Ok(raw) => v.check(self.checked_url(&raw).await),
            Err(e) => v.check::<EndpointUrl>(Err(e)),
        };
        v.finish()?;
        let now = self.clock.now();
        let endpoint = WebhookEndpoint {
            id: EndpointId::new(self.ids.new_id(IdKind::WebhookEndpoint)),
            agent_id: agent.clone(),
            url: url.expect(CHECKED),
            events: events.expect(CHECKED),
            description: description.expect(CHECKED),
            secrets: EndpointSecrets { current: self.new_key(), previous: None },
            disabled: None,
            failing_since: None,
            paused_until: None,
            created_at: now,
            updated_at: now,
        };
        if !self.endpoints.insert(&endpoint, self.max_endpoints).await? {
            let max = self.max_endpoints;
            return Err(DomainError::Conflict {
                message: format!("an agent may have at most {max} webhook endpoints: delete one before adding another"),
                details: vec![FieldError::new("url", format!("the agent already has {max} webhook endpoints"))],
            });
        }
        let secret = endpoint.secrets.current.secret();
        Ok(EndpointWithSecret { endpoint, secret })
    }

    /// One page of the agent's endpoints, newest first; `Validation` on bad page values.
    pub async fn list(&self, agent: &AgentId, query: WebhookPageQuery) -> Result<Page<WebhookEndpoint>, DomainError> {
        Ok(self.endpoints.list(agent, query.page()?).await?)
    }

    /// The agent's endpoint; `NotFound` (`webhook endpoint`) when unknown or another agent's.
    pub async fn get(&self, agent: &AgentId, id: &EndpointId) -> Result<WebhookEndpoint, DomainError> {
        self.endpoints.get(agent, id).await?.ok_or(DomainError::not_found("webhook endpoint"))
    }

    /// Changes url, events, description or `enabled`. Enabling a disabled endpoint clears its
    /// failing record and closes its breaker, so it gets a fresh 3 days and deliveries at once.
    /// `Validation` names every bad field (a `null` url, events or enabled included) before
    /// anything is read; `NotFound` (`webhook endpoint`) when unknown.
    pub async fn update(&self, agent: &AgentId, id: &EndpointId, input: EndpointPatchInput) -> Result<WebhookEndpoint, DomainError> {
        let mut v = Violations::default();
        let events = v.check(not_null("events", input.events).and_then(|e| e.map(|e| EventSelection::new(&e)).transpose()));
        let description = v.check(input.description.try_map(|d| endpoint_description(&d)).map(Patch::flatten));
        let enabled = v.check(not_null("enabled", input.enabled));
        let url = match not_null("url", input.url) {
            Ok(Some(raw)) => v.check(self.checked_url(&raw).await.map(Some)),
            Ok(None) => Some(None),
            Err(e) => v.check::<Option<EndpointUrl>>(Err(e)),
        };
        v.finish()?;

        let mut endpoint = self.get(agent, id).await?;
        let now = self.clock.now();
        if let Some(url) = url.flatten() {
            endpoint.url = url;
        }
        if let Some(events) = events.flatten() {
            endpoint.events = events;
        }
        description.expect(CHECKED).apply_to(&mut endpoint.description);
        match (enabled.flatten(), endpoint.disabled) {
            (Some(true), Some(_)) => {
                endpoint.disabled = None;
                endpoint.failing_since = None;
                endpoint.paused_until = None;
            }
            (Some(false), None) => endpoint.disabled = Some(Disabled { at: now, reason: DisabledReason::ByOwner }),
            _ => {}
        }
        endpoint.updated_at = now;
        if self.endpoints.update(&endpoint).await? { Ok(endpoint) } else { Err(DomainError::not_found("webhook endpoint")) }
    }

    /// Removes the endpoint and its pending deliveries; its events stay in the events list.
    /// `NotFound` (`webhook endpoint`) when unknown.
    pub async fn delete(&self, agent: &AgentId, id: &EndpointId) -> Result<(), DomainError> {
        if self.endpoints.delete(agent, id).await? { Ok(()) } else { Err(DomainError::not_found("webhook endpoint")) }
    }

    /// A new signing secret, returned this once; the old one keeps signing beside it for 24
    /// hours. `NotFound` (`webhook endpoint`) when unknown.
    pub async fn rotate_secret(&self, agent: &AgentId, id: &EndpointId) -> Result<EndpointWithSecret, DomainError> {
        let mut endpoint = self.get(agent, id).await?;
        let now = self.clock.now();
        endpoint.secrets.rotate(self.new_key(), now);
        endpoint.updated_at = now;
        if !self.endpoints.update(&endpoint).await? {
            return Err(DomainError::not_found("webhook endpoint"));
        }
        let secret = endpoint.secrets.current.secret();
        Ok(EndpointWithSecret { endpoint, secret })
    }

    /// Sends a `ping` event (the endpoint as the API shows it) to this endpoint alone, whatever
    /// it subscribes to: to check a receiver. The endpoint must be enabled (`Conflict`
    /// otherwise); `NotFound` (`webhook endpoint`) when unknown.
    pub async fn test(&self, agent: &AgentId, id: &EndpointId) -> Result<Event, DomainError> {
        let endpoint = self.get(agent, id).await?;
        refuse_disabled(&endpoint)?;
        let event = EventMaker::new(self.ids.clone()).make(agent, EventType::Ping, self.clock.now(), &endpoint.public());
        self.events.emit(&event, Some(&endpoint.id)).await?;
        Ok(event)
    }

    /// The endpoint's delivery attempts, newest first; `Validation` on bad page values,
    /// `NotFound` when the endpoint is not the agent's.
    pub async fn attempts(&self, agent: &AgentId, id: &EndpointId, query: WebhookPageQuery) -> Result<Page<DeliveryAttempt>, DomainError> {
        Ok(self.events.attempts(agent, id, query.page()?).await?)
    }

    /// Sends an event to an endpoint again, now (or for the first time, when the endpoint was
    /// not subscribed to it or did not exist yet). The endpoint must be enabled (`Conflict`
    /// otherwise). `Validation` when `endpoint` is missing; `NotFound` (`event` or `webhook
    /// endpoint`) when either is unknown.
    pub async fn redeliver(&self, agent: &AgentId, event: &EventId, endpoint: Option<String>) -> Result<(), DomainError> {
        let endpoint = required("endpoint", endpoint)
            .and_then(|raw| EndpointId::field("endpoint", raw))
            .map_err(|e| DomainError::Validation(vec![e]))?;
        self.get_event(agent, event).await?;
        refuse_disabled(&self.get(agent, &endpoint).await?)?;
        if self.events.redeliver(agent, event, &endpoint, self.clock.now()).await? { Ok(()) } else { Err(DomainError::not_found("event")) }
    }

    /// Events of the last 30 days, newest first. Bad `type`, `since` or page values are
    /// reported together in `Validation`.
    pub async fn list_events(&self, agent: &AgentId, query: EventListQuery) -> Result<Page<Event>, DomainError> {
        let mut v = Violations::default();
        let event_type = query.event_type.map(|t| {
            v.check(EventType::parse(&t).ok_or_else(|| {
                let known: Vec<&str> = EventType::SUBSCRIBABLE.iter().chain(&[EventType::Ping]).map(|t| t.as_str()).collect();
                FieldError::new("type", format!("must be one of {}", known.join(", ")))
            }))
        });
        let since = query.since.map(|s| v.check(parse_timestamp("since", &s)));
        let page = v.check_all(PageRequest::parse(query.limit.as_deref(), query.offset.as_deref(), WEBHOOK_PAGES));
        v.finish()?;
        let filter = EventFilter { event_type: event_type.flatten(), since: since.flatten() };
        Ok(self.events.list(agent, &filter, page.expect(CHECKED)).await?)
    }

    /// The agent's event; `NotFound` (`event`) when unknown, another agent's, or past its 30
    /// days.
    pub async fn get_event(&self, agent: &AgentId, id: &EventId) -> Result<Event, DomainError> {
        self.events.get(agent, id).await?.ok_or(DomainError::not_found("event"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockAddressResolver, MockClock, MockEventRepository, MockIdSource, MockWebhookEndpointRepository};
    use chrono::TimeZone;

    struct Mocks {
        endpoints: MockWebhookEndpointRepository,
        events: MockEventRepository,
        resolver: MockAddressResolver,
    }

    fn mocks() -> Mocks {
        Mocks { endpoints: MockWebhookEndpointRepository::new(), events: MockEventRepository::new(), resolver: MockAddressResolver::new() }
    }

    fn service(m: Mocks) -> WebhookEndpointService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap());
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        ids.expect_bytes().returning(|n| vec![7; n]);
        WebhookEndpointService::new(Arc::new(m.endpoints), Arc::new(m.events), Arc::new(m.resolver), Arc::new(clock), Arc::new(ids))
    }

    fn input(url: &str) -> NewEndpointInput {
        NewEndpointInput { url: Some(url.into()), events: Some(vec!["*".into()]), description: None }
    }

    fn agent() -> AgentId {
        AgentId::new("agt_1")
    }

    #[tokio::test]
    async fn a_new_endpoint_gets_a_whsec_secret_shown_once_and_stored_as_its_key() {
        let mut m = mocks();
        m.resolver.expect_resolve().returning(|_, _| Ok(vec!["93.184.216.34".parse().unwrap()]));
        m.endpoints.expect_insert().times(1).returning(|_, _| Ok(true));
        let made = service(m).create(&agent(), input("https://example.com/hooks")).await.unwrap();
        assert!(made.secret.starts_with("whsec_"));
        assert_eq!(SigningKey::from_secret(&made.secret).unwrap(), made.endpoint.secrets.current);
        assert_eq!(made.endpoint.id.as_str(), "we_1");
        assert!(made.endpoint.enabled());
    }

    #[tokio::test]
    async fn an_agent_at_its_endpoint_limit_gets_a_conflict_naming_the_limit() {
        let mut m = mocks();
        m.resolver.expect_resolve().returning(|_, _| Ok(vec!["93.184.216.34".parse().unwrap()]));
        m.endpoints.expect_insert().withf(|_, max| *max == 3).times(1).returning(|_, _| Ok(false));
        let e = service(m).with_max_endpoints(3).create(&agent(), input("https://example.com/hooks")).await.unwrap_err();
        let DomainError::Conflict { message, .. } = e else { panic!("{e:?}") };
        assert!(message.contains("at most 3 webhook endpoints"), "{message}");
    }

    #[tokio::test]
    async fn a_name_resolving_to_a_private_address_is_refused_before_anything_is_stored() {
        let mut m = mocks();
        m.resolver.expect_resolve().returning(|_, _| Ok(vec!["::1".parse().unwrap()]));
        m.endpoints.expect_insert().never();
        let e = service(m).create(&agent(), input("https://sneaky.example/hooks")).await.unwrap_err();
        let DomainError::Validation(errors) = e else { panic!("{e:?}") };
        assert_eq!(errors[0].field, "url");
        assert!(errors[0].issue.contains("::1"), "{}", errors[0].issue);
    }

    #[tokio::test]
    async fn every_bad_field_is_reported_at_once() {
        let mut m = mocks();
        m.endpoints.expect_insert().never();
        let bad = NewEndpointInput { url: Some("http://example.com".into()), events: Some(vec![]), description: Some("x".repeat(501)) };
        let DomainError::Validation(errors) = service(m).create(&agent(), bad).await.unwrap_err() else { panic!() };
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, vec!["events", "description", "url"]);
    }

    #[tokio::test]
    async fn private_addresses_are_allowed_without_resolving_when_the_operator_says_so() {
        let mut m = mocks();
        m.resolver.expect_resolve().never();
        m.endpoints.expect_insert().returning(|_, _| Ok(true));
        let made = service(m).allowing_private(true).create(&agent(), input("http://localhost:9000/h")).await.unwrap();
        assert_eq!(made.endpoint.url.as_str(), "http://localhost:9000/h");
    }

    fn stored() -> WebhookEndpoint {
        let t = chrono::Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        WebhookEndpoint {
            id: EndpointId::new("we_1"),
            agent_id: agent(),
            url: EndpointUrl::new("https://93.184.216.34/h", false).unwrap(),
            events: EventSelection::All,
            description: None,
            secrets: EndpointSecrets { current: SigningKey::new(vec![1; 32]).unwrap(), previous: None },
            disabled: Some(Disabled { at: t, reason: DisabledReason::Failing }),
            failing_since: Some(t),
            paused_until: Some(t),
            created_at: t,
            updated_at: t,
        }
    }

    #[tokio::test]
    async fn enabling_a_disabled_endpoint_clears_its_failing_record() {
        let mut m = mocks();
        m.endpoints.expect_get().returning(|_, _| Ok(Some(stored())));
        m.endpoints
            .expect_update()
            .withf(|e| e.disabled.is_none() && e.failing_since.is_none() && e.paused_until.is_none())
            .returning(|_| Ok(true));
        let patch = EndpointPatchInput { enabled: Patch::Set(true), ..Default::default() };
        assert!(service(m).update(&agent(), &EndpointId::new("we_1"), patch).await.unwrap().enabled());
    }

    #[tokio::test]
    async fn rotating_keeps_the_old_key_signing_for_a_day() {
        let mut m = mocks();
        m.endpoints.expect_get().returning(|_, _| Ok(Some(stored())));
        m.endpoints.expect_update().returning(|_| Ok(true));
        let rotated = service(m).rotate_secret(&agent(), &EndpointId::new("we_1")).await.unwrap();
        let previous = rotated.endpoint.secrets.previous.as_ref().unwrap();
        assert_eq!(previous.key, stored().secrets.current);
        assert_eq!(previous.expires_at, chrono::Utc.with_ymd_and_hms(2026, 1, 3, 3, 4, 5).unwrap());
        assert_eq!(SigningKey::from_secret(&rotated.secret).unwrap(), rotated.endpoint.secrets.current);
    }

    #[tokio::test]
    async fn a_test_ping_goes_to_that_endpoint_alone() {
        let mut m = mocks();
        m.endpoints.expect_get().returning(|_, _| Ok(Some(WebhookEndpoint { disabled: None, ..stored() })));
        m.events
            .expect_emit()
            .withf(|e, only| e.event_type == EventType::Ping && only.map(|o| o.as_str()) == Some("we_1"))
            .times(1)
            .returning(|_, _| Ok(()));
        let event = service(m).test(&agent(), &EndpointId::new("we_1")).await.unwrap();
        assert!(matches!(&event.object, EventObject::WebhookEndpoint(e) if e.id.as_str() == "we_1"), "the endpoint, keys left out");
    }

    #[tokio::test]
    async fn redelivery_needs_an_endpoint_and_an_enabled_one() {
        let mut m = mocks();
        m.events.expect_get().returning(|a, id| {
            Ok(Some(Event {
                id: id.clone(),
                agent_id: a.clone(),
                event_type: EventType::Ping,
                created_at: chrono::Utc::now(),
                object: EventObject::Deleted { id: "con_1".into() },
                origin: EventOrigin::Outside,
            }))
        });
        m.endpoints.expect_get().returning(|_, _| Ok(Some(stored())));
        m.events.expect_redeliver().never();
        let s = service(m);
        let DomainError::Validation(e) = s.redeliver(&agent(), &EventId::new("evt_1"), None).await.unwrap_err() else { panic!() };
        assert_eq!(e[0].field, "endpoint");
        let e = s.redeliver(&agent(), &EventId::new("evt_1"), Some("we_1".into())).await.unwrap_err();
        assert!(matches!(e, DomainError::Conflict { .. }), "{e:?}");
    }
}
