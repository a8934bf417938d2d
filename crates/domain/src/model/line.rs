//! WhatsApp lines: a business phone number (with its business account) an agent sends from.

use std::fmt;

use super::{AgentId, Timestamp};
use crate::FieldError;

/// Parley's id of a line (`chn_…`), the `channel_id` of templates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineId(String);

impl LineId {
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A numeric id the platform assigns (phone number id, business account id): 1–32 digits.
fn platform_id(field: &str, raw: &str) -> Result<String, FieldError> {
    let raw = raw.trim();
    if (1..=32).contains(&raw.len()) && raw.bytes().all(|b| b.is_ascii_digit()) {
        Ok(raw.to_string())
    } else {
        Err(FieldError::new(field, "must be the platform's numeric id"))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneNumberId(String);

impl PhoneNumberId {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("phone_number_id", raw).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WabaId(String);

impl WabaId {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("waba_id", raw).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The line's bearer token: a secret, never printed (its `Debug` is redacted) nor returned.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(String);

impl AccessToken {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let raw = raw.trim();
        if raw.len() >= 8 && raw.len() <= 4096 && !raw.contains(char::is_whitespace) {
            Ok(Self(raw.to_string()))
        } else {
            Err(FieldError::new("access_token", "must be the line's access token"))
        }
    }

    /// The secret itself: only for the HTTP adapter's `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccessToken(***)")
    }
}

/// How a line reaches the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAccess {
    /// The real Cloud API with this token.
    Cloud(AccessToken),
    /// No network: sends are accepted and delivered by Parley itself (demos, development).
    Sandbox,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub id: LineId,
    pub agent_id: AgentId,
    pub phone_number_id: PhoneNumberId,
    pub waba_id: WabaId,
    pub access: LineAccess,
    pub created_at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_ids_are_digits() {
        assert_eq!(PhoneNumberId::new(" 106540352242922 ").unwrap().as_str(), "106540352242922");
        assert!(PhoneNumberId::new("abc").is_err());
        assert!(WabaId::new("").is_err());
    }

    #[test]
    fn tokens_never_print() {
        let t = AccessToken::new("EAAGsecretsecret").unwrap();
        assert_eq!(format!("{t:?}"), "AccessToken(***)");
        assert!(!format!("{:?}", LineAccess::Cloud(t)).contains("secret"));
        assert!(AccessToken::new("short").is_err());
    }
}
