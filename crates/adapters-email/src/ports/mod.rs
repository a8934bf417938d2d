//! Email behind the domain's ports: mail kept as a delivery ([`envelope`]), read
//! into the domain's inbound terms ([`EmailDecoder`]), replies sent ([`EmailPlatform`]) and
//! mailboxes read ([`ImapReader`]).

mod decoder;
mod envelope;
mod platform;
mod reader;
mod sandbox;

pub use decoder::{EmailDecoder, attachment_id};
pub use envelope::{Envelope, envelope};
pub use platform::EmailPlatform;
pub use reader::ImapReader;
pub use sandbox::sandbox_mail;
