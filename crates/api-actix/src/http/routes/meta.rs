use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::DomainError;

use super::open_resource;
use crate::http::error::ApiResult;
use crate::runtime::state::AppState;

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
pub async fn readyz(state: Data<AppState>) -> ApiResult<HttpResponse> {
    if state.shutting_down.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(DomainError::Unavailable("shutting down".into()).into());
    }
    state.health.check().await.map_err(DomainError::from)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({"status": "ready", "database": state.health.backend()})))
}

/// The OpenAPI 3.1 document of this API (no key needed), readable from any origin so browser
/// tools (Swagger UI, Redoc, a generator's web page) can load it from another site.
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .insert_header(("Access-Control-Allow-Origin", "*"))
        .body(crate::http::openapi::document())
}
