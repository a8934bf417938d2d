//! Entities and value objects. Constructors validate, so an instance is always valid.

pub mod activity;
pub mod agent;
pub mod api_key;
pub mod cart;
pub mod contact;
pub mod currency;
pub mod execution;
pub mod ids;
pub mod line;
pub mod message;
pub mod message_content;
mod message_json;
pub mod pagination;
pub mod product;
pub mod product_document;
pub mod reply;
pub mod search;
pub mod send;
pub mod tag;
pub mod template;
pub mod text;
pub mod time_format;
pub mod webhook;
mod webhook_message;
pub mod webhook_payload;

pub use activity::*;
pub use agent::*;
pub use api_key::*;
pub use cart::*;
pub use contact::*;
pub use currency::Currency;
pub use execution::*;
pub use ids::*;
pub use line::*;
pub use message::*;
pub use message_content::*;
pub use pagination::*;
pub use product::*;
pub use product_document::*;
pub use reply::*;
pub use search::*;
pub use send::*;
pub use tag::*;
pub use template::*;
pub use time_format::{format_timestamp, push_timestamp};
pub use webhook::*;
pub use webhook_payload::*;

/// Every instant in Parley: UTC, millisecond precision (the clock truncates).
pub type Timestamp = chrono::DateTime<chrono::Utc>;
