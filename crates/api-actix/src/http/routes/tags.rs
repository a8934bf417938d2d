use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::TagId;
use parley_domain::services::TagService;

use super::{created, ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{CreateTag, DataBody, Deleted, TagDto, UpdateTag};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/tags").route(web::get().to(list_tags)).route(web::post().to(create_tag)))
        .service(resource("/tags/{id}").route(web::patch().to(update_tag)).route(web::delete().to(delete_tag)));
}

/// List the agent's tags, by name.
#[utoipa::path(get, path = "/v1/tags", tag = "Tags", security(("secret_key" = [])),
    responses((status = 200, body = DataBody<Vec<TagDto>>)))]
pub async fn list_tags(caller: SecretKey, tags: Data<TagService>) -> ApiResult<HttpResponse> {
    let tags = tags.list(caller.agent()).await?;
    Ok(ok(tags.into_iter().map(TagDto::from).collect::<Vec<_>>()))
}

/// Create a tag.
#[utoipa::path(post, path = "/v1/tags", tag = "Tags", security(("secret_key" = [])), request_body = CreateTag,
    responses((status = 201, body = DataBody<TagDto>),
        (status = 409, description = "A tag of that name exists (names ignore case), or the agent already has 1,000 tags", body = ErrorBody)))]
pub async fn create_tag(caller: SecretKey, tags: Data<TagService>, body: Json<Object<CreateTag>>) -> ApiResult<HttpResponse> {
    let tag = tags.create(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(TagDto::from(tag)))
}

/// Change a tag's name, color or description.
#[utoipa::path(patch, path = "/v1/tags/{id}", tag = "Tags", security(("secret_key" = [])), request_body = UpdateTag,
    params(("id" = String, Path, description = "Tag id")),
    responses((status = 200, body = DataBody<TagDto>), (status = 409, body = ErrorBody)))]
pub async fn update_tag(
    caller: SecretKey,
    tags: Data<TagService>,
    id: PathId<TagId>,
    body: Json<Object<UpdateTag>>,
) -> ApiResult<HttpResponse> {
    let tag = tags.update(caller.agent(), &id.into_inner(), body.into_inner().into_inner().into()).await?;
    Ok(ok(TagDto::from(tag)))
}

/// Delete a tag; it is detached from every activity.
#[utoipa::path(delete, path = "/v1/tags/{id}", tag = "Tags", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Tag id")),
    responses((status = 200, body = DataBody<Deleted>)))]
pub async fn delete_tag(caller: SecretKey, tags: Data<TagService>, id: PathId<TagId>) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    tags.delete(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.into_string(), deleted: true }))
}
