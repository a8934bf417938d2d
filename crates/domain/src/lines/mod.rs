//! Lines (platform accounts and mailboxes), their templates, and template sends with their executions.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
