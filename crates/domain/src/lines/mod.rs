//! Lines (platform accounts and mailboxes), their templates, and template sends with their executions.

pub mod model;
pub mod ports;
pub mod services;
