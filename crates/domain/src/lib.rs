//! Parley's domain layer.
//!
//! Pure Rust: entities, value objects that refuse invalid input, the ports (traits) the
//! use-case services need, and the services themselves. No I/O and no framework types, so
//! other services can reuse it as a library and adapters can be swapped freely.

pub mod error;
pub mod model;
pub mod ports;
pub mod services;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use error::{DomainError, FieldError, StoreError};
