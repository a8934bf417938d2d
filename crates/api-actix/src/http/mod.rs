//! The HTTP layer: the actix-web app ([`app`]), one route module per resource ([`routes`]),
//! the request's pieces (auth, extractors, request context, body deadline, rate limits), the one
//! place errors become the API's error shape ([`error`]), the DTOs the OpenAPI document
//! describes ([`dto`]) and the JSON written straight from domain values on the hottest reads
//! ([`json`]).

pub mod app;
pub mod auth;
pub mod body_deadline;
pub mod dto;
pub mod error;
pub mod extract;
pub mod idempotency;
pub mod json;
pub mod limits;
pub mod media_download;
pub mod openapi;
pub mod query_params;
pub mod request_context;
pub mod routes;
pub mod run_to_completion;
pub mod session_cookie;
pub mod sse;
