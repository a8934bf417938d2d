use actix_web::web::{Data, Query, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::CannedResponseId;
use parley_domain::services::CannedResponseListQuery;
use parley_domain::services::CannedResponseService;

use super::{created, ok, page_body, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{
    CannedResponseDto, CannedResponseListParams, CreateCannedResponse, DataBody, Deleted, PageBody, UpdateCannedResponse,
};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/canned_responses").route(web::get().to(list_canned_responses)).route(web::post().to(create_canned_response)))
        .service(
            resource("/canned_responses/{id}")
                .route(web::get().to(get_canned_response))
                .route(web::patch().to(update_canned_response))
                .route(web::delete().to(delete_canned_response)),
        );
}

/// List the agent's canned responses by short code, optionally those matching `search`.
#[utoipa::path(get, path = "/v1/canned_responses", tag = "Canned responses", security(("secret_key" = [])),
    params(CannedResponseListParams), responses((status = 200, body = PageBody<CannedResponseDto>)))]
pub async fn list_canned_responses(
    caller: SecretKey,
    canned_responses: Data<CannedResponseService>,
    query: Query<CannedResponseListParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let query = CannedResponseListQuery { search: q.search, limit: q.limit, offset: q.offset };
    let page = canned_responses.list(caller.agent(), query).await?;
    Ok(HttpResponse::Ok().json(page_body(page, CannedResponseDto::from)))
}

/// Save a canned response.
#[utoipa::path(post, path = "/v1/canned_responses", tag = "Canned responses", security(("secret_key" = [])),
    request_body = CreateCannedResponse,
    responses((status = 201, body = DataBody<CannedResponseDto>),
        (status = 409, description = "The short code is taken, or the agent already has 1,000 canned responses", body = ErrorBody)))]
pub async fn create_canned_response(
    caller: SecretKey,
    canned_responses: Data<CannedResponseService>,
    body: Json<Object<CreateCannedResponse>>,
) -> ApiResult<HttpResponse> {
    let made = canned_responses.create(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(CannedResponseDto::from(made)))
}

/// Fetch one canned response.
#[utoipa::path(get, path = "/v1/canned_responses/{id}", tag = "Canned responses", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Canned response id")),
    responses((status = 200, body = DataBody<CannedResponseDto>)))]
pub async fn get_canned_response(
    caller: SecretKey,
    canned_responses: Data<CannedResponseService>,
    id: PathId<CannedResponseId>,
) -> ApiResult<HttpResponse> {
    let found = canned_responses.get(caller.agent(), &id.into_inner()).await?;
    Ok(ok(CannedResponseDto::from(found)))
}

/// Change a canned response's short code or text.
#[utoipa::path(patch, path = "/v1/canned_responses/{id}", tag = "Canned responses", security(("secret_key" = [])),
    request_body = UpdateCannedResponse, params(("id" = String, Path, description = "Canned response id")),
    responses((status = 200, body = DataBody<CannedResponseDto>), (status = 409, description = "The short code is taken", body = ErrorBody)))]
pub async fn update_canned_response(
    caller: SecretKey,
    canned_responses: Data<CannedResponseService>,
    id: PathId<CannedResponseId>,
    body: Json<Object<UpdateCannedResponse>>,
) -> ApiResult<HttpResponse> {
    let updated = canned_responses.update(caller.agent(), &id.into_inner(), body.into_inner().into_inner().into()).await?;
    Ok(ok(CannedResponseDto::from(updated)))
}

/// Delete a canned response.
#[utoipa::path(delete, path = "/v1/canned_responses/{id}", tag = "Canned responses", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Canned response id")),
    responses((status = 200, body = DataBody<Deleted>)))]
pub async fn delete_canned_response(
    caller: SecretKey,
    canned_responses: Data<CannedResponseService>,
    id: PathId<CannedResponseId>,
) -> ApiResult<HttpResponse> {
    let id = id.into_inner();
    canned_responses.delete(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.into_string(), deleted: true }))
}
