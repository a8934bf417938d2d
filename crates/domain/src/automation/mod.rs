//! The inbox's routine work done by Parley itself: business hours so far (the time the team
//! works, which away messages, first-response targets and reports count in).

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
