//! Per-request context: the request id (the caller's `X-Request-Id` when it has a sane shape,
//! else a fresh one) and one log line per request. Never logs headers, so never a key.

use std::time::Instant;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web::Data;
use parley_adapters_system::RandomIds;
use parley_domain::model::IdKind;
use parley_domain::ports::IdSource;

use crate::runtime::metrics::Metrics;

pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

tokio::task_local! {
    static REQUEST_ID: String;
}

/// The id of the request being handled, if called while handling one.
pub fn current_request_id() -> Option<String> {
    REQUEST_ID.try_with(Clone::clone).ok()
}

/// 1–128 characters of `[A-Za-z0-9._:-]`: anything else is replaced, not echoed.
fn sane(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

pub async fn middleware(req: ServiceRequest, next: Next<impl MessageBody + 'static>) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let id = req
        .headers()
        .get(&REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| sane(v))
        .map(str::to_owned)
        .unwrap_or_else(|| RandomIds.new_id(IdKind::Request));
    let method = req.method().clone();
    let metrics = req.app_data::<Data<Metrics>>().map(|m| m.clone().into_inner());
    let in_flight = metrics.as_ref().map(|m| m.request_started());

    let mut res = REQUEST_ID.scope(id.clone(), next.call(req)).await?.map_into_boxed_body();

    let pattern = res.request().match_pattern();
    let status = res.status().as_u16();
    if let Some(metrics) = &metrics {
        metrics.observe_request(method.as_str(), pattern.as_deref(), status, started.elapsed());
    }
    drop(in_flight);
    let route = pattern.unwrap_or_else(|| "-".to_string());
    if let Ok(value) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    tracing::info!(
        target: "parley::http",
        method = %method,
        route = %route,
        status,
        latency_ms = started.elapsed().as_micros() as f64 / 1000.0,
        request_id = %id,
        "request"
    );
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::sane;

    #[test]
    fn only_sane_request_ids_are_echoed() {
        assert!(sane("req-123_abc:9.1"));
        assert!(!sane(""));
        assert!(!sane("has space"));
        assert!(!sane(&"x".repeat(129)));
        assert!(!sane("inject\r\nheader"));
    }
}
