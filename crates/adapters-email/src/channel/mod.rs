//! The email channel behind the domain's ports: mail kept as a delivery ([`envelope`]), read
//! into the domain's inbound terms ([`EmailDecoder`]), and replies sent ([`EmailPlatform`]).

mod decoder;
mod envelope;
mod platform;
mod sandbox;

pub use decoder::{EmailDecoder, attachment_id};
pub use envelope::{Envelope, envelope};
pub use platform::EmailPlatform;
pub use sandbox::sandbox_mail;
