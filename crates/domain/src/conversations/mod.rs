//! Contacts, their one conversation each (activities), tags, notes and canned responses: the inbox.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
