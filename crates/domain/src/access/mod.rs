//! Tenants (agents) and their API keys: who a request acts for.

pub mod model;
pub mod ports;
pub mod services;
