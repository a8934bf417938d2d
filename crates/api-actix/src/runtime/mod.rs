//! A running process: the domain's services wired to their adapters once ([`wiring`], the
//! composition root; [`state`], what handlers reach; [`platform`], every messaging platform
//! registered once; [`intake`], what takes their deliveries in), the HTTP
//! configuration ([`config`]), the store and the messaging platform opened, the embedder
//! chosen, the background workers, metrics and the graceful shutdown.

pub mod config;
pub mod embedding;
pub mod event_hub;
pub mod event_worker;
pub mod first_response_worker;
pub mod intake;
pub mod limits;
pub mod metrics;
pub mod pacing;
pub mod page_cache;
pub mod passes;
pub mod platform;
pub mod redact;
pub mod routing;
pub mod rule_worker;
pub mod scheduled_worker;
pub mod shutdown;
pub mod state;
pub mod store;
pub mod wiring;
pub mod workers;
