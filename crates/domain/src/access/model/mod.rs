//! Tenants (agents), their API keys, their team members and members' sessions: the entities and value objects.

pub mod agent;
pub mod api_key;
pub mod member;
pub mod session;

pub use agent::*;
pub use api_key::*;
pub use member::*;
pub use session::*;
