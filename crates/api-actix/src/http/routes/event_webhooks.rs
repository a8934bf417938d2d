//! Webhook endpoints, the events list and redelivery (docs/events.md).

use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::{EndpointId, EventId};
use parley_domain::services::WebhookEndpointService;

use super::{created, ok, page_body, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{
    CreateWebhookEndpoint, DataBody, Deleted, DeliveryAttemptDto, EventDto, EventListParams, PageBody, RedeliverParams, RedeliveryDto,
    UpdateWebhookEndpoint, WebhookEndpointDto, WebhookEndpointWithSecretDto, WebhookPageParams,
};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId, Query};
use crate::runtime::state::EventWakeup;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/webhook_endpoints").route(web::get().to(list_endpoints)).route(web::post().to(create_endpoint)))
        .service(
            resource("/webhook_endpoints/{id}")
                .route(web::get().to(get_endpoint))
                .route(web::patch().to(update_endpoint))
                .route(web::delete().to(delete_endpoint)),
        )
        .service(resource("/webhook_endpoints/{id}/rotate_secret").route(web::post().to(rotate_secret)))
        .service(resource("/webhook_endpoints/{id}/test").route(web::post().to(test_endpoint)))
        .service(resource("/webhook_endpoints/{id}/deliveries").route(web::get().to(list_attempts)))
        .service(resource("/events").route(web::get().to(list_events)))
        .service(resource("/events/{id}").route(web::get().to(get_event)))
        .service(resource("/events/{id}/redeliver").route(web::post().to(redeliver)));
}

/// List webhook endpoints, newest first.
#[utoipa::path(get, path = "/v1/webhook_endpoints", tag = "Event webhooks", security(("secret_key" = [])), params(WebhookPageParams),
    responses((status = 200, body = PageBody<WebhookEndpointDto>)))]
pub async fn list_endpoints(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    query: Query<WebhookPageParams>,
) -> ApiResult<HttpResponse> {
    let endpoints = webhook_endpoints.list(caller.agent(), query.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(page_body(endpoints, |e| WebhookEndpointDto::from(&e))))
}

/// Register an endpoint for events.
///
/// The answer carries its signing `secret`, shown only here.
#[utoipa::path(post, path = "/v1/webhook_endpoints", tag = "Event webhooks", security(("secret_key" = [])),
    request_body = CreateWebhookEndpoint,
    responses((status = 201, body = DataBody<WebhookEndpointWithSecretDto>),
        (status = 400, description = "Invalid fields, or a URL that is not https or reaches a non-public address", body = ErrorBody),
        (status = 409, description = "The agent already has its most webhook endpoints (16 unless the operator says otherwise)", body = ErrorBody)))]
pub async fn create_endpoint(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    body: Json<Object<CreateWebhookEndpoint>>,
) -> ApiResult<HttpResponse> {
    let made = webhook_endpoints.create(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(WebhookEndpointWithSecretDto::from(made)))
}

/// Fetch one webhook endpoint.
///
/// Its secret is never shown again.
#[utoipa::path(get, path = "/v1/webhook_endpoints/{id}", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Webhook endpoint id")),
    responses((status = 200, body = DataBody<WebhookEndpointDto>)))]
pub async fn get_endpoint(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    id: PathId<EndpointId>,
) -> ApiResult<HttpResponse> {
    let endpoint = webhook_endpoints.get(caller.agent(), &id.into_inner()).await?;
    Ok(ok(WebhookEndpointDto::from(&endpoint)))
}

/// Change an endpoint's url, events, description, or turn it off and on.
#[utoipa::path(patch, path = "/v1/webhook_endpoints/{id}", tag = "Event webhooks", security(("secret_key" = [])),
    request_body = UpdateWebhookEndpoint, params(("id" = String, Path, description = "Webhook endpoint id")),
    responses((status = 200, body = DataBody<WebhookEndpointDto>)))]
pub async fn update_endpoint(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    id: PathId<EndpointId>,
    body: Json<Object<UpdateWebhookEndpoint>>,
) -> ApiResult<HttpResponse> {
    let endpoint = webhook_endpoints.update(caller.agent(), &id.into_inner(), body.into_inner().into_inner().into()).await?;
    Ok(ok(WebhookEndpointDto::from(&endpoint)))
}

/// Delete an endpoint.
///
/// Its pending deliveries go with it; its events stay listed.
#[utoipa::path(delete, path = "/v1/webhook_endpoints/{id}", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Webhook endpoint id")),
    responses((status = 200, body = DataBody<Deleted>)))]
pub async fn delete_endpoint(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    id: PathId<EndpointId>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    webhook_endpoints.delete(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.into_string(), deleted: true }))
}

/// Rotate an endpoint's signing secret.
///
/// The new secret is shown only here; the old one keeps signing beside it for 24 hours.
#[utoipa::path(post, path = "/v1/webhook_endpoints/{id}/rotate_secret", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Webhook endpoint id")),
    responses((status = 200, body = DataBody<WebhookEndpointWithSecretDto>)))]
pub async fn rotate_secret(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    id: PathId<EndpointId>,
) -> ApiResult<HttpResponse> {
    let rotated = webhook_endpoints.rotate_secret(caller.agent(), &id.into_inner()).await?;
    Ok(ok(WebhookEndpointWithSecretDto::from(rotated)))
}

/// Send a test `ping` event.
///
/// To this endpoint alone, to check its receiver; its attempts show how it went.
#[utoipa::path(post, path = "/v1/webhook_endpoints/{id}/test", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Webhook endpoint id")),
    responses((status = 202, description = "The ping is on its way", body = DataBody<EventDto>),
        (status = 409, description = "The endpoint is disabled", body = ErrorBody)))]
pub async fn test_endpoint(
    caller: SecretKey,
    endpoints: Data<WebhookEndpointService>,
    wakeup: Data<EventWakeup>,
    id: PathId<EndpointId>,
) -> ApiResult<HttpResponse> {
    let event = endpoints.test(caller.agent(), &id.into_inner()).await?;
    wakeup.notify();
    Ok(HttpResponse::Accepted().json(DataBody { data: EventDto::from(event) }))
}

/// The endpoint's delivery attempts, newest first.
#[utoipa::path(get, path = "/v1/webhook_endpoints/{id}/deliveries", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Webhook endpoint id"), WebhookPageParams),
    responses((status = 200, body = PageBody<DeliveryAttemptDto>)))]
pub async fn list_attempts(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    id: PathId<EndpointId>,
    query: Query<WebhookPageParams>,
) -> ApiResult<HttpResponse> {
    let attempts = webhook_endpoints.attempts(caller.agent(), &id.into_inner(), query.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(page_body(attempts, DeliveryAttemptDto::from)))
}

/// List events of the last 30 days.
///
/// Newest first: to catch up, or to poll without an endpoint.
#[utoipa::path(get, path = "/v1/events", tag = "Event webhooks", security(("secret_key" = [])), params(EventListParams),
    responses((status = 200, body = PageBody<EventDto>)))]
pub async fn list_events(
    caller: SecretKey,
    webhook_endpoints: Data<WebhookEndpointService>,
    query: Query<EventListParams>,
) -> ApiResult<HttpResponse> {
    let events = webhook_endpoints.list_events(caller.agent(), query.into_inner().into()).await?;
    Ok(HttpResponse::Ok().json(page_body(events, EventDto::from)))
}

/// Fetch one event.
#[utoipa::path(get, path = "/v1/events/{id}", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Event id")),
    responses((status = 200, body = DataBody<EventDto>)))]
pub async fn get_event(caller: SecretKey, webhook_endpoints: Data<WebhookEndpointService>, id: PathId<EventId>) -> ApiResult<HttpResponse> {
    let event = webhook_endpoints.get_event(caller.agent(), &id.into_inner()).await?;
    Ok(ok(EventDto::from(event)))
}

/// Deliver an event to an endpoint again, now (or for the first time, if it never went there).
#[utoipa::path(post, path = "/v1/events/{id}/redeliver", tag = "Event webhooks", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Event id"), RedeliverParams),
    responses((status = 202, description = "The delivery is due now", body = DataBody<RedeliveryDto>),
        (status = 409, description = "The endpoint is disabled", body = ErrorBody)))]
pub async fn redeliver(
    caller: SecretKey,
    endpoints: Data<WebhookEndpointService>,
    wakeup: Data<EventWakeup>,
    id: PathId<EventId>,
    query: Query<RedeliverParams>,
) -> ApiResult<HttpResponse> {
    let (event, endpoint) = (id.into_inner(), query.into_inner().endpoint);
    endpoints.redeliver(caller.agent(), &event, endpoint.clone()).await?;
    wakeup.notify();
    let data = RedeliveryDto { event_id: event.into_string(), endpoint_id: endpoint.unwrap_or_default() };
    Ok(HttpResponse::Accepted().json(DataBody { data }))
}
