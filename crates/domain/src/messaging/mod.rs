//! Messages both ways: the timeline, replies and rich replies, inbound deliveries from the platforms, mailboxes, and the platform port.

pub mod model;
pub mod ports;
pub mod services;
