//! Reports: how many conversations the team opened and closed, the messages both ways, and how
//! fast it answered and resolved, by day, member or channel. The counts are kept as each write
//! happens (per quarter hour), the durations one per answer and per close, so a report of
//! months reads a few thousand rows of counts and the durations alone.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
