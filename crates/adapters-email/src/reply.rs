//! What makes an outgoing email a reply: a fresh Message-ID, and one-line headers. (Its
//! subject is the domain's rule: `EmailContent::reply_subject`.)

use crate::text::clean;

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
    fn message_ids_are_fresh_and_on_the_domain() {
        let a = new_message_id("Example.COM");
        let b = new_message_id("example.com");
        assert_ne!(a, b);
        assert!(a.ends_with("@example.com"), "{a}");
        assert_eq!(a.len(), 32 + 1 + "example.com".len());
    }
}
