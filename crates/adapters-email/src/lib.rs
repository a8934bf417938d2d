//! The email platform's adapter: raw RFC 5322 mail read into Parley's terms, replies sent by
//! SMTP, and IMAP mailboxes polled by UID.
//!
//! The mail modules stand alone; [`ports`] maps them to the domain's ports (the decoder of
//! kept mail, the platform that sends replies).
//!
//! - [`parse()`]: raw bytes to [`InboundEmail`] or a [`MailRefusal`], bounded by [`limits`].
//!   Mail without a `Message-ID` is kept under an id derived from a hash of its bytes
//!   ([`derived_message_id`]), not refused; mail without a From address is refused.
//! - [`SmtpSender`]: sends an [`OutgoingEmail`] (a reply: its subject as given, threading headers,
//!   a fresh Message-ID) and tells a refusal ([`SmtpError::Rejected`], 5xx) from an outage
//!   ([`SmtpError::Unavailable`]).
//! - [`ImapMailbox`]: INBOX read by UID in bounded batches after a [`Cursor`], read-only.
//! - [`ServerUrl`]: `smtp://`, `smtps://`, `imap://`, `imaps://` URLs (`s`: implicit TLS).
//!
//! # Tests against real servers
//!
//! The SMTP and IMAP tests talk to real servers on loopback, which `.ci/mail-servers` installs
//! (when missing) and starts (when not listening): Debian's dovecot for IMAP and an aiosmtpd sink
//! (`.ci/smtp_sink.py`) for SMTP. Run it once, then `cargo test -p parley-adapters-email`.
//! The tests find them through these variables (the defaults match the script's):
//!
//! - `PARLEY_TEST_IMAP` (default `imap://127.0.0.1:10143`): any user name, password `secret`.
//! - `PARLEY_TEST_MAILDIR` (default `/tmp/parley-mail/mail`): user `U`'s maildir is `U/Maildir` there;
//!   each test uses a user of its own and drops messages into its `new/` folder.
//! - `PARLEY_TEST_SMTP` (default `smtp://127.0.0.1:10025`): password `secret`; a recipient starting with
//!   `reject` gets 550, with `busy` 451.
//! - `PARLEY_TEST_SMTP_SPOOL` (default `/tmp/parley-mail/spool`): each accepted message as `*.eml`.
//!
//! The script reads the two folder variables too; its ports are fixed, so the URL variables
//! only point the tests at servers started some other way.

mod html;
pub mod imap;
pub mod limits;
mod mailbox;
mod parse;
pub mod ports;
mod reply;
pub mod smtp;
mod text;
mod tls;
mod url;

pub use imap::{Batch, Cursor, FetchedMail, ImapError, ImapMailbox, OversizedMail};
pub use mailbox::Mailbox;
pub use parse::{Attachment, DERIVED_ID_DOMAIN, InboundEmail, MailRefusal, derived_message_id, parse};
pub use reply::new_message_id;
pub use smtp::{OutgoingEmail, SentEmail, SmtpError, SmtpSender};
pub use url::{Protocol, ServerUrl, UrlError};
