//! The platforms' webhooks: `/webhooks/{platform}` for each platform that signs its deliveries
//! (WhatsApp and Instagram, by Meta's app secret, with Meta's subscription handshake), each
//! proven by the verifier its adapter registered; and `/webhooks/email/{channel_id}`: raw mail
//! forwarded to an email line, with that line's inbound token. Outside `/v1` and without an API
//! key: the proof or the token is the authentication.

use std::collections::HashMap;

use actix_web::web::{self, Data, Payload, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse};

use super::open_resource;
use crate::http::error::{ApiError, ApiResult};
use crate::http::extract::{Query, body_bytes};
use crate::runtime::intake::Intake;
use crate::runtime::platform::Platforms;
use actix_web::http::header;
use parley_adapters_email::ports::envelope;
use parley_domain::model::{ChannelType, LineId};
use parley_domain::services::LineService;
use parley_domain::{DomainError, FieldError};

/// Webhook bodies over this size are refused with 413 (the platform's are a few KiB).
const MAX_WEBHOOK_BYTES: usize = 1024 * 1024;

/// `/webhooks/{platform}` for each platform that signs its webhooks, as registered in
/// `platforms`; raw mail at `/webhooks/email/{channel_id}`.
pub fn routes(cfg: &mut ServiceConfig, platforms: &Platforms) {
    for platform in platforms.signing_platforms() {
        cfg.service(
            open_resource(&format!("/webhooks/{}", platform.as_str()))
                .route(
                    web::get()
                        .to(move |platforms: Data<Platforms>, query: Query<HashMap<String, String>>| verify(platform, platforms, query)),
                )
                .route(web::post().to(move |platforms: Data<Platforms>, intake: Data<Intake>, req: HttpRequest, payload: Payload| {
                    receive(platform, platforms, intake, req, payload)
                })),
        );
    }
    cfg.service(open_resource("/webhooks/email/{channel_id}").route(web::post().to(receive_email)));
}

/// Answers the platform's subscription handshake (Meta's: `hub.challenge`, when the verify
/// token matches).
async fn verify(platform: ChannelType, platforms: Data<Platforms>, query: Query<HashMap<String, String>>) -> ApiResult<HttpResponse> {
    let verifier = platforms.verifier(platform).ok_or(ApiError::RouteNotFound)?;
    let challenge = verifier.handshake(&query.into_inner()).map_err(ApiError::InboundRefused)?;
    Ok(HttpResponse::Ok().content_type("text/plain").body(challenge))
}

/// Verifies the delivery's proof over the raw body (Meta's: `X-Hub-Signature-256`), then
/// stores and processes it and answers 200: its messages are visible when the platform hears
/// back, and a failure that may pass is left to the processors' retries. An ingest-only
/// instance stores it for the processing instances instead. A bad or missing proof is 401 and
/// nothing is stored.
async fn receive(
    platform: ChannelType,
    platforms: Data<Platforms>,
    intake: Data<Intake>,
    req: HttpRequest,
    payload: Payload,
) -> ApiResult<HttpResponse> {
    let verifier = platforms.verifier(platform).ok_or(ApiError::RouteNotFound)?;
    let body = body_bytes(&req, payload, MAX_WEBHOOK_BYTES).await?;
    let proof = req.headers().get(verifier.proof_header()).and_then(|v| v.to_str().ok());
    verifier.verify(proof, &body).map_err(ApiError::InboundRefused)?;
    let text = String::from_utf8(body.to_vec()).map_err(|_| ApiError::InvalidJson("the webhook body is not UTF-8".into()))?;
    intake.take(platform, text).await?;
    Ok(received())
}

/// A raw email a provider forwards to an email line (`Content-Type: message/rfc822`,
/// `Authorization: Bearer <the line's inbound token>`), kept and processed as a platform's
/// delivery is. The token is checked before the body is read: a wrong one (or an unknown line)
/// is 401 and nothing is read or stored. Mail that can never be stored (no From, nested too
/// deep…) is 400 naming why; the same mail twice is stored once, by its `Message-ID`.
async fn receive_email(
    lines: Data<LineService>,
    intake: Data<Intake>,
    req: HttpRequest,
    path: web::Path<String>,
    payload: Payload,
) -> ApiResult<HttpResponse> {
    let token = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    let line = match token {
        Some(token) => lines.mailbox_for_token(&LineId::new(path.into_inner()), token.trim()).await?,
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
    intake.take(ChannelType::Email, text).await?;
    Ok(received())
}

/// What a platform is answered once its delivery is taken in.
fn received() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({"received": true}))
}
