//! How a raw email is kept as an inbound delivery: the one path every platform's messages take
//! after they arrive (stored, claimed, processed once) takes a body of text, so the raw bytes
//! travel base64-encoded beside the mailbox they arrived at and when.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A delivery's body for one raw email.
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// The mailbox's address: the line's `account_id`.
    pub account: String,
    /// When Parley received it: the message's time when its `Date` is missing or unreadable.
    pub received_at: DateTime<Utc>,
    /// The raw RFC 5322 bytes, base64.
    pub raw: String,
}

impl Envelope {
    /// The raw bytes; `None` when `raw` is not base64.
    pub fn bytes(&self) -> Option<Vec<u8>> {
        STANDARD.decode(self.raw.as_bytes()).ok()
    }
}

/// The delivery body for `raw`, received at `account` at `received_at`.
pub fn envelope(account: &str, received_at: DateTime<Utc>, raw: &[u8]) -> String {
    let envelope = Envelope { account: account.to_owned(), received_at, raw: STANDARD.encode(raw) };
    serde_json::to_string(&envelope).expect("an envelope always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_carry_the_exact_bytes() {
        let raw = b"From: a@b.co\r\n\r\n\xff\x00body";
        let body = envelope("shop@example.com", Utc::now(), raw);
        let read: Envelope = serde_json::from_str(&body).unwrap();
        assert_eq!(read.account, "shop@example.com");
        assert_eq!(read.bytes().unwrap(), raw);
    }
}
