use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::DomainError;

use super::open_resource;
use crate::http::error::ApiResult;
use crate::runtime::state::Lifecycle;
use parley_domain::ports::StorageHealth;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/v1/openapi.json").route(web::get().to(openapi_json)))
        .service(open_resource("/healthz").route(web::get().to(healthz)))
        .service(open_resource("/readyz").route(web::get().to(readyz)));
}

/// Liveness: the process is up and answering (no key, no database).
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"status": "ok"}))
}

/// Readiness: the database answers and the process is not shutting down; 503 `UNAVAILABLE`
/// otherwise (no key).
pub async fn readyz(health: Data<dyn StorageHealth>, lifecycle: Data<Lifecycle>) -> ApiResult<HttpResponse> {
    if lifecycle.shutting_down() {
        return Err(DomainError::Unavailable("shutting down".into()).into());
    }
    health.check().await.map_err(DomainError::from)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({"status": "ready", "database": health.backend()})))
}

/// The OpenAPI 3.1 document of this API (no key needed), readable from any origin so browser
/// tools (Swagger UI, Redoc, a generator's web page) can load it from another site.
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header(("Access-Control-Allow-Origin", "*"))
        .body(crate::http::openapi::document())
}
