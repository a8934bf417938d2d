//! Entities and value objects. Constructors validate, so an instance is always valid.

pub mod activity;
pub mod agent;
pub mod api_key;
pub mod contact;
pub mod ids;
pub mod pagination;
pub mod tag;
pub mod text;

pub use activity::*;
pub use agent::*;
pub use api_key::*;
pub use contact::*;
pub use ids::*;
pub use pagination::*;
pub use tag::*;

/// Every instant in Parley: UTC, millisecond precision (the clock truncates).
pub type Timestamp = chrono::DateTime<chrono::Utc>;
