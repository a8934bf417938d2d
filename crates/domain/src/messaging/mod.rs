//! Messages both ways: the timeline, replies and rich replies, inbound deliveries from the platforms, mailboxes, and the platform port.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
