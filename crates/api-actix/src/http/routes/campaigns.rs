use actix_web::web::{Data, Path, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::services::CampaignService;

use super::{ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{CampaignSummaryDto, DataBody, ExecutionDto, ExecutionParams};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::Query;

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/campaigns/{key}").route(web::get().to(get_campaign)));
    cfg.service(resource("/campaigns/{key}/executions").route(web::get().to(list_executions)));
}

/// What a campaign's sends add up to.
///
/// `billable`: the campaign's billed messages per pricing category, summed from the pricing the
/// platform reports with each message's statuses.
#[utoipa::path(get, path = "/v1/campaigns/{key}", tag = "Templates", security(("secret_key" = [])),
    params(("key" = String, Path, description = "The campaign key", pattern = "^[A-Za-z0-9_.:-]{1,64}$")),
    responses((status = 200, body = DataBody<CampaignSummaryDto>),
        (status = 400, description = "VALIDATION_ERROR: the key is not 1 to 64 characters of A-Z a-z 0-9 _ . : -", body = ErrorBody),
        (status = 404, description = "A key this agent never sent under", body = ErrorBody)))]
pub async fn get_campaign(caller: SecretKey, campaigns: Data<CampaignService>, key: Path<String>) -> ApiResult<HttpResponse> {
    let summary = campaigns.summary(caller.agent(), &key.into_inner()).await?;
    Ok(ok(CampaignSummaryDto::from(summary)))
}

/// Delivery records of a campaign's sends.
///
/// Oldest change first. Poll with `since` = the newest `updated_at` seen to get each change once.
#[utoipa::path(get, path = "/v1/campaigns/{key}/executions", tag = "Templates", security(("secret_key" = [])),
    params(("key" = String, Path, description = "The campaign key", pattern = "^[A-Za-z0-9_.:-]{1,64}$"), ExecutionParams),
    responses((status = 200, body = DataBody<Vec<ExecutionDto>>),
        (status = 404, description = "A key this agent never sent under", body = ErrorBody)))]
pub async fn list_executions(
    caller: SecretKey,
    campaigns: Data<CampaignService>,
    key: Path<String>,
    query: Query<ExecutionParams>,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let executions = campaigns.executions(caller.agent(), &key.into_inner(), q.since.as_deref(), q.limit.as_deref()).await?;
    Ok(ok(executions.into_iter().map(ExecutionDto::from).collect::<Vec<_>>()))
}
