use actix_web::http::StatusCode;
use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use parley_domain::model::{IdempotentResponse, LineId, TemplateId};
use parley_domain::services::IdempotencyBegin;
use sha2::{Digest, Sha256};

use super::{ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{DataBody, SendResultDto, SendTemplate, TemplateDto};
use crate::http::error::{ApiError, ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};
use crate::runtime::state::AppState;

pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/templates").route(web::get().to(list_templates)))
        .service(resource("/templates/{id}").route(web::get().to(get_template)))
        .service(resource("/templates/{id}/send").route(web::post().to(send_template)))
        .service(resource("/channels/{channel_id}/templates").route(web::get().to(channel_templates)));
}

/// All templates of all the agent's lines, by name and language.
#[utoipa::path(get, path = "/v1/templates", tag = "Templates", security(("api_key" = [])),
    responses((status = 200, body = DataBody<Vec<TemplateDto>>), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
pub async fn list_templates(caller: SecretKey, state: Data<AppState>) -> ApiResult<HttpResponse> {
    let templates = state.lines.templates(caller.agent()).await?;
    Ok(ok(templates.into_iter().map(TemplateDto::from).collect::<Vec<_>>()))
}

/// One template by the platform's id.
#[utoipa::path(get, path = "/v1/templates/{id}", tag = "Templates", security(("api_key" = [])),
    params(("id" = String, Path, description = "The platform's template id")),
    responses((status = 200, body = DataBody<TemplateDto>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn get_template(caller: SecretKey, state: Data<AppState>, id: PathId<TemplateId>) -> ApiResult<HttpResponse> {
    let template = state.lines.template(caller.agent(), &id.into_inner()).await?;
    Ok(ok(TemplateDto::from(template)))
}

/// The approved templates of one of the agent's lines.
#[utoipa::path(get, path = "/v1/channels/{channel_id}/templates", tag = "Templates", security(("api_key" = [])),
    params(("channel_id" = String, Path, description = "The line's id (chn_…)")),
    responses((status = 200, body = DataBody<Vec<TemplateDto>>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn channel_templates(caller: SecretKey, state: Data<AppState>, id: PathId<LineId>) -> ApiResult<HttpResponse> {
    let templates = state.lines.approved_templates(caller.agent(), &id.into_inner()).await?;
    Ok(ok(templates.into_iter().map(TemplateDto::from).collect::<Vec<_>>()))
}

/// Send an approved template to a recipient through the line it belongs to. With an
/// `Idempotency-Key` header, a retry with the same key and body within 24 hours answers the
/// first response again and sends nothing; the same key with another body is 409.
#[utoipa::path(post, path = "/v1/templates/{id}/send", tag = "Templates", security(("api_key" = [])), request_body = SendTemplate,
    params(("id" = String, Path, description = "The platform's template id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes retries safe for 24 hours")),
    responses((status = 200, body = DataBody<SendResultDto>), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, description = "Idempotency-Key reused with another body", body = ErrorBody),
        (status = 422, description = "TEMPLATE_NOT_APPROVED, or MESSAGE_REJECTED by the platform (its code and text in details)", body = ErrorBody),
        (status = 502, description = "The platform failed or timed out, or this retries a request that was cut before it answered; the message may not have been sent", body = ErrorBody),
        (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
pub async fn send_template(
    caller: SecretKey,
    state: Data<AppState>,
    id: PathId<TemplateId>,
    body: Json<Object<SendTemplate>>,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let template = id.into_inner();
    let body = body.into_inner().into_inner();
    let key = req.headers().get(IDEMPOTENCY_HEADER).map(|v| v.to_str().unwrap_or("\u{0}").to_string());
    let Some(key) = key else {
        return Ok(send(&state, &caller, &template, body).await.unwrap_or_else(|e| e.error_response()));
    };
    // The fingerprint is the target and the body's meaning (re-serialized), not its bytes.
    let fingerprint = hex::encode(Sha256::digest(format!("{}\n{}", template.as_str(), serde_json::to_string(&body).unwrap_or_default())));
    let answer = match state.idempotency.begin(caller.agent(), &key, &fingerprint).await? {
        IdempotencyBegin::Replay(first) => return Ok(replay(first)),
        IdempotencyBegin::Proceed => send(&state, &caller, &template, body).await,
        // Sending again could send twice: answer what is known, as for a platform timeout.
        IdempotencyBegin::Interrupted => Err(ApiError::from(parley_domain::DomainError::Interrupted)),
    };
    let (status, json) = match answer {
        Ok(resp) => (resp.status(), resp),
        Err(e) => (e.status_code(), e.error_response()),
    };
    let bytes = actix_web::body::to_bytes(json.into_body())
        .await
        .map_err(|_| parley_domain::DomainError::Internal("unreadable response".into()))?;
    let stored = IdempotentResponse { status: status.as_u16(), body: String::from_utf8_lossy(&bytes).into_owned() };
    state.idempotency.finish(caller.agent(), &key, &stored).await?;
    Ok(HttpResponse::build(status).content_type("application/json").body(bytes))
}

async fn send(state: &AppState, caller: &SecretKey, template: &TemplateId, body: SendTemplate) -> Result<HttpResponse, ApiError> {
    let receipt = state.sends.send(caller.agent(), template, body.into_input()).await?;
    Ok(ok(SendResultDto { message_sent: true, message_id: receipt.message_id, parsed_message: receipt.parsed_message }))
}

fn replay(first: IdempotentResponse) -> HttpResponse {
    let status = StatusCode::from_u16(first.status).unwrap_or(StatusCode::OK);
    HttpResponse::build(status).content_type("application/json").insert_header(("Idempotent-Replayed", "true")).body(first.body)
}
