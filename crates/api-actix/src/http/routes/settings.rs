//! The agent's settings: its business hours and its first-response target.

use actix_web::web::{Data, ServiceConfig};
use actix_web::{HttpResponse, web};
use parley_domain::services::{BusinessHoursService, FirstResponseService, Patch};

use super::{ok, resource};
use crate::http::auth::SecretKey;
use crate::http::dto::{BusinessHoursDto, DataBody, FirstResponseDto, PutBusinessHours, PutFirstResponse};
use crate::http::error::{ApiResult, ErrorBody};
use crate::http::extract::{Json, Object};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/settings/business_hours").route(web::get().to(get_business_hours)).route(web::put().to(put_business_hours)));
    cfg.service(resource("/settings/first_response").route(web::get().to(get_first_response)).route(web::put().to(put_first_response)));
}

/// The agent's business hours; `data` is null when it has set none (then it is always open).
#[utoipa::path(get, path = "/v1/settings/business_hours", tag = "Settings", security(("secret_key" = [])),
    responses((status = 200, body = DataBody<Option<BusinessHoursDto>>)))]
pub async fn get_business_hours(caller: SecretKey, hours: Data<BusinessHoursService>) -> ApiResult<HttpResponse> {
    let found = hours.get(caller.agent()).await?;
    Ok(ok(found.as_ref().map(BusinessHoursDto::from)))
}

/// Replace the agent's business hours: its time zone, each day's periods, closed dates and
/// away message, checked whole (400 naming every faulty field, and nothing changes).
#[utoipa::path(put, path = "/v1/settings/business_hours", tag = "Settings", security(("secret_key" = [])),
    request_body = PutBusinessHours,
    responses((status = 200, body = DataBody<BusinessHoursDto>),
        (status = 400, description = "An unknown time zone, a period that ends before it starts or overlaps another, a date that is not one", body = ErrorBody)))]
pub async fn put_business_hours(
    caller: SecretKey,
    hours: Data<BusinessHoursService>,
    body: Json<Object<PutBusinessHours>>,
) -> ApiResult<HttpResponse> {
    let set = hours.set(caller.agent(), body.into_inner().into_inner().into()).await?;
    Ok(ok(BusinessHoursDto::from(&set)))
}

/// The agent's first-response target; `data` is null when it has none.
#[utoipa::path(get, path = "/v1/settings/first_response", tag = "Settings", security(("secret_key" = [])),
    responses((status = 200, body = DataBody<Option<FirstResponseDto>>)))]
pub async fn get_first_response(caller: SecretKey, first_response: Data<FirstResponseService>) -> ApiResult<HttpResponse> {
    let target = first_response.target(caller.agent()).await?;
    Ok(ok(target.map(FirstResponseDto::from)))
}

/// Set the agent's first-response target: how many minutes of business time a contact who
/// opens a conversation may wait for the team's first answer (null removes it; `data` is then
/// null). Conversations opened from now on fall due by it; those waiting keep their due time.
#[utoipa::path(put, path = "/v1/settings/first_response", tag = "Settings", security(("secret_key" = [])),
    request_body = PutFirstResponse,
    responses((status = 200, body = DataBody<Option<FirstResponseDto>>),
        (status = 400, description = "`minutes` left out, or not a whole number from 1 to 10,080 or null", body = ErrorBody)))]
pub async fn put_first_response(
    caller: SecretKey,
    first_response: Data<FirstResponseService>,
    body: Json<Object<PutFirstResponse>>,
) -> ApiResult<HttpResponse> {
    let minutes = Patch::from_double_option(body.into_inner().into_inner().minutes);
    let target = first_response.set_target(caller.agent(), minutes).await?;
    Ok(ok(target.map(FirstResponseDto::from)))
}
