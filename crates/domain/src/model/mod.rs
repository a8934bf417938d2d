//! Entities and value objects. Constructors validate, so an instance is always valid.

pub mod currency;
pub(crate) mod field_rules;
pub mod ids;
pub mod integral;
pub mod media_type;
pub mod money;
pub mod pagination;
pub mod storable;
pub mod text;
pub mod time_format;

pub use currency::Currency;
pub use ids::*;
pub use media_type::*;
pub use money::Decimal;
pub use pagination::*;
pub use storable::*;
pub use time_format::{format_timestamp, push_timestamp};

pub use crate::access::model::*;
pub use crate::automation::model::*;
pub use crate::catalog::model::*;
pub use crate::conversations::model::*;
pub use crate::events::model::*;
pub use crate::lines::model::*;
pub use crate::messaging::model::*;
pub use crate::reports::model::*;

/// Every instant in Parley: UTC, millisecond precision (the clock truncates).
pub type Timestamp = chrono::DateTime<chrono::Utc>;
