//! HTTP routes, one module per resource. Every handler: authenticate, parse, call one
//! service method, map the result.

pub mod activities;
pub mod campaigns;
pub mod canned_responses;
pub mod carts;
pub mod catalog;
pub mod contacts;
pub mod event_webhooks;
pub mod inbound;
pub mod inbox_page;
pub mod members;
pub mod messages;
pub mod meta;
pub mod metrics;
pub mod reports;
pub mod rules;
pub mod settings;
pub mod stream;
pub mod tags;
pub mod templates;

use actix_cors::Cors;
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_TYPE, HeaderName, RETRY_AFTER};
use actix_web::middleware::from_fn;
use actix_web::{Error, HttpRequest, HttpResponse, Resource, web};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::OnceLock;

use crate::http::dto::DataBody;
use crate::http::error::ApiError;
use crate::http::request_context::REQUEST_ID_HEADER;
use crate::http::{auth, limits, query_params};
use crate::runtime::config::CorsOrigins;

/// 200 with `{"data": …}`.
pub fn ok<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Ok().json(DataBody { data })
}

/// A page's items shown by `f`, with its pagination, for lists written through serde.
pub fn page_body<D, T>(page: parley_domain::model::Page<D>, f: impl FnMut(D) -> T) -> crate::http::dto::PageBody<T> {
    let pagination = crate::http::dto::Pagination::of(&page);
    crate::http::dto::PageBody { data: page.items.into_iter().map(f).collect(), pagination }
}

/// 201 with `{"data": …}`.
pub fn created<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Created().json(DataBody { data })
}

/// A resource whose unsupported methods answer 405 in the API's error shape, with `Allow`
/// naming the methods it does support, and whose unknown query parameters answer 400
/// (`query_params`); no key needed.
pub fn open_resource(
    path: &str,
) -> Resource<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<BoxBody>, Error = Error, InitError = ()> + use<>>
{
    page_resource(path).wrap(from_fn(query_params::refuse_unknown))
}

/// A resource a browser navigates to (the inbox page): unsupported methods answer 405 as
/// [`open_resource`] does, but any query is let through, as a link may carry one.
pub fn page_resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(|req: HttpRequest| async move {
        Err::<HttpResponse, _>(ApiError::MethodNotAllowed(allowed_methods(req.match_pattern().as_deref().unwrap_or_default())))
    }))
}

/// The methods a route pattern answers, as an `Allow` value: read from the OpenAPI document
/// (so it cannot drift from the routes it describes), plus the routes the document leaves out.
pub fn allowed_methods(pattern: &str) -> String {
    static TABLE: OnceLock<HashMap<String, String>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        use utoipa::OpenApi;
        let mut table: HashMap<String, String> = crate::http::openapi::ApiDoc::openapi()
            .paths
            .paths
            .into_iter()
            .map(|(path, item)| {
                let methods = [
                    ("GET", item.get.is_some()),
                    ("POST", item.post.is_some()),
                    ("PUT", item.put.is_some()),
                    ("PATCH", item.patch.is_some()),
                    ("DELETE", item.delete.is_some()),
                ];
                (path, methods.iter().filter(|(_, on)| *on).map(|(m, _)| *m).collect::<Vec<_>>().join(", "))
            })
            .collect();
        for open in ["/v1/openapi.json", "/healthz", "/readyz", "/inbox", "/inbox/assets/{path:.+}"] {
            table.insert(open.into(), "GET".into());
        }
        for webhook in ["/webhooks/whatsapp", "/webhooks/instagram"] {
            table.insert(webhook.into(), "GET, POST".into());
        }
        table
    });
    table.get(pattern).cloned().unwrap_or_default()
}

/// A resource behind the API key (handlers then declare the key level they need).
pub fn resource(
    path: &str,
) -> Resource<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<BoxBody>, Error = Error, InitError = ()> + use<>>
{
    // `wrap` puts the later layer outside: authentication runs first, then the key's limits.
    open_resource(path).wrap(from_fn(limits::middleware::middleware)).wrap(from_fn(auth::middleware))
}

/// A resource that browser code may call with a publishable key: CORS outermost, so a browser
/// can read even a 401 or 403 answer, and preflights are answered without a key.
pub fn browser_resource(
    path: &'static str,
    origins: CorsOrigins,
) -> Resource<impl ServiceFactory<ServiceRequest, Config = (), Response = ServiceResponse<impl MessageBody>, Error = Error, InitError = ()>>
{
    resource(path).wrap(cors(&origins))
}

fn cors(origins: &CorsOrigins) -> Cors {
    let cors = Cors::default()
        .allowed_methods(["GET", "POST"])
        .allowed_headers([HeaderName::from_static(auth::API_KEY_HEADER), CONTENT_TYPE, REQUEST_ID_HEADER])
        // Scripts may read the request id and, to pace themselves, the rate-limit headers.
        .expose_headers([
            REQUEST_ID_HEADER,
            limits::middleware::LIMIT,
            limits::middleware::REMAINING,
            limits::middleware::RESET,
            RETRY_AFTER,
        ])
        .max_age(3600);
    match origins {
        CorsOrigins::Any => cors.allow_any_origin().send_wildcard(),
        CorsOrigins::List(list) => list.iter().fold(cors, |c, o| c.allowed_origin(o)),
    }
}

/// Unknown routes answer 404 in the API's error shape.
pub async fn route_not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::RouteNotFound)
}
