//! Entities and value objects. Constructors validate, so an instance is always valid.

pub mod activity;
pub mod agent;
pub mod api_key;
pub mod cart;
pub mod contact;
pub mod currency;
pub mod ids;
pub mod pagination;
pub mod product;
pub mod tag;
pub mod text;

pub use activity::*;
pub use agent::*;
pub use api_key::*;
pub use cart::*;
pub use contact::*;
pub use currency::Currency;
pub use ids::*;
pub use pagination::*;
pub use product::*;
pub use tag::*;

/// Every instant in Parley: UTC, millisecond precision (the clock truncates).
pub type Timestamp = chrono::DateTime<chrono::Utc>;
