//! `/v1/rules`: the agent's automation rules. Every member reads them and their runs; only an
//! admin's session (or a secret key) changes them, as only an admin changes the team.

use actix_web::web::{Data, Query, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::model::RuleId;
use parley_domain::services::RuleService;

use super::{created, ok, page_body, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{DataBody, Deleted, PageBody, RuleBody, RuleDto, RuleRunDto, WebhookPageParams};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object, PathId};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/rules").route(web::get().to(list_rules)).route(web::post().to(create_rule)))
        .service(
            resource("/rules/{id}").route(web::get().to(get_rule)).route(web::patch().to(update_rule)).route(web::delete().to(delete_rule)),
        )
        .service(resource("/rules/{id}/runs").route(web::get().to(list_rule_runs)));
}

/// List the agent's automation rules, oldest first.
#[utoipa::path(get, path = "/v1/rules", tag = "Rules", security(("secret_key" = [])),
    params(WebhookPageParams), responses((status = 200, body = PageBody<RuleDto>)))]
pub async fn list_rules(caller: SecretKey, rules: Data<RuleService>, query: Query<WebhookPageParams>) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let page = rules.list(caller.agent(), q.limit.as_deref(), q.offset.as_deref()).await?;
    Ok(HttpResponse::Ok().json(page_body(page, RuleDto::from)))
}

/// Create a rule: on an event, when every condition holds, do the actions. A secret key or an
/// admin's session.
#[utoipa::path(post, path = "/v1/rules", tag = "Rules", security(("secret_key" = [])),
    request_body = RuleBody,
    responses((status = 201, body = DataBody<RuleDto>),
        (status = 403, description = "A member's session that is not an admin's", body = ErrorBody),
        (status = 409, description = "The agent already has 100 rules", body = ErrorBody)))]
pub async fn create_rule(caller: SecretKey, rules: Data<RuleService>, body: Json<Object<RuleBody>>) -> ApiResult<HttpResponse> {
    caller.0.require_admin()?;
    let made = rules.create(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(created(RuleDto::from(made)))
}

/// Fetch one rule.
#[utoipa::path(get, path = "/v1/rules/{id}", tag = "Rules", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Rule id")), responses((status = 200, body = DataBody<RuleDto>)))]
pub async fn get_rule(caller: SecretKey, rules: Data<RuleService>, id: PathId<RuleId>) -> ApiResult<HttpResponse> {
    Ok(ok(RuleDto::from(rules.get(caller.agent(), &id.into_inner()).await?)))
}

/// Change a rule: the fields sent (conditions and actions replaced whole). A secret key or an
/// admin's session.
#[utoipa::path(patch, path = "/v1/rules/{id}", tag = "Rules", security(("secret_key" = [])),
    request_body = RuleBody, params(("id" = String, Path, description = "Rule id")),
    responses((status = 200, body = DataBody<RuleDto>),
        (status = 403, description = "A member's session that is not an admin's", body = ErrorBody)))]
pub async fn update_rule(
    caller: SecretKey,
    rules: Data<RuleService>,
    id: PathId<RuleId>,
    body: Json<Object<RuleBody>>,
) -> ApiResult<HttpResponse> {
    caller.0.require_admin()?;
    let updated = rules.update(caller.agent(), &id.into_inner(), body.into_inner().into_inner().into()).await?;
    Ok(ok(RuleDto::from(updated)))
}

/// Delete a rule, with its runs. A secret key or an admin's session.
#[utoipa::path(delete, path = "/v1/rules/{id}", tag = "Rules", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Rule id")),
    responses((status = 200, body = DataBody<Deleted>),
        (status = 403, description = "A member's session that is not an admin's", body = ErrorBody)))]
pub async fn delete_rule(caller: SecretKey, rules: Data<RuleService>, id: PathId<RuleId>) -> ApiResult<HttpResponse> {
    caller.0.require_admin()?;
    let id = id.into_inner();
    rules.delete(caller.agent(), &id).await?;
    Ok(ok(Deleted { id: id.as_str().to_string(), deleted: true }))
}

/// List a rule's runs, newest first: each event it acted on, and how that ended.
#[utoipa::path(get, path = "/v1/rules/{id}/runs", tag = "Rules", security(("secret_key" = [])),
    params(("id" = String, Path, description = "Rule id"), WebhookPageParams), responses((status = 200, body = PageBody<RuleRunDto>)))]
pub async fn list_rule_runs(
    caller: SecretKey,
    rules: Data<RuleService>,
    id: PathId<RuleId>,
    query: Query<WebhookPageParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let page = rules.runs(caller.agent(), &id.into_inner(), q.limit.as_deref(), q.offset.as_deref()).await?;
    Ok(HttpResponse::Ok().json(page_body(page, RuleRunDto::from)))
}
