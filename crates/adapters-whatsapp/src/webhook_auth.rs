//! How Meta authenticates the webhooks it posts, for WhatsApp and Instagram alike (one app signs
//! both): an HMAC-SHA256 of the raw body with the app secret in `X-Hub-Signature-256`, and the
//! subscription handshake (`hub.mode`, `hub.verify_token`, `hub.challenge`) a URL must answer
//! before Meta posts to it.

use std::collections::HashMap;

use hmac::{Hmac, Mac};
use parley_domain::ports::{InboundRefusal, InboundVerifier};
use sha2::Sha256;

/// Meta's webhooks as one app receives them: the app secret that signs its deliveries and the
/// verify token its handshake must present. WhatsApp's and Instagram's are the same.
#[derive(Debug, Clone, Default)]
pub struct MetaSignature {
    /// `PARLEY_WHATSAPP_APP_SECRET`; without it every delivery is refused.
    pub app_secret: Option<String>,
    /// `PARLEY_WHATSAPP_VERIFY_TOKEN`; without it every handshake is refused.
    pub verify_token: Option<String>,
}

/// What a refused delivery is told: the same whether the signature was wrong or this server
/// holds no secret, so a caller learns nothing of the configuration.
const UNPROVEN: &str = "the X-Hub-Signature-256 header is missing or is not the HMAC-SHA256 of the body under the app secret";

impl InboundVerifier for MetaSignature {
    fn proof_header(&self) -> &'static str {
        SIGNATURE_HEADER
    }

    fn verify(&self, proof: Option<&str>, body: &[u8]) -> Result<(), InboundRefusal> {
        let Some(secret) = self.app_secret.as_deref() else {
            tracing::warn!("webhook refused: PARLEY_WHATSAPP_APP_SECRET is not configured");
            return Err(InboundRefusal::Unproven(UNPROVEN.into()));
        };
        match proof {
            Some(header) if signature_matches(secret, body, header) => Ok(()),
            _ => Err(InboundRefusal::Unproven(UNPROVEN.into())),
        }
    }

    fn handshake(&self, query: &HashMap<String, String>) -> Result<String, InboundRefusal> {
        let param = |name: &str| query.get(name).cloned();
        let shake = Handshake { mode: param("hub.mode"), verify_token: param("hub.verify_token"), challenge: param("hub.challenge") };
        shake.answer(self.verify_token.as_deref()).map_err(|refusal| InboundRefusal::Handshake(refusal.to_string()))
    }
}

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

/// The subscription handshake's query parameters (`hub.mode`, `hub.verify_token`,
/// `hub.challenge`), as [`MetaSignature::handshake`] reads them from the query.
#[derive(Debug, Default)]
struct Handshake {
    mode: Option<String>,
    verify_token: Option<String>,
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
    fn answer(self, expected_token: Option<&str>) -> Result<String, HandshakeRefusal> {
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
    fn the_verifier_takes_only_a_delivery_signed_with_the_configured_secret() {
        let meta = MetaSignature { app_secret: Some("s3cret".into()), verify_token: None };
        let body = b"{\"object\":\"whatsapp_business_account\"}";
        assert_eq!(meta.verify(Some(&sign("s3cret", body)), body), Ok(()));
        assert!(matches!(meta.verify(Some(&sign("other", body)), body), Err(InboundRefusal::Unproven(_))));
        assert!(matches!(meta.verify(None, body), Err(InboundRefusal::Unproven(_))));
        let unconfigured = MetaSignature::default();
        assert_eq!(unconfigured.verify(Some(&sign("s3cret", body)), body), meta.verify(None, body), "told apart from nothing");
    }

    #[test]
    fn the_verifier_answers_the_handshake_by_meta_s_parameter_names() {
        let meta = MetaSignature { app_secret: None, verify_token: Some("t0k".into()) };
        let query = |token: &str| {
            HashMap::from(
                [("hub.mode", "subscribe"), ("hub.verify_token", token), ("hub.challenge", "1158201444")]
                    .map(|(k, v)| (k.to_string(), v.to_string())),
            )
        };
        assert_eq!(meta.handshake(&query("t0k")), Ok("1158201444".into()));
        assert_eq!(meta.handshake(&query("nope")), Err(InboundRefusal::Handshake(HandshakeRefusal::TokenMismatch.to_string())));
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
