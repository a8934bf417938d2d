//! Parley's HTTP API and operator command line, thin by design: handlers parse, call one domain
//! service and map the result; the rules live in `parley-domain`. Three layers, each a folder:
//!
//! - [`http`]: the actix-web app: routes, extractors, auth, errors, limits, the OpenAPI document,
//!   the DTOs and the hand-written JSON writers.
//! - [`runtime`]: what a running process is made of: the services wired to their adapters
//!   (`AppState`), configuration, background workers, metrics, shutdown.
//! - [`cli`]: the `parley` command line, one file per command group; `main` calls [`cli::run`].
//!
//! `cli` uses both others; `http` uses `runtime`'s state; nothing reaches into `cli`.

pub mod cli;
pub mod http;
pub mod runtime;
