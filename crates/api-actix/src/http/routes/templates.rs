use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::{LineId, TemplateId};
use parley_domain::services::{IdempotencyService, LineService, SendService};

use super::{ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{DataBody, MessageDto, SendResultDto, SendTemplate, TemplateDto};
use crate::http::error::{ApiError, ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};
use crate::http::idempotency::IdempotencyKey;

#[expect(deprecated, reason = "the older templates path stays served, as documented")]
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/templates").route(web::get().to(list_templates)))
        .service(resource("/templates/{id}").route(web::get().to(get_template)))
        .service(resource("/templates/{id}/send").route(web::post().to(send_template)))
        .service(resource("/lines/{line_id}/templates").route(web::get().to(line_templates)))
        .service(resource("/channels/{channel_id}/templates").route(web::get().to(channel_templates)));
}

/// All templates of all the agent's lines, by name and language.
#[utoipa::path(get, path = "/v1/templates", tag = "Templates", security(("secret_key" = [])),
    responses((status = 200, body = DataBody<Vec<TemplateDto>>)))]
pub async fn list_templates(caller: SecretKey, lines: Data<LineService>) -> ApiResult<HttpResponse> {
    let templates = lines.templates(caller.agent()).await?;
    Ok(ok(templates.into_iter().map(TemplateDto::from).collect::<Vec<_>>()))
}

/// One template by the platform's id.
#[utoipa::path(get, path = "/v1/templates/{id}", tag = "Templates", security(("secret_key" = [])),
    params(("id" = String, Path, description = "The platform's template id")),
    responses((status = 200, body = DataBody<TemplateDto>)))]
pub async fn get_template(caller: SecretKey, lines: Data<LineService>, id: PathId<TemplateId>) -> ApiResult<HttpResponse> {
    let template = lines.template(caller.agent(), &id.into_inner()).await?;
    Ok(ok(TemplateDto::from(template)))
}

/// The approved templates of one of the agent's lines.
#[utoipa::path(get, path = "/v1/lines/{line_id}/templates", tag = "Templates", security(("secret_key" = [])),
    params(("line_id" = String, Path, description = "The line's id (chn_…)")),
    responses((status = 200, body = DataBody<Vec<TemplateDto>>)))]
pub async fn line_templates(caller: SecretKey, lines: Data<LineService>, id: PathId<LineId>) -> ApiResult<HttpResponse> {
    let templates = lines.approved_templates(caller.agent(), &id.into_inner()).await?;
    Ok(ok(templates.into_iter().map(TemplateDto::from).collect::<Vec<_>>()))
}

/// The approved templates of one of the agent's lines (older path).
///
/// The same as `GET /v1/lines/{line_id}/templates`, under the path it had when a line's id was
/// called `channel_id`; kept for the clients that use it.
#[utoipa::path(get, path = "/v1/channels/{channel_id}/templates", tag = "Templates", security(("secret_key" = [])),
    params(("channel_id" = String, Path, description = "The line's id (chn_…)")),
    responses((status = 200, body = DataBody<Vec<TemplateDto>>)))]
#[deprecated = "the older path of GET /v1/lines/{line_id}/templates"]
pub async fn channel_templates(caller: SecretKey, lines: Data<LineService>, id: PathId<LineId>) -> ApiResult<HttpResponse> {
    line_templates(caller, lines, id).await
}

/// Send an approved template.
///
/// To a recipient, through the line the template belongs to. With `send_at`, the send is
/// checked now and stored on the contact's timeline as a `scheduled` message (201, the message),
/// which the workers send at that time, checked again against the template then. With an `Idempotency-Key` header, a
/// retry with the same key and body within 24 hours answers the first response again and sends
/// nothing; the same key with another body is 409.
#[utoipa::path(post, path = "/v1/templates/{id}/send", tag = "Templates", security(("secret_key" = [])), request_body = SendTemplate,
    params(("id" = String, Path, description = "The platform's template id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes retries safe for 24 hours")),
    responses((status = 200, body = DataBody<SendResultDto>),
        (status = 201, description = "Scheduled (`send_at`): the message, `status: scheduled`", body = DataBody<MessageDto>),
        (status = 409, description = "Idempotency-Key reused with another body", body = ErrorBody),
        (status = 422, description = "TEMPLATE_NOT_APPROVED; TEMPLATE_UNSUPPORTED (a carousel, a limited-time offer, a flow's own data: details name the part); RECIPIENT_UNSUPPORTED (an AUTHENTICATION template to a user known only by their business-scoped user id: nothing sent); or MESSAGE_REJECTED by the platform (its code and text in details)", body = ErrorBody),
        (status = 502, description = "The platform failed or timed out, or this retries a request that was cut before it answered; the message may not have been sent", body = ErrorBody)))]
pub async fn send_template(
    caller: SecretKey,
    sends: Data<SendService>,
    idempotency: Data<IdempotencyService>,
    id: PathId<TemplateId>,
    body: Json<Object<SendTemplate>>,
    key: IdempotencyKey,
) -> ApiResult<HttpResponse> {
    let template = id.into_inner();
    let body = body.into_inner().into_inner();
    key.once(&idempotency, caller.agent(), template.as_str(), body, |body| send(&sends, &caller, &template, body)).await
}

async fn send(sends: &SendService, caller: &SecretKey, template: &TemplateId, body: SendTemplate) -> Result<HttpResponse, ApiError> {
    if let Some(send_at) = body.send_at.clone() {
        let scheduled = sends.schedule(caller.agent(), template, body.into_input(), &send_at).await?;
        return Ok(crate::http::json::created(&scheduled));
    }
    let receipt = sends.send(caller.agent(), template, body.into_input()).await?;
    Ok(ok(SendResultDto { message_sent: true, message_id: receipt.message_id, parsed_message: receipt.parsed_message }))
}
