//! Events (a snapshot of each change, written with it) and their signed delivery to webhook endpoints.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
