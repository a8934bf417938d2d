//! The product catalog (imported in bulk, searched by meaning) and carts that hand a shopper to the chat.

pub mod model;
pub mod ports;
pub mod services;

/// This feature's part of the storage contract (see [`crate::conformance`]).
#[cfg(feature = "conformance")]
pub mod conformance;
