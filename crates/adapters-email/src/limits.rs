//! The bounds on hostile or merely huge mail. Each one turns into a typed refusal or a cut that
//! the docs name, never a panic or an unbounded allocation.

use std::time::Duration;

/// The largest raw message (headers and body, as fetched) that is parsed: bigger ones are
/// refused with [`crate::MailRefusal::TooLarge`] before any parsing, and IMAP never downloads
/// them (their size is read first). 25 MiB is the common provider limit on sent mail.
pub const MAX_MESSAGE_BYTES: usize = 25 * 1024 * 1024;

/// The largest header block, the top-level one and each MIME part's: past it the message is
/// refused with [`crate::MailRefusal::HeadersTooLarge`]. Real headers are a few KiB; a long
/// `Received:` chain stays well under this.
pub const MAX_HEADER_BYTES: usize = 64 * 1024;

/// How deep MIME entities may nest (multipart inside multipart, attached messages inside
/// messages): deeper is [`crate::MailRefusal::TooDeep`]. Real mail nests 3 to 5 levels.
pub const MAX_MIME_DEPTH: usize = 20;

/// How many MIME parts a message may have, all levels together, before
/// [`crate::MailRefusal::TooManyParts`]: bounds the work per message for tiny-part bombs.
pub const MAX_MIME_PARTS: usize = 1_000;

/// How many times the raw bytes may name a content type that nests a whole message
/// (`message/rfc822`, `message/global`, `multipart/digest`) before parsing at all: mail-parser
/// builds attached messages as nested values (dropped recursively: a chain of 400,000 overflows
/// the stack), so a long chain is refused as [`crate::MailRefusal::TooDeep`] before it is built.
/// Real mail names a handful.
pub const MAX_NESTED_MESSAGES: usize = 200;

/// How much of an HTML-only body is turned into text: the rest is cut (at a character boundary)
/// so a huge HTML body costs a bounded conversion.
pub const MAX_HTML_TO_TEXT_BYTES: usize = 2 * 1024 * 1024;

/// The most messages one IMAP batch asks for, whatever the caller passes.
pub const MAX_BATCH_MESSAGES: u32 = 500;

/// The most raw bytes one IMAP batch downloads (message sizes are read before the bodies): a
/// batch always takes its first message (at most [`MAX_MESSAGE_BYTES`]), then stops before this.
pub const MAX_BATCH_BYTES: u64 = 64 * 1024 * 1024;

/// How long one SMTP exchange (connect, each command) or one IMAP step may take before the
/// server counts as unavailable.
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(30);

/// How long one fetched IMAP message (up to [`MAX_MESSAGE_BYTES`]) may take to arrive: 25 MiB in
/// two minutes is about 200 KiB/s, slower than any server worth polling.
pub const MESSAGE_TIMEOUT: Duration = Duration::from_secs(120);
