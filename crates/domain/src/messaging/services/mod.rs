//! The use cases of this feature.

pub(crate) mod inbound;
pub(crate) mod mailboxes;
pub(crate) mod messages;
pub(crate) mod scheduled;
pub(crate) mod timeline;

pub use inbound::*;
pub use mailboxes::*;
pub use messages::*;
pub use scheduled::*;
