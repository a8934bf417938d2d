//! How Parley's adapters read a remote HTTP answer: [`read_capped`], never more than a cap,
//! whatever the remote sends or says it will send.
//!
//! Every adapter that reads the body of a [`reqwest::Response`] (event receivers, the Graph API,
//! the embedding service, anything added later) goes through [`read_capped`]; `cargo xtask tidy`
//! refuses `.bytes()`, `.text()` and `.json()` on a response anywhere else. A body streamed
//! through to a caller (a media download) is not read here and is never buffered.
//!
//! The caps for what Parley only records or drops are here ([`RECORDED_CAP`]); a cap for JSON
//! that an adapter parses is the adapter's, written beside the reason for its size.

mod capped;
#[cfg(feature = "testing")]
pub mod testing;

pub use capped::{ReadError, read_capped};

/// 64 KiB: the cap for an answer Parley only records or drops (an event receiver's body, an
/// error body whose message is kept). No error object Parley reads comes near it.
pub const RECORDED_CAP: usize = 64 * 1024;
