//! HTTP routes, one module per resource. Every handler: authenticate, parse, call one
//! service method, map the result.

pub mod activities;
pub mod contacts;
pub mod meta;
pub mod tags;

use actix_web::{HttpResponse, Resource, web};
use serde::Serialize;

use crate::dto::DataBody;
use crate::error::ApiError;

/// 200 with `{"data": …}`.
pub fn ok<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Ok().json(DataBody { data })
}

/// 201 with `{"data": …}`.
pub fn created<T: Serialize>(data: T) -> HttpResponse {
    HttpResponse::Created().json(DataBody { data })
}

/// A resource whose unsupported methods answer 405 in the API's error shape.
pub fn resource(path: &str) -> Resource {
    web::resource(path).default_service(web::to(|| async { Err::<HttpResponse, _>(ApiError::MethodNotAllowed) }))
}

/// Unknown routes answer 404 in the API's error shape.
pub async fn route_not_found() -> Result<HttpResponse, ApiError> {
    Err(ApiError::RouteNotFound)
}
