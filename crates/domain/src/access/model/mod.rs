//! Tenants (agents) and their API keys: the entities and value objects.

pub mod agent;
pub mod api_key;

pub use agent::*;
pub use api_key::*;
