//! How Meta authenticates the webhooks it posts, for WhatsApp and Instagram alike (one app signs
//! both): an HMAC-SHA256 of the raw body with the app secret in `X-Hub-Signature-256`, and the
//! subscription handshake (`hub.mode`, `hub.verify_token`, `hub.challenge`) a URL must answer
//! before Meta posts to it.

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

/// The header that carries a delivery's signature.
pub const SIGNATURE_HEADER: &str = "x-hub-signature-256";

/// Whether `header` (`sha256=<hex HMAC-SHA256 of the raw body>`) signs `body` with `app_secret`;
/// compared in constant time.
pub fn signature_matches(app_secret: &str, body: &[u8], header: &str) -> bool {
    let Some(hex_sig) = header.strip_prefix("sha256=") else { return false };
    let Ok(expected) = hex::decode(hex_sig) else { return false };
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(app_secret.as_bytes()) else { return false };
    mac.update(body);
    mac.verify_slice(&expected).is_ok()
}

/// The header value Meta would send for `body`: for tests, tools and sandboxes.
pub fn sign(app_secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(app_secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The subscription handshake's query parameters, as Meta sends them.
#[derive(Debug, Default, Deserialize)]
pub struct Handshake {
    #[serde(rename = "hub.mode")]
    mode: Option<String>,
    #[serde(rename = "hub.verify_token")]
    verify_token: Option<String>,
    #[serde(rename = "hub.challenge")]
    challenge: Option<String>,
}

/// Why a handshake is refused; its text says which part was wrong (no API key is involved).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeRefusal {
    /// The token is not the one this server was configured with (or none was).
    #[error("hub.verify_token does not match this server's webhook verify token")]
    TokenMismatch,
    /// Not a subscription, or no challenge to answer.
    #[error("the subscription handshake needs hub.mode=subscribe and a hub.challenge")]
    Incomplete,
}

impl Handshake {
    /// The text to answer (`hub.challenge`) when the handshake subscribes with `expected_token`.
    pub fn answer(self, expected_token: Option<&str>) -> Result<String, HandshakeRefusal> {
        let given = self.verify_token.as_deref();
        let matches = expected_token.is_some_and(|t| given.is_some_and(|g| constant_time_eq(g.as_bytes(), t.as_bytes())));
        match (self.mode.as_deref(), matches, self.challenge) {
            (Some("subscribe"), true, Some(challenge)) => Ok(challenge),
            (_, false, _) => Err(HandshakeRefusal::TokenMismatch),
            _ => Err(HandshakeRefusal::Incomplete),
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_checked_over_the_exact_bytes() {
        let header = sign("s3cret", b"{\"a\":1}");
        assert!(signature_matches("s3cret", b"{\"a\":1}", &header));
        assert!(!signature_matches("s3cret", b"{\"a\": 1}", &header), "re-serialized JSON does not match");
        assert!(!signature_matches("other", b"{\"a\":1}", &header));
        assert!(!signature_matches("s3cret", b"{\"a\":1}", "sha1=abc"));
        assert!(!signature_matches("s3cret", b"{\"a\":1}", "sha256=zz"));
    }

    #[test]
    fn a_handshake_is_answered_only_with_the_token_and_a_challenge() {
        let shake = |mode: Option<&str>, token: Option<&str>, challenge: Option<&str>| Handshake {
            mode: mode.map(str::to_string),
            verify_token: token.map(str::to_string),
            challenge: challenge.map(str::to_string),
        };
        assert_eq!(shake(Some("subscribe"), Some("t0k"), Some("42")).answer(Some("t0k")), Ok("42".into()));
        assert_eq!(shake(Some("subscribe"), Some("nope"), Some("42")).answer(Some("t0k")), Err(HandshakeRefusal::TokenMismatch));
        assert_eq!(
            shake(Some("subscribe"), Some("t0k"), Some("42")).answer(None),
            Err(HandshakeRefusal::TokenMismatch),
            "no token configured"
        );
        assert_eq!(shake(Some("unsubscribe"), Some("t0k"), Some("42")).answer(Some("t0k")), Err(HandshakeRefusal::Incomplete));
        assert_eq!(shake(Some("subscribe"), Some("t0k"), None).answer(Some("t0k")), Err(HandshakeRefusal::Incomplete));
    }
}
