//! The event webhooks DTOs: endpoints, events and delivery attempts as the API shows them, and
//! the bodies and queries that make and change endpoints.

use super::*;
use crate::http::extract::double_option;
use parley_domain::services::{EndpointPatchInput, EndpointWithSecret, EventListQuery, NewEndpointInput, Patch, WebhookPageQuery};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEndpointDto {
    #[schema(example = "we_8ZkXq1bQ0mVhT3sYwR2cLd9a")]
    pub id: String,
    #[schema(example = "https://example.com/parley/events")]
    pub url: String,
    /// Subscribed event types, or `["*"]` for every type.
    #[schema(value_type = EventSelectionSchema, example = json!(["message.received", "activity.updated"]))]
    pub events: Vec<String>,
    pub description: Option<String>,
    /// Whether deliveries go out.
    pub enabled: bool,
    /// Why it is off: `by_owner` (`enabled: false`) or `failing` (3 days of nothing but failed
    /// deliveries); null while enabled.
    #[schema(value_type = Option<String>)]
    pub disabled_reason: Option<&'static str>,
    #[schema(format = DateTime)]
    pub disabled_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&WebhookEndpoint> for WebhookEndpointDto {
    fn from(e: &WebhookEndpoint) -> Self {
        Self::from(&e.public())
    }
}

impl From<&PublicEndpoint> for WebhookEndpointDto {
    fn from(e: &PublicEndpoint) -> Self {
        Self {
            id: e.id.as_str().to_string(),
            url: e.url.as_str().to_string(),
            events: e.events.names().into_iter().map(str::to_string).collect(),
            description: e.description.clone(),
            enabled: e.enabled(),
            disabled_reason: e.disabled.map(|d| d.reason.as_str()),
            disabled_at: e.disabled.map(|d| timestamp(d.at)),
            created_at: timestamp(e.created_at),
            updated_at: timestamp(e.updated_at),
        }
    }
}

/// An endpoint with its signing secret: only in the answer that made the secret (create,
/// rotate_secret). Store it; it is never shown again.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEndpointWithSecretDto {
    #[serde(flatten)]
    pub endpoint: WebhookEndpointDto,
    /// `whsec_<base64 key>`: verify each delivery's `webhook-signature` with it (Standard Webhooks).
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwc3Zf2pH6qU4=")]
    pub secret: String,
}

impl From<EndpointWithSecret> for WebhookEndpointWithSecretDto {
    fn from(e: EndpointWithSecret) -> Self {
        Self { endpoint: WebhookEndpointDto::from(&e.endpoint), secret: e.secret }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookEndpoint {
    /// Required. `https` to a public address: a host name must resolve to public addresses
    /// only (`http` and private addresses only where the operator allows them); no user name,
    /// password or fragment; at most 2048 characters.
    #[schema(value_type = String, required = true, max_length = 2048, example = "https://example.com/parley/events",
        pattern = "^https?://")]
    pub url: Option<String>,
    /// Required: event types, each one of `SubscribableEvent` (`message.received`,
    /// `tag.deleted`…), or `["*"]` for every type, present and future.
    #[schema(value_type = EventSelectionSchema, required = true)]
    pub events: Option<Vec<String>>,
    /// At most 500 characters.
    #[schema(max_length = 500, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub description: Option<String>,
}

impl From<CreateWebhookEndpoint> for NewEndpointInput {
    fn from(b: CreateWebhookEndpoint) -> Self {
        Self { url: b.url, events: b.events, description: b.description }
    }
}

/// Only the fields sent change; `description: null` clears it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhookEndpoint {
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = String, required = false, max_length = 2048,
        pattern = "^https?://")]
    pub url: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = EventSelectionSchema, required = false)]
    pub events: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>, max_length = 500, pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub description: Option<Option<String>>,
    /// `false` stops deliveries (they wait); `true` resumes them and clears a `failing` record.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = bool, required = false)]
    pub enabled: Option<Option<bool>>,
}

impl From<UpdateWebhookEndpoint> for EndpointPatchInput {
    fn from(b: UpdateWebhookEndpoint) -> Self {
        Self {
            url: Patch::from_double_option(b.url),
            events: Patch::from_double_option(b.events),
            description: Patch::from_double_option(b.description),
            enabled: Patch::from_double_option(b.enabled),
        }
    }
}

/// An event: `data.object` is the object exactly as the API showed it after the change.
#[derive(Debug, Serialize, ToSchema)]
pub struct EventDto {
    #[schema(example = "evt_2bQ0mVhT3sYwR2cLd9a8ZkXq")]
    pub id: String,
    #[serde(rename = "type")]
    #[schema(value_type = EventTypeName, example = "message.received")]
    pub event_type: &'static str,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// `{"object": …}`.
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

impl From<&Event> for EventDto {
    fn from(e: &Event) -> Self {
        let data = serde_json::json!({ "object": super::event_object(&e.object) });
        Self { id: e.id.as_str().to_string(), event_type: e.event_type.as_str(), created_at: timestamp(e.created_at), data }
    }
}

impl From<Event> for EventDto {
    fn from(e: Event) -> Self {
        Self::from(&e)
    }
}

/// One try to deliver an event to the endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryAttemptDto {
    pub event_id: String,
    /// 1 for the first try of this event to this endpoint.
    pub attempt: u32,
    #[schema(format = DateTime)]
    pub attempted_at: String,
    /// What the endpoint answered; null when it never answered.
    pub response_status: Option<u16>,
    pub duration_ms: u64,
    /// Why it failed; null for a delivery.
    pub error: Option<String>,
    /// When it is tried again; null once delivered or given up.
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
}

impl From<DeliveryAttempt> for DeliveryAttemptDto {
    fn from(a: DeliveryAttempt) -> Self {
        Self {
            event_id: a.event_id.into_string(),
            attempt: a.attempt,
            attempted_at: timestamp(a.attempted_at),
            response_status: a.response_status,
            duration_ms: a.duration_ms,
            error: a.error,
            next_attempt_at: a.next_attempt_at.map(timestamp),
        }
    }
}

/// A redelivery, scheduled.
#[derive(Debug, Serialize, ToSchema)]
pub struct RedeliveryDto {
    pub event_id: String,
    pub endpoint_id: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct WebhookPageParams {
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
}

impl From<WebhookPageParams> for WebhookPageQuery {
    fn from(p: WebhookPageParams) -> Self {
        Self { limit: p.limit, offset: p.offset }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventListParams {
    /// Only events of this type (`ping` included).
    #[serde(rename = "type")]
    #[param(rename = "type", value_type = Option<EventTypeName>)]
    pub event_type: Option<String>,
    /// RFC 3339: only events created after it.
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
    /// Page size, 1–100, default 20.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
}

impl From<EventListParams> for EventListQuery {
    fn from(p: EventListParams) -> Self {
        Self { event_type: p.event_type, since: p.since, limit: p.limit, offset: p.offset }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RedeliverParams {
    /// Required: the endpoint (`we_…`) to deliver the event to.
    #[param(value_type = String, required = true, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub endpoint: Option<String>,
}
