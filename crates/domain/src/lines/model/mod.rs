//! Lines (platform accounts and mailboxes), their templates, and template sends with their executions: the entities and value objects.

pub mod execution;
pub mod line;
pub mod pace;
pub mod template;

pub use execution::*;
pub use line::*;
pub use pace::*;
pub use template::*;
