use actix_web::http::header;
use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::{ActivityId, MessageId};
use parley_domain::services::{IdempotencyService, MessageListQuery, MessageService};

use super::{ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{CreateNote, DataBody, Deleted, MediaParams, MessageDto, MessageListParams, PageBody, ReplyBody, SendReply};
use crate::http::error::{ApiError, ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId, PathIds, Query};
use crate::http::idempotency::IdempotencyKey;
use crate::http::json;
use crate::http::media_download::MediaDownload;
use crate::runtime::metrics::Metrics;
use crate::runtime::state::Lifecycle;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/activities/{id}/messages").route(web::get().to(list_messages)).route(web::post().to(send_reply)))
        .service(
            resource("/activities/{id}/messages/{message_id}").route(web::get().to(get_message)).route(web::delete().to(cancel_message)),
        )
        .service(resource("/activities/{id}/messages/{message_id}/media").route(web::get().to(get_media)))
        .service(resource("/activities/{id}/notes").route(web::post().to(add_note)));
}

/// An activity's messages in both directions, newest first.
#[utoipa::path(get, path = "/v1/activities/{id}/messages", tag = "Messages", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id"), MessageListParams),
    responses((status = 200, body = PageBody<MessageDto>)))]
pub async fn list_messages(
    caller: SecretKey,
    messages: Data<MessageService>,
    id: PathId<ActivityId>,
    query: Query<MessageListParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let query = MessageListQuery { since: q.since, limit: q.limit, offset: q.offset };
    let page = messages.list(caller.agent(), &id.into_inner(), query).await?;
    Ok(json::page(&page))
}

/// One message of an activity.
#[utoipa::path(get, path = "/v1/activities/{id}/messages/{message_id}", tag = "Messages", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id"), ("message_id" = String, Path, description = "Message id")),
    responses((status = 200, body = DataBody<MessageDto>)))]
pub async fn get_message(
    caller: SecretKey,
    messages: Data<MessageService>,
    ids: PathIds<ActivityId, MessageId>,
) -> ApiResult<HttpResponse> {
    let PathIds(activity, message) = ids;
    let message = messages.get(caller.agent(), &activity, &message).await?;
    Ok(json::one(&message))
}

/// Cancel a scheduled message.
///
/// A reply or template send still waiting for its `send_at` leaves the timeline and is never
/// sent. One that has gone out (or is going) cannot be called back: 409.
#[utoipa::path(delete, path = "/v1/activities/{id}/messages/{message_id}", tag = "Messages", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id"), ("message_id" = String, Path, description = "Message id")),
    responses((status = 200, body = DataBody<Deleted>),
        (status = 409, description = "CONFLICT: the message is not scheduled (any more): it was sent or is being sent", body = ErrorBody)))]
pub async fn cancel_message(
    caller: SecretKey,
    messages: Data<MessageService>,
    ids: PathIds<ActivityId, MessageId>,
) -> ApiResult<HttpResponse> {
    let PathIds(activity, message) = ids;
    messages.cancel_scheduled(caller.agent(), &activity, &message).await?;
    Ok(ok(Deleted { id: message.as_str().to_string(), deleted: true }))
}

/// Leave a private note for the team on the conversation.
///
/// The note joins the timeline (`type: note`, `direction: internal`, `status: recorded`) and
/// moves the activity's `updated_at`; it is never sent to the contact, on any channel, and
/// `note.created` announces it.
#[utoipa::path(post, path = "/v1/activities/{id}/notes", tag = "Messages", security(("secret_key" = [])), request_body = CreateNote,
    params(("id" = String, Path, description = "Activity id")),
    responses((status = 201, body = DataBody<MessageDto>)))]
pub async fn add_note(
    caller: SecretKey,
    messages: Data<MessageService>,
    id: PathId<ActivityId>,
    body: Json<Object<CreateNote>>,
) -> ApiResult<HttpResponse> {
    let CreateNote { text, author } = body.into_inner().into_inner();
    let note = messages.add_note(caller.agent(), &id.into_inner(), text, author).await?;
    Ok(json::created(&note))
}

/// Reply to the contact in free form.
///
/// Text, or media by link, through the line the contact last wrote to, within 24 hours of their
/// last message. With `send_at`, it is checked now and stored `scheduled`, and the workers send
/// it at that time if the window is open then (else it becomes `failed`, saying why). The reply is recorded (`sending`) before the platform is called and answered
/// `sent`; a refusal leaves nothing, an outage leaves it `sending` until the platform's statuses
/// settle it. With an `Idempotency-Key` header, a retry with the same key and body within 24
/// hours answers the first response again and sends nothing; after a crash cut the first
/// request, it answers the recorded reply as it is now.
#[utoipa::path(post, path = "/v1/activities/{id}/messages", tag = "Messages", security(("secret_key" = [])), request_body = ReplyBody,
    params(("id" = String, Path, description = "Activity id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes retries safe for 24 hours")),
    responses((status = 201, body = DataBody<MessageDto>),
        (status = 409, description = "Idempotency-Key reused with another body", body = ErrorBody),
        (status = 410, description = "CART_EXPIRED: a cart message's cart is past its 90 days; nothing was sent", body = ErrorBody),
        (status = 422, description = "WINDOW_CLOSED (more than 24 hours since the contact last wrote, or never: send a template), \
            CHANNEL_UNSUPPORTED (no channel of the contact on a platform the agent has a line on), or MESSAGE_REJECTED by the platform (its code and text in details)", body = ErrorBody),
        (status = 502, description = "The platform failed or timed out; the message may not have been sent, and stays on the timeline \
            as `sending` until the platform's statuses name it", body = ErrorBody)))]
pub async fn send_reply(
    caller: SecretKey,
    messages: Data<MessageService>,
    idempotency: Data<IdempotencyService>,
    id: PathId<ActivityId>,
    body: Json<Object<SendReply>>,
    key: IdempotencyKey,
) -> ApiResult<HttpResponse> {
    let activity = id.into_inner();
    let body = body.into_inner().into_inner();
    let work = |body, key| reply(&messages, &caller, &activity, body, key);
    key.once_recovering(&idempotency, caller.agent(), activity.as_str(), body, work, |point| {
        recovered(&messages, &caller, &activity, point)
    })
    .await
}

async fn reply(
    messages: &MessageService,
    caller: &SecretKey,
    activity: &ActivityId,
    body: SendReply,
    key: Option<String>,
) -> Result<HttpResponse, ApiError> {
    let message = messages.reply_under_key(caller.agent(), activity, body.into(), key.as_deref()).await?;
    Ok(json::created(&message))
}

/// A retry after a first request cut by a crash: the reply it recorded, as it is now (`sending`
/// until the platform's statuses settle it). `None` when it recorded none: it never reached
/// the platform, and the reply is made now.
async fn recovered(messages: &MessageService, caller: &SecretKey, activity: &ActivityId, point: String) -> Option<ApiResult<HttpResponse>> {
    match messages.get(caller.agent(), activity, &MessageId::new(point)).await {
        Ok(message) => Some(Ok(json::created(&message))),
        Err(parley_domain::DomainError::NotFound { .. }) => None,
        Err(e) => Some(Err(e.into())),
    }
}

/// Download an inbound message's media, or an email's attachment.
///
/// The file of an image, video, audio, document or sticker, streamed from the platform with its
/// content type (the platform keeps media for a limited time, about 30 days); of an email, the
/// attachment `attachment` names (default: its first), which Parley keeps.
#[utoipa::path(get, path = "/v1/activities/{id}/messages/{message_id}/media", tag = "Messages", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id"), ("message_id" = String, Path, description = "Message id"), MediaParams),
    responses((status = 200, description = "The file, in its content type", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 404, description = "Unknown message, a message without an inbound file, an unknown attachment, or a file the platform no longer has", body = ErrorBody),
        (status = 502, description = "The platform failed or timed out", body = ErrorBody)))]
pub async fn get_media(
    caller: SecretKey,
    messages: Data<MessageService>,
    metrics: Data<Metrics>,
    lifecycle: Data<Lifecycle>,
    ids: PathIds<ActivityId, MessageId>,
    query: Query<MediaParams>,
) -> ApiResult<HttpResponse> {
    let PathIds(activity, message) = ids;
    let attachment = query.into_inner().attachment;
    let file = messages.media(caller.agent(), &activity, &message, attachment.as_deref()).await?;
    let mut response = HttpResponse::Ok();
    response
        .content_type(file.mime_type.as_str())
        // A contact's file is served from the API's origin: never sniffed, never run as a page.
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::CONTENT_SECURITY_POLICY, "default-src 'none'; sandbox"))
        .insert_header((header::CACHE_CONTROL, "private, max-age=300"));
    let watched = lifecycle.into_inner();
    let shutting_down = Box::new(move || watched.shutting_down());
    let body = MediaDownload::new(file.body, message, file.length, metrics.into_inner(), shutting_down);
    Ok(match file.length {
        Some(length) => response.no_chunking(length).streaming(body),
        None => response.streaming(body),
    })
}
