//! Events (a snapshot of each change, written with it) and their signed delivery to webhook endpoints: the entities and value objects.

pub mod delivery_attempt;
pub mod delivery_schedule;
pub mod event;
pub mod event_cursor;
pub mod event_object;
mod snapshot_text;
pub mod webhook_endpoint;
pub mod webhook_signature;

pub use delivery_attempt::*;
pub use event::*;
pub use event_cursor::EventCursor;
pub use event_object::EventObject;
pub use webhook_endpoint::*;
pub use webhook_signature::*;
