//! The email channel's adapter: raw RFC 5322 mail read into Parley's terms, replies sent by
//! SMTP, and IMAP mailboxes polled by UID.
