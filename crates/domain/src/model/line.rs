//! Lines: the agent's own channels (a WhatsApp number, an Instagram account, a mailbox) that
//! messages come in on and go out from. The API calls a line's id `channel_id`.

use std::fmt;

use super::{AgentId, ChannelType, Timestamp};
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

/// How a line reaches its platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAccess {
    /// The platform's API with this token.
    Cloud(AccessToken),
    /// No network: sends are accepted and delivered by Parley itself (demos, development).
    Sandbox,
}

/// An Instagram professional account's id, as the platform gives it: 1–32 digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstagramAccountId(String);

impl InstagramAccountId {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("account_id", raw).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which platform a line is on, with the platform's ids of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAccount {
    /// A WhatsApp business phone number and the business account that owns its templates.
    Whatsapp { phone_number_id: PhoneNumberId, waba_id: WabaId },
    /// An Instagram professional account.
    Instagram { account_id: InstagramAccountId },
}

impl LineAccount {
    /// The kind of channel the line's contacts are reached on.
    pub fn channel_type(&self) -> ChannelType {
        match self {
            LineAccount::Whatsapp { .. } => ChannelType::Whatsapp,
            LineAccount::Instagram { .. } => ChannelType::Instagram,
        }
    }

    /// The platform's id of the account: how a platform's webhook names the line it is for
    /// (unique among the lines of one channel type).
    pub fn account_id(&self) -> &str {
        match self {
            LineAccount::Whatsapp { phone_number_id, .. } => phone_number_id.as_str(),
            LineAccount::Instagram { account_id } => account_id.as_str(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub id: LineId,
    pub agent_id: AgentId,
    pub account: LineAccount,
    pub access: LineAccess,
    pub created_at: Timestamp,
}

impl Line {
    pub fn channel_type(&self) -> ChannelType {
        self.account.channel_type()
    }

    /// See [`LineAccount::account_id`].
    pub fn account_id(&self) -> &str {
        self.account.account_id()
    }

    /// The WhatsApp business account whose templates the line sends; `None` on other platforms.
    pub fn waba_id(&self) -> Option<&WabaId> {
        match &self.account {
            LineAccount::Whatsapp { waba_id, .. } => Some(waba_id),
            LineAccount::Instagram { .. } => None,
        }
    }
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
