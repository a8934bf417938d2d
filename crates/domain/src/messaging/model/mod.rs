//! Messages both ways: the entities and value objects.

pub mod content_document;
pub mod email_rich;
pub mod inbound;
pub mod inbound_delivery;
pub mod instagram_prompt;
pub mod interactive;
pub mod mailbox;
pub mod message;
pub mod message_content;
pub mod placeholder;
pub mod pricing;
pub mod reply;
pub mod scheduled;
pub mod send;

pub use email_rich::EmailRich;
pub use inbound::*;
pub use inbound_delivery::*;
pub use interactive::{Interactive, InteractiveInput};
pub use mailbox::*;
pub use message::*;
pub use message_content::*;
pub use placeholder::{Placeholder, fill, fill_named, fill_with, parameter_count, placeholder_names, placeholders};
pub use pricing::*;
pub use reply::*;
pub use scheduled::*;
pub use send::*;
