//! What makes an outgoing email a reply: its subject and a fresh Message-ID.

use crate::text::clean;

/// The subject of a reply to a thread whose last subject is `last`: `Re: <last>`, without
/// doubling a `Re:` already there (any case). No or a blank last subject gives `Re:`.
/// Line breaks are folded to spaces (a subject is one header line).
pub fn reply_subject(last: Option<&str>) -> String {
    let last = one_line(last.unwrap_or(""));
    let last = last.trim();
    if last.is_empty() {
        return "Re:".to_owned();
    }
    let has_re = last.get(..3).is_some_and(|prefix| prefix.eq_ignore_ascii_case("re:"));
    if has_re { last.to_owned() } else { format!("Re: {last}") }
}

/// A fresh Message-ID (without angle brackets) on `domain`: 128 random bits, so unique without
/// coordination between instances.
pub fn new_message_id(domain: &str) -> String {
    let bits: [u8; 16] = rand::random();
    format!("{}@{}", hex::encode(bits), domain.to_ascii_lowercase())
}

/// `s` on one line, without NUL: CR and LF become spaces.
pub(crate) fn one_line(s: &str) -> String {
    clean(&s.replace(['\r', '\n'], " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_subjects() {
        assert_eq!(reply_subject(Some("Order 42")), "Re: Order 42");
        assert_eq!(reply_subject(Some("Re: Order 42")), "Re: Order 42");
        assert_eq!(reply_subject(Some("RE: Order 42")), "RE: Order 42");
        assert_eq!(reply_subject(Some("re:Order 42")), "re:Order 42");
        assert_eq!(reply_subject(Some("  Order 42  ")), "Re: Order 42");
        assert_eq!(reply_subject(Some("Fwd: Order 42")), "Re: Fwd: Order 42");
        assert_eq!(reply_subject(Some("Regarding 42")), "Re: Regarding 42");
        assert_eq!(reply_subject(Some("Order\r\n 42")), "Re: Order   42");
        assert_eq!(reply_subject(Some("")), "Re:");
        assert_eq!(reply_subject(None), "Re:");
        assert_eq!(reply_subject(Some("é")), "Re: é");
    }

    #[test]
    fn message_ids_are_fresh_and_on_the_domain() {
        let a = new_message_id("Example.COM");
        let b = new_message_id("example.com");
        assert_ne!(a, b);
        assert!(a.ends_with("@example.com"), "{a}");
        assert_eq!(a.len(), 32 + 1 + "example.com".len());
    }
}
