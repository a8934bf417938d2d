//! `GET /metrics`: the process's metrics for Prometheus (no key; or on its own address).

use actix_web::http::header::{CONTENT_TYPE, HeaderValue};
use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};

use super::open_resource;
use crate::runtime::metrics::CONTENT_TYPE_OPENMETRICS;
use crate::runtime::state::AppState;

/// Registers `GET /metrics` (no key).
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/metrics").route(web::get().to(metrics)));
}

/// The metrics in the OpenMetrics text format.
pub async fn metrics(state: Data<AppState>) -> HttpResponse {
    let body = state.metrics.render(state.get_ref()).await;
    HttpResponse::Ok().insert_header((CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_OPENMETRICS))).body(body)
}
