use actix_web::web::ServiceConfig;
use actix_web::{HttpResponse, web};
use utoipa::OpenApi;

use super::open_resource;
use crate::openapi::ApiDoc;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/v1/openapi.json").route(web::get().to(openapi_json)));
}

/// The OpenAPI 3.1 document of this API (no key needed).
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().json(ApiDoc::openapi())
}
