//! `GET /v1/stream`: the events API as Server-Sent Events.

use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, web};
use parley_domain::services::EventStreamService;

use super::resource;
use crate::http::auth::SecretKey;
use crate::http::error::ApiResult;
use crate::http::sse::event_stream;
use crate::runtime::event_hub::EventHub;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/stream").route(web::get().to(stream_events)));
}

/// The agent's events as they happen, as Server-Sent Events (`text/event-stream`): each event's
/// `id` is the event id, `event` its type, `data` the event as `GET /v1/events` lists it. With
/// `Last-Event-ID` (sent by an EventSource when it reconnects), the stream first sends the
/// events after that one, within the 30 days kept; an unknown id starts from now. A comment
/// line comes every 15 seconds of quiet, so proxies keep the connection open. A secret key or a
/// member's session.
#[utoipa::path(get, path = "/v1/stream", tag = "Event webhooks", security(("secret_key" = [])),
    params(("Last-Event-ID" = Option<String>, Header, description = "Resume after this event (`evt_…`)")),
    responses((status = 200, description = "A stream of events that does not end on its own", content_type = "text/event-stream", body = String)))]
pub async fn stream_events(
    req: HttpRequest,
    caller: SecretKey,
    streams: Data<EventStreamService>,
    hub: Data<EventHub>,
) -> ApiResult<HttpResponse> {
    // Listening before reading what was missed: nothing committed in between is lost.
    let (live, closing) = hub.subscribe();
    let last = req.headers().get("last-event-id").and_then(|v| v.to_str().ok());
    let resume = streams.resume_after(caller.agent(), last).await?;
    let body = event_stream(caller.agent().clone(), resume, streams.into_inner(), hub.into_inner(), live, closing);
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/event-stream"))
        .insert_header((CACHE_CONTROL, "no-cache"))
        // nginx and others buffer responses unless told not to.
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}
