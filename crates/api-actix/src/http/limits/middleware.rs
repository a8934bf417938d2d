//! The per-key limits on authenticated requests: runs right after `auth::middleware` (which
//! left the `Principal`), answers 429 `RATE_LIMITED` past a limit, and sets the `RateLimit-*`
//! headers on every response it lets through, handler errors included.

use actix_web::HttpMessage;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web::Data;
use parley_domain::model::Principal;

use crate::http::error::ApiError;
use crate::runtime::limits::Limiter;
use crate::runtime::limits::Usage;

pub const LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
pub const REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
pub const RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

/// The one endpoint with a limit of its own on top of the key's.
const SEARCH_PATH: &str = "/v1/products/search";

pub async fn middleware(req: ServiceRequest, next: Next<impl MessageBody + 'static>) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // A key's requests count against the key; a member's against its session, so one member
    // cannot use up the team's budget.
    let principal = req.extensions().get::<Principal>().map(|p| p.rate_key().to_string());
    let (Some(key_id), Some(limits)) = (principal, req.app_data::<Data<Limiter>>().cloned()) else {
        // Preflights carry no key: nothing to count.
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let address = limits.client_address(req.peer_addr(), req.headers());
    let search = req.path() == SEARCH_PATH;
    let Some(decision) = limits.admit(&address, key_id.as_str(), search).await else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    if let Some(retry_after) = decision.retry_after {
        let mut res = req.error_response(ApiError::RateLimited { retry_after });
        if let Some(usage) = decision.usage {
            set_headers(res.headers_mut(), usage);
        }
        return Ok(res);
    }
    let mut res = next.call(req).await?.map_into_boxed_body();
    if let Some(usage) = decision.usage {
        set_headers(res.headers_mut(), usage);
    }
    Ok(res)
}

fn set_headers(headers: &mut HeaderMap, usage: Usage) {
    headers.insert(LIMIT, HeaderValue::from(usage.limit));
    headers.insert(REMAINING, HeaderValue::from(usage.remaining));
    headers.insert(RESET, HeaderValue::from(usage.reset_secs));
}
