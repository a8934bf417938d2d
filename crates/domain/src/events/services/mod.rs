//! The use cases of this feature.

pub(crate) mod event_delivery;
pub(crate) mod event_maker;
pub(crate) mod event_stream;
pub(crate) mod webhook_endpoints;

pub use event_delivery::*;
pub use event_maker::EventMaker;
pub use event_stream::*;
pub use webhook_endpoints::*;
