use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, web};
use parley_domain::model::ActivityId;
use parley_domain::services::{ActivityListQuery, ActivityPatchInput, ActivityService, MessageService};

use super::{created, ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{
    ActivityDetailDto, ActivityDto, ActivityListParams, AttachTags, DataBody, DetachTagParams, OpenActivity, PageBody, ReadActivity,
    UpdateActivity,
};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, OptionalJson, PathId, Query};
use crate::http::json;
use crate::runtime::page_cache::{PageCache, PageKey};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/activities").route(web::get().to(list_activities)).route(web::post().to(open_activity)))
        .service(resource("/activities/{id}").route(web::get().to(get_activity)).route(web::patch().to(update_activity)))
        .service(resource("/activities/{id}/tags").route(web::post().to(attach_tags)).route(web::delete().to(detach_tag)))
        .service(resource("/activities/{id}/read").route(web::post().to(read_activity)));
}

/// List activities, most recently updated first, with optional filters.
#[utoipa::path(get, path = "/v1/activities", tag = "Activities", security(("secret_key" = [])), params(ActivityListParams),
    responses((status = 200, body = PageBody<ActivityDto>)))]
pub async fn list_activities(
    caller: SecretKey,
    activities: Data<ActivityService>,
    pages: Data<PageCache>,
    req: HttpRequest,
    query: Query<ActivityListParams>,
) -> ApiResult<HttpResponse> {
    let member = caller.member();
    let key = PageKey::new(caller.agent().as_str(), member.as_ref().map(|m| m.as_str()), req.path(), req.query_string());
    let query = ActivityListQuery { me: member, ..query.into_inner().into() };
    json::kept_page(&pages, key, || async { Ok(json::page_text(&activities.list(caller.agent(), query).await?)) }).await
}

/// Open the conversation with a contact: 201 with the new activity (status `pending`), or 200
/// with the one the contact already has (one activity per contact).
#[utoipa::path(post, path = "/v1/activities", tag = "Activities", security(("secret_key" = [])), request_body = OpenActivity,
    responses((status = 201, description = "Opened", body = DataBody<ActivityDetailDto>),
        (status = 200, description = "The contact's activity, which it already had", body = DataBody<ActivityDetailDto>),
        (status = 404, description = "Unknown contact", body = ErrorBody)))]
pub async fn open_activity(
    caller: SecretKey,
    activities: Data<ActivityService>,
    body: Json<Object<OpenActivity>>,
) -> ApiResult<HttpResponse> {
    let (detail, opened) = activities.open(caller.agent(), body.into_inner().into_inner().contact_id).await?;
    let dto = ActivityDetailDto::from(detail);
    Ok(if opened { created(dto) } else { ok(dto) })
}

/// Fetch one activity with its contact and channels.
#[utoipa::path(get, path = "/v1/activities/{id}", tag = "Activities", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id")),
    responses((status = 200, body = DataBody<ActivityDetailDto>)))]
pub async fn get_activity(caller: SecretKey, activities: Data<ActivityService>, id: PathId<ActivityId>) -> ApiResult<HttpResponse> {
    let detail = activities.get(caller.agent(), &id.into_inner()).await?;
    Ok(ok(ActivityDetailDto::from(detail)))
}

/// Change status or assignee, or rename the contact. With `if_unassigned`, the assignment is
/// made only if nobody has the activity.
#[utoipa::path(patch, path = "/v1/activities/{id}", tag = "Activities", security(("secret_key" = [])), request_body = UpdateActivity,
    params(("id" = String, Path, description = "Activity id")),
    responses((status = 200, body = DataBody<ActivityDetailDto>),
        (status = 409, description = "`if_unassigned` and someone already has the activity; nothing was changed", body = ErrorBody)))]
pub async fn update_activity(
    caller: SecretKey,
    activities: Data<ActivityService>,
    id: PathId<ActivityId>,
    body: Json<Object<UpdateActivity>>,
) -> ApiResult<HttpResponse> {
    let patch = ActivityPatchInput { me: caller.member(), ..body.into_inner().into_inner().into() };
    let detail = activities.update(caller.agent(), &id.into_inner(), patch).await?;
    Ok(ok(ActivityDetailDto::from(detail)))
}

/// Attach tags; attaching one twice changes nothing.
#[utoipa::path(post, path = "/v1/activities/{id}/tags", tag = "Activities", security(("secret_key" = [])), request_body = AttachTags,
    params(("id" = String, Path, description = "Activity id")),
    responses((status = 200, body = DataBody<ActivityDetailDto>),
        (status = 404, description = "Unknown activity, or tags not found (named in details)", body = ErrorBody),
        (status = 409, description = "The activity would hold more than 50 tags; nothing was attached", body = ErrorBody)))]
pub async fn attach_tags(
    caller: SecretKey,
    activities: Data<ActivityService>,
    id: PathId<ActivityId>,
    body: Json<Object<AttachTags>>,
) -> ApiResult<HttpResponse> {
    let detail = activities.attach_tags(caller.agent(), &id.into_inner(), body.into_inner().into_inner().tag_ids).await?;
    Ok(ok(ActivityDetailDto::from(detail)))
}

/// Remove one tag; removing a tag that is not attached is a no-op.
#[utoipa::path(delete, path = "/v1/activities/{id}/tags", tag = "Activities", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Activity id"), DetachTagParams),
    responses((status = 200, body = DataBody<ActivityDetailDto>)))]
pub async fn detach_tag(
    caller: SecretKey,
    activities: Data<ActivityService>,
    id: PathId<ActivityId>,
    query: Query<DetachTagParams>,
) -> ApiResult<HttpResponse> {
    let detail = activities.detach_tag(caller.agent(), &id.into_inner(), query.into_inner().tag_id).await?;
    Ok(ok(ActivityDetailDto::from(detail)))
}

/// Mark the conversation read: the contact's newest message shows as read on their platform
/// (WhatsApp's blue ticks, Instagram's "seen"; nothing on email), with a typing indicator when
/// asked, and `unread_count` becomes 0. `updated_at` does not move. The body is optional.
#[utoipa::path(post, path = "/v1/activities/{id}/read", tag = "Activities", security(("secret_key" = [])),
    request_body(content = Option<ReadActivity>, description = "Optional: `{\"typing\": true}`"),
    params(("id" = String, Path, description = "Activity id")),
    responses((status = 200, body = DataBody<ActivityDetailDto>),
        (status = 422, description = "MESSAGE_REJECTED: the platform refused the read receipt (its code and text in details); \
            `unread_count` is unchanged", body = ErrorBody),
        (status = 502, description = "The platform failed or timed out; `unread_count` is unchanged, and asking again is safe", body = ErrorBody)))]
pub async fn read_activity(
    caller: SecretKey,
    messages: Data<MessageService>,
    id: PathId<ActivityId>,
    // No body, `null` (as the document's optional body allows) and `{}` all mean no typing.
    body: OptionalJson<Option<Object<ReadActivity>>>,
) -> ApiResult<HttpResponse> {
    let typing = body.0.flatten().and_then(|b| b.into_inner().typing).unwrap_or(false);
    let detail = messages.mark_read(caller.agent(), &id.into_inner(), typing).await?;
    Ok(ok(ActivityDetailDto::from(detail)))
}
