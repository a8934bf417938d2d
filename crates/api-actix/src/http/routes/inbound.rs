//! `/webhooks/whatsapp` and `/webhooks/instagram`: Meta's verification handshake and its signed
//! deliveries (both platforms sign with the app secret and verify with the same token); and
//! `/webhooks/email/{channel_id}`: raw mail forwarded to an email line, with its inbound token.
//! Outside `/v1` and without an API key: the signature or the token is the authentication.

use actix_web::web::{self, Data, Payload, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

use super::open_resource;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Query, body_bytes};
use crate::runtime::state::AppState;
use actix_web::http::header;
use parley_adapters_email::ports::envelope;
use parley_adapters_whatsapp::webhook_auth::{self, Handshake};
use parley_domain::model::{ChannelType, LineId};
use parley_domain::{DomainError, FieldError};

/// Webhook bodies over this size are refused with 413 (the platform's are a few KiB).
const MAX_WEBHOOK_BYTES: usize = 1024 * 1024;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(open_resource("/webhooks/whatsapp").route(web::get().to(verify)).route(web::post().to(receive_whatsapp)));
    cfg.service(open_resource("/webhooks/instagram").route(web::get().to(verify)).route(web::post().to(receive_instagram)));
    cfg.service(open_resource("/webhooks/email/{channel_id}").route(web::post().to(receive_email)));
}

/// Answers the subscription handshake with `hub.challenge` when the verify token matches.
pub async fn verify(state: Data<AppState>, query: Query<Handshake>) -> ApiResult<HttpResponse> {
    let challenge = query.into_inner().answer(state.config.whatsapp_verify_token.as_deref()).map_err(ApiError::WebhookHandshake)?;
    Ok(HttpResponse::Ok().content_type("text/plain").body(challenge))
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
    let signature = req.headers().get(webhook_auth::SIGNATURE_HEADER).and_then(|v| v.to_str().ok());
    let Some(secret) = state.config.whatsapp_app_secret.as_deref() else {
        tracing::warn!("webhook refused: PARLEY_WHATSAPP_APP_SECRET is not configured");
        return Err(ApiError::WebhookSignature);
    };
    if !signature.is_some_and(|s| webhook_auth::signature_matches(secret, &body, s)) {
        return Err(ApiError::WebhookSignature);
    }
    let text = String::from_utf8(body.to_vec()).map_err(|_| ApiError::InvalidJson("the webhook body is not UTF-8".into()))?;
    ingest(platform, &state, text).await
}

/// A raw email a provider forwards to an email line (`Content-Type: message/rfc822`,
/// `Authorization: Bearer <the line's inbound token>`), kept and processed as a platform's
/// delivery is. The token is checked before the body is read: a wrong one (or an unknown line)
/// is 401 and nothing is read or stored. Mail that can never be stored (no From, nested too
/// deep…) is 400 naming why; the same mail twice is stored once, by its `Message-ID`.
pub async fn receive_email(state: Data<AppState>, req: HttpRequest, path: web::Path<String>, payload: Payload) -> ApiResult<HttpResponse> {
    let token = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let line = match token {
        Some(token) => state.lines.mailbox_for_token(&LineId::new(path.into_inner()), token.trim()).await?,
        None => None,
    };
    let line = line.ok_or(ApiError::InboundToken)?;
    let raw_email = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("message/rfc822"));
    if !raw_email {
        return Err(ApiError::NotRawEmail);
    }
    let body = body_bytes(&req, payload, parley_adapters_email::limits::MAX_MESSAGE_BYTES).await?;
    // Read once here too, off the request threads, so mail that can never be stored is answered
    // as such rather than kept to be set aside.
    let checked = body.clone();
    let refusal = web::block(move || parley_adapters_email::parse(&checked).err())
        .await
        .map_err(|e| ApiError::Domain(DomainError::Internal(format!("mail check task failed: {e}").into())))?;
    if let Some(refusal) = refusal {
        return Err(DomainError::Validation(vec![FieldError::new("body", refusal.to_string())]).into());
    }
    let text = envelope(line.account_id(), chrono::Utc::now(), &body);
    ingest(ChannelType::Email, &state, text).await
}

/// Stores and processes one delivery (or, on an ingest-only instance, stores it for the
/// processing instances), then answers 200.
async fn ingest(platform: ChannelType, state: &Data<AppState>, text: String) -> ApiResult<HttpResponse> {
    if state.config.ingest_only {
        let id = state.inbound.receive(platform, text).await?;
        state.inbound_wakeup.notify_one();
        tracing::debug!(event = %id, "webhook stored");
    } else {
        // On the workers' runtime, as the retries: a write holds SQLite's single writer across
        // its statements, and on actix's two busy request threads its turn waited for every
        // other request's work between statements (measured: ingestion ~310 messages/s).
        let (id, outcome) = match state.workers_runtime.get() {
            Some(runtime) => {
                let worker = state.clone().into_inner();
                runtime
                    .spawn(async move { worker.inbound.receive_and_process(platform, text).await })
                    .await
                    .map_err(|e| ApiError::Domain(DomainError::Internal(format!("webhook processing task failed: {e}").into())))??
            }
            None => state.inbound.receive_and_process(platform, text).await?,
        };
        state.metrics.observe_inbound_delivery(outcome);
        tracing::debug!(event = %id, ?outcome, "webhook processed and stored");
    }
    Ok(HttpResponse::Ok().json(serde_json::json!({"received": true})))
}
