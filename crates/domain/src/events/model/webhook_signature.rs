//! Standard Webhooks 1.0 signatures (standardwebhooks.com): what a receiver verifies with the
//! specification's libraries. Each delivery carries `webhook-id`, `webhook-timestamp` (unix
//! seconds of the attempt) and `webhook-signature`: `v1,<base64 HMAC-SHA256(key,
//! "<id>.<timestamp>.<body>")>`, one space-separated entry per active secret.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::FieldError;

/// What a secret's text starts with.
pub const SECRET_PREFIX: &str = "whsec_";
/// Random bytes in a new key: the specification asks for 24 to 64.
pub const KEY_BYTES: usize = 32;

/// An endpoint's signing key: the bytes behind its `whsec_…` secret.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningKey(Vec<u8>);

impl SigningKey {
    /// A key of `bytes` (random, [`KEY_BYTES`] of them when Parley makes one).
    pub fn new(bytes: Vec<u8>) -> Result<Self, FieldError> {
        if !(24..=64).contains(&bytes.len()) {
            return Err(FieldError::new("secret", "must be 24 to 64 bytes"));
        }
        Ok(Self(bytes))
    }

    /// From its secret's text, `whsec_<base64>`.
    pub fn from_secret(secret: &str) -> Result<Self, FieldError> {
        let encoded = secret.strip_prefix(SECRET_PREFIX).ok_or_else(|| FieldError::new("secret", "must start with whsec_"))?;
        let bytes = STANDARD.decode(encoded).map_err(|_| FieldError::new("secret", "must be whsec_ and base64"))?;
        Self::new(bytes)
    }

    /// The secret's text, `whsec_<base64 of the key>`: shown once, when made.
    pub fn secret(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.0))
    }

    /// The key's bytes: secret, never shown but through [`secret`](Self::secret).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// One `v1,…` entry: this key's signature of a delivery.
    pub fn sign(&self, id: &str, timestamp: i64, body: &str) -> String {
        // HMAC takes a key of any length: `new_from_slice` cannot fail.
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!("HMAC keys have any length"));
        mac.update(id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body.as_bytes());
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

impl std::fmt::Debug for SigningKey {
    // Never printed: a key in a log signs for whoever reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(…)")
    }
}

/// The `webhook-signature` header: one entry per key, space-separated (two while a rotated
/// secret still signs beside the new one).
pub fn signature_header<'a>(keys: impl IntoIterator<Item = &'a SigningKey>, id: &str, timestamp: i64, body: &str) -> String {
    keys.into_iter().map(|k| k.sign(id, timestamp, body)).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specification's own example: its libraries' tests check the same values.
    const SPEC_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const SPEC_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const SPEC_TIMESTAMP: i64 = 1614265330;
    const SPEC_BODY: &str = r#"{"test": 2432232314}"#;
    const SPEC_SIGNATURE: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

    #[test]
    fn signs_the_specifications_example_exactly() {
        let key = SigningKey::from_secret(SPEC_SECRET).unwrap();
        assert_eq!(key.sign(SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY), SPEC_SIGNATURE);
        assert_eq!(key.secret(), SPEC_SECRET, "the secret's text survives a round trip");
    }

    #[test]
    fn every_part_of_the_message_is_signed() {
        let key = SigningKey::from_secret(SPEC_SECRET).unwrap();
        for (id, ts, body) in
            [("msg_other", SPEC_TIMESTAMP, SPEC_BODY), (SPEC_ID, SPEC_TIMESTAMP + 1, SPEC_BODY), (SPEC_ID, SPEC_TIMESTAMP, "{}")]
        {
            assert_ne!(key.sign(id, ts, body), SPEC_SIGNATURE);
        }
    }

    #[test]
    fn the_header_carries_one_entry_per_key() {
        let old = SigningKey::from_secret(SPEC_SECRET).unwrap();
        let new = SigningKey::new(vec![7; KEY_BYTES]).unwrap();
        let header = signature_header([&new, &old], SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
        let entries: Vec<&str> = header.split(' ').collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1], SPEC_SIGNATURE);
        assert!(entries[0].starts_with("v1,") && entries[0] != SPEC_SIGNATURE);
    }

    #[test]
    fn secrets_are_whsec_base64_of_24_to_64_bytes() {
        assert!(SigningKey::from_secret("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").is_err(), "prefix required");
        assert!(SigningKey::from_secret("whsec_not base64!").is_err());
        assert!(SigningKey::from_secret("whsec_c2hvcnQ=").is_err(), "too short");
        assert!(SigningKey::new(vec![0; 65]).is_err());
        assert_eq!(format!("{:?}", SigningKey::new(vec![1; 24]).unwrap()), "SigningKey(…)");
    }
}
