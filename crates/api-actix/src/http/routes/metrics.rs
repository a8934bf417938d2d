//! `GET /metrics`: the process's metrics for Prometheus (no key; or on its own address).

use actix_web::http::header::{CONTENT_TYPE, HeaderValue};
use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};

use super::open_resource;
use crate::runtime::metrics::{CONTENT_TYPE_OPENMETRICS, Metrics, Probe};

/// Registers `GET /metrics` (no key).
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/metrics").route(web::get().to(metrics)));
}

/// The metrics in the OpenMetrics text format, with what the probe reads of the pool and the
/// backlogs at the scrape.
pub async fn metrics(metrics: Data<Metrics>, probe: Data<dyn Probe>) -> HttpResponse {
    let body = metrics.render(probe.get_ref()).await;
    HttpResponse::Ok().insert_header((CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE_OPENMETRICS))).body(body)
}
