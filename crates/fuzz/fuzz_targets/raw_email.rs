//! The email reader on arbitrary bytes: raw mail arrives from anyone who can send one (IMAP) or
//! holds a line's inbound token. It must never panic, stay within its limits, and what it keeps
//! must be storable text (no NUL) with a sender and an id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_adapters_email::channel::{EmailDecoder, envelope};
use parley_adapters_email::parse;
use parley_domain::ports::InboundDecoder;

fuzz_target!(|data: &[u8]| {
    if let Ok(email) = parse(data) {
        assert!(!email.message_id.is_empty(), "every kept email has an id");
        assert!(email.from.address.contains('@'), "and a sender");
        assert!(!email.text.as_deref().unwrap_or("").contains('\0'), "storable text");
    }
    let body = envelope("shop@example.com", chrono::DateTime::UNIX_EPOCH, data);
    let news = EmailDecoder.decode(&body).expect("an envelope is always an email delivery");
    assert_eq!(news.len(), 1);
    assert_eq!(news[0].inbound.len() + news[0].set_aside.len(), 1, "each mail is kept or set aside");
});
