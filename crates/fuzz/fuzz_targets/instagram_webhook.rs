//! The Instagram webhook body reader on arbitrary bytes. A signed delivery is stored as text and
//! read later by the processor, so the reader sees whatever arrives with a valid signature: it
//! must never panic, and what it returns must be well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_adapters_whatsapp::parse_instagram_webhook;

fuzz_target!(|data: &[u8]| {
    // The HTTP handler refuses bodies that are not UTF-8 before storing them.
    let Ok(body) = std::str::from_utf8(data) else { return };
    if let Ok(news) = parse_instagram_webhook(body) {
        for line in news {
            for m in &line.inbound {
                assert!(!m.platform_message_id.trim().is_empty(), "a stored message has an id");
                assert!(m.position >= 1);
            }
            for s in &line.set_aside {
                assert!(s.position >= 1, "a set-aside part names its place");
            }
        }
    }
});
