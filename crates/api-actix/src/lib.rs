//! Parley's HTTP API and operator command line. Thin by design: handlers parse, call one
//! domain service and map the result; the rules live in `parley-domain`.

pub mod app;
pub mod auth;
pub mod body_deadline;
pub mod catalog_file;
pub mod cli;
pub mod commands;
pub mod config;
pub mod config_file;
pub mod dto;
pub mod embedding;
pub mod error;
pub mod extract;
pub mod json;
pub mod limits;
pub mod metrics;
pub mod openapi;
pub mod platform;
pub mod request_context;
pub mod routes;
pub mod run_to_completion;
pub mod seed;
pub mod shutdown;
pub mod state;
pub mod workers;
