//! `/webhooks/whatsapp` and `/webhooks/instagram`: Meta's verification handshake and its signed
//! deliveries (both platforms sign with the app secret and verify with the same token).
//! Outside `/v1` and without an API key: the signature is the authentication.

use actix_web::web::{self, Data, Payload, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

use super::open_resource;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Query, body_bytes};
use crate::runtime::state::AppState;
use parley_domain::DomainError;
use parley_domain::model::ChannelType;

/// Webhook bodies over this size are refused with 413 (the platform's are a few KiB).
const MAX_WEBHOOK_BYTES: usize = 1024 * 1024;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/webhooks/whatsapp").route(web::get().to(verify)).route(web::post().to(receive_whatsapp)));
    cfg.service(open_resource("/webhooks/instagram").route(web::get().to(verify)).route(web::post().to(receive_instagram)));
}

#[derive(Deserialize)]
pub struct Handshake {
    #[serde(rename = "hub.mode")]
    mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    challenge: Option<String>,
}

/// Answers the subscription handshake with `hub.challenge` when the verify token matches.
pub async fn verify(state: Data<AppState>, query: Query<Handshake>) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let expected = state.config.whatsapp_verify_token.as_deref();
    let matches = expected.is_some_and(|t| q.verify_token.as_deref().is_some_and(|given| constant_time_eq(given.as_bytes(), t.as_bytes())));
    match (q.mode.as_deref(), matches, q.challenge) {
        (Some("subscribe"), true, Some(challenge)) => Ok(HttpResponse::Ok().content_type("text/plain").body(challenge)),
        // No API key is involved here: say which part of the handshake was wrong.
        (_, false, _) => Err(ApiError::WebhookHandshake("hub.verify_token does not match this server's webhook verify token")),
        _ => Err(ApiError::WebhookHandshake("the subscription handshake needs hub.mode=subscribe and a hub.challenge")),
    }
}

/// Verifies `X-Hub-Signature-256` over the raw body, processes the delivery and stores it with
/// the outcome, then answers 200: its messages are visible when the platform hears back, and a
/// failure that may pass is left to the processors' retries. An ingest-only instance stores it
/// for the processing instances instead. A bad or missing signature is 401 and nothing is stored.
pub async fn receive_whatsapp(state: Data<AppState>, req: HttpRequest, payload: Payload) -> ApiResult<HttpResponse> {
    receive(ChannelType::Whatsapp, state, req, payload).await
}

/// As [`receive_whatsapp`], for Instagram's deliveries (signed the same way, by the same app).
pub async fn receive_instagram(state: Data<AppState>, req: HttpRequest, payload: Payload) -> ApiResult<HttpResponse> {
    receive(ChannelType::Instagram, state, req, payload).await
}

async fn receive(platform: ChannelType, state: Data<AppState>, req: HttpRequest, payload: Payload) -> ApiResult<HttpResponse> {
    let body = body_bytes(&req, payload, MAX_WEBHOOK_BYTES).await?;
    let signature = req.headers().get("x-hub-signature-256").and_then(|v| v.to_str().ok());
    let Some(secret) = state.config.whatsapp_app_secret.as_deref() else {
        tracing::warn!("webhook refused: PARLEY_WHATSAPP_APP_SECRET is not configured");
        return Err(ApiError::WebhookSignature);
    };
    if !signature.is_some_and(|s| signature_matches(secret, &body, s)) {
        return Err(ApiError::WebhookSignature);
    }
    let text = String::from_utf8(body.to_vec()).map_err(|_| ApiError::InvalidJson("the webhook body is not UTF-8".into()))?;
    if state.config.ingest_only {
        let id = state.webhooks.receive(platform, text).await?;
        state.webhook_wakeup.notify_one();
        tracing::debug!(event = %id, "webhook stored");
    } else {
        // On the workers' runtime, as the retries: a write holds SQLite's single writer across
        // its statements, and on actix's two busy request threads its turn waited for every
        // other request's work between statements (measured: ingestion ~310 messages/s).
        let (id, outcome) = match state.workers_runtime.get() {
            Some(runtime) => {
                let worker = state.clone().into_inner();
                runtime
                    .spawn(async move { worker.webhooks.receive_and_process(platform, text).await })
                    .await
                    .map_err(|e| ApiError::Domain(DomainError::Internal(format!("webhook processing task failed: {e}"))))??
            }
            None => state.webhooks.receive_and_process(platform, text).await?,
        };
        state.metrics.observe_webhook_delivery(outcome);
        tracing::debug!(event = %id, ?outcome, "webhook processed and stored");
    }
    Ok(HttpResponse::Ok().json(serde_json::json!({"received": true})))
}

/// `sha256=<hex HMAC-SHA256 of the raw body>`, compared in constant time.
pub fn signature_matches(secret: &str, body: &[u8], header: &str) -> bool {
    let Some(hex_sig) = header.strip_prefix("sha256=") else { return false };
    let Ok(expected) = hex::decode(hex_sig) else { return false };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { return false };
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The header value the platform would send for `body`: for tests and tools.
pub fn sign(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_checked_over_the_exact_bytes() {
        let header = sign("s3cret", b"{\"a\":1}");
        assert!(signature_matches("s3cret", b"{\"a\":1}", &header));
        assert!(!signature_matches("s3cret", b"{\"a\": 1}", &header), "re-serialized JSON does not match");
        assert!(!signature_matches("other", b"{\"a\":1}", &header));
        assert!(!signature_matches("s3cret", b"{\"a\":1}", "sha1=abc"));
        assert!(!signature_matches("s3cret", b"{\"a\":1}", "sha256=zz"));
    }
}
