//! `/v1/reports`: what the team did, counted.

use actix_web::http::header::{self, Accept, Header as _};
use actix_web::web::{Data, Query, ServiceConfig};
use actix_web::{HttpRequest, HttpResponse, web};
use parley_domain::DomainError;
use parley_domain::model::ReportQueryInput;
use parley_domain::services::ReportService;

use super::resource;
use crate::http::auth::SecretKey;
use crate::http::dto::{ReportBody, ReportParams, report_csv};
use crate::http::error::{ApiResult, ErrorBody};

pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(resource("/reports/conversations").route(web::get().to(conversations_report)));
}

/// Conversations opened and closed, messages in and out, and the median first-response and
/// resolution times in business hours, per day, member or channel over a range of the agent's
/// days. `Accept: text/csv` gives the same columns as CSV.
#[utoipa::path(get, path = "/v1/reports/conversations", tag = "Reports", security(("secret_key" = [])),
    params(ReportParams),
    responses((status = 200, description = "The report; as CSV (a header row, then the same columns) when asked for by `Accept: text/csv`",
            content((ReportBody = "application/json"), (String = "text/csv"))),
        (status = 400, description = "A date that is not one, `from` after `to` or more than 366 days before it, an unknown `group_by`", body = ErrorBody)))]
pub async fn conversations_report(
    caller: SecretKey,
    reports: Data<ReportService>,
    query: Query<ReportParams>,
    req: HttpRequest,
) -> ApiResult<HttpResponse> {
    let q = query.into_inner();
    let input = ReportQueryInput { from: q.from, to: q.to, group_by: q.group_by };
    let report = reports.conversations(caller.agent(), &input).await?;
    if !wants_csv(&req) {
        return Ok(HttpResponse::Ok().json(ReportBody::from(&report)));
    }
    let body = report_csv(&report).map_err(|e| DomainError::Internal(format!("writing the report's CSV: {e}").into()))?;
    let name = format!("attachment; filename=\"conversations-{}-{}.csv\"", report.query.from, report.query.to);
    Ok(HttpResponse::Ok().content_type("text/csv; charset=utf-8").insert_header((header::CONTENT_DISPOSITION, name)).body(body))
}

/// Whether the caller prefers CSV to JSON: the first of the two its `Accept` ranks.
fn wants_csv(req: &HttpRequest) -> bool {
    let Ok(accept) = Accept::parse(req) else { return false };
    accept
        .ranked()
        .into_iter()
        .find_map(|mime| match (mime.type_().as_str(), mime.subtype().as_str()) {
            ("text", "csv") => Some(true),
            ("application", "json") | ("*", "*") | ("application", "*") => Some(false),
            _ => None,
        })
        .unwrap_or(false)
}
