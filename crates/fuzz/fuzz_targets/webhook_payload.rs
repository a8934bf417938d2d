//! The WhatsApp webhook body parser on arbitrary bytes. A signed delivery is stored as text and
//! parsed later by the processor, so the parser sees whatever the platform (or someone holding
//! the app secret) sends: it must never panic, and what it returns must be well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_adapters_whatsapp::parse_webhook;
use parley_domain::model::ExecutionStatus;

fuzz_target!(|data: &[u8]| {
    // The HTTP handler refuses bodies that are not UTF-8 before storing them.
    let Ok(body) = std::str::from_utf8(data) else { return };
    if let Ok(news) = parse_webhook(body) {
        for line in news {
            for s in &line.statuses {
                assert_eq!(ExecutionStatus::parse(s.status.as_str()), Some(s.status));
                assert_eq!(s.at.timestamp_subsec_nanos(), 0, "platform times are whole seconds");
            }
            for m in &line.inbound {
                assert_eq!(m.at.timestamp_subsec_nanos(), 0);
            }
        }
    }
});
