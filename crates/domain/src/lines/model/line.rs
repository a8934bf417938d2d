//! Lines: the agent's own accounts on a platform (a WhatsApp number, an Instagram account, a
//! mailbox) that messages come in on and go out from. The API calls a line's id `channel_id`;
//! in this crate a [`Channel`](crate::model::Channel) is always the contact's side.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::FieldError;
use crate::lines::model::Pace;
use crate::model::{AgentId, ChannelType, Email, Timestamp};

/// Parley's id of a line (`chn_…`), the `channel_id` of templates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LineId(String);

impl LineId {
    /// Wraps a line id as stored or received (no check): an unknown one matches nothing.
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    /// The id as text.
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

/// The platform's id of a line's phone number (not the number itself): 1–32 digits. It is what
/// the platform's webhooks name the line by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneNumberId(String);

impl PhoneNumberId {
    /// `raw` trimmed; a `FieldError` on `phone_number_id` unless it is 1–32 ASCII digits.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("phone_number_id", raw).map(Self)
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The platform's id of the business account that owns a phone-number line's templates: 1–32
/// digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WabaId(String);

impl WabaId {
    /// `raw` trimmed; a `FieldError` on `waba_id` unless it is 1–32 ASCII digits.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("waba_id", raw).map(Self)
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The line's bearer token: a secret, never printed (its `Debug` is redacted) nor returned.
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(String);

impl AccessToken {
    /// `raw` trimmed; a `FieldError` on `access_token` unless it is 8–4096 bytes without
    /// whitespace.
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
    /// A mailbox's servers and login (email lines).
    Mail(MailAccess),
    /// No network: sends are accepted and delivered by Parley itself (demos, development).
    Sandbox,
}

/// A mailbox's servers and login. The URLs are the email adapter's to read (it checks them when
/// the line is added); here they are only URLs with a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailAccess {
    /// Where replies are sent.
    pub send_url: ServerAddress,
    /// Where new mail is read, when the mailbox is polled.
    pub receive_url: Option<ServerAddress>,
    /// The login, for both servers.
    pub username: String,
    /// The login's password.
    pub password: Password,
}

/// A mail server's URL (`scheme://host[:port]`), as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerAddress(String);

impl ServerAddress {
    /// `raw` trimmed; a `FieldError` on `field` unless it is a URL with a host, at most 2,048
    /// bytes.
    pub fn new(field: &str, raw: &str) -> Result<Self, FieldError> {
        let raw = raw.trim();
        match url::Url::parse(raw) {
            Ok(url) if url.host_str().is_some_and(|h| !h.is_empty()) && raw.len() <= 2048 => Ok(Self(raw.to_string())),
            _ => Err(FieldError::new(field, "must be a server URL such as scheme://host:port")),
        }
    }

    /// The URL, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A mailbox password: a secret, never printed (its `Debug` is redacted) nor returned.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    /// `raw` as given (not trimmed); a `FieldError` on `password` when empty, longer than 1,024
    /// bytes, or holding a control character.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        if !raw.is_empty() && raw.len() <= 1024 && !raw.chars().any(char::is_control) {
            Ok(Self(raw.to_string()))
        } else {
            Err(FieldError::new("password", "must be the mailbox's password (1-1024 characters, no control characters)"))
        }
    }

    /// The secret itself: only for the adapter's login.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// What a mailbox line keeps of its inbound token (which forwarders present as a Bearer token):
/// its SHA-256, hex. The token carries 40 random base-62 characters, so a fast unsalted hash is
/// safe, as for API keys; the token itself is shown once, when the line is added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundTokenDigest(String);

impl InboundTokenDigest {
    /// The prefix of every inbound token.
    pub const PREFIX: &'static str = "it_";

    /// The digest of `token`, the whole token (prefix included).
    pub fn of(token: &str) -> Self {
        Self(hex::encode(Sha256::digest(token.as_bytes())))
    }

    /// A digest as read back from storage (no check).
    pub fn from_stored(hex: String) -> Self {
        Self(hex)
    }

    /// The 64 lowercase hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `token` is the line's, compared in constant time.
    pub fn matches(&self, token: &str) -> bool {
        let given = Self::of(token);
        given.0.len() == self.0.len() && given.0.bytes().zip(self.0.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

/// An Instagram professional account's id, as the platform gives it: 1–32 digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstagramAccountId(String);

impl InstagramAccountId {
    /// `raw` trimmed; a `FieldError` on `account_id` unless it is 1–32 ASCII digits.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        platform_id("account_id", raw).map(Self)
    }

    /// The digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Which platform a line is on, with the platform's ids of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineAccount {
    /// A WhatsApp business phone number and the business account that owns its templates.
    Whatsapp {
        /// The platform's id of the phone number: what its webhooks name the line by.
        phone_number_id: PhoneNumberId,
        /// The business account that owns the line's templates.
        waba_id: WabaId,
    },
    /// An Instagram professional account.
    Instagram {
        /// The account's id: what its webhooks name the line by.
        account_id: InstagramAccountId,
    },
    /// A mailbox: its address, and the digest of the token forwarders present.
    Email {
        /// The mailbox's address, lowercased: what inbound mail names the line by.
        address: Email,
        /// The digest of the token forwarders present; the token itself is never stored.
        inbound_token: InboundTokenDigest,
    },
}

impl LineAccount {
    /// The kind of channel the line's contacts are reached on.
    pub fn channel_type(&self) -> ChannelType {
        match self {
            LineAccount::Whatsapp { .. } => ChannelType::Whatsapp,
            LineAccount::Instagram { .. } => ChannelType::Instagram,
            LineAccount::Email { .. } => ChannelType::Email,
        }
    }

    /// The platform's id of the account: how a platform's webhook names the line it is for
    /// (unique among the lines of one channel type).
    pub fn account_id(&self) -> &str {
        match self {
            LineAccount::Whatsapp { phone_number_id, .. } => phone_number_id.as_str(),
            LineAccount::Instagram { account_id } => account_id.as_str(),
            LineAccount::Email { address, .. } => address.as_str(),
        }
    }
}

/// One of the agent's own accounts on a messaging platform, or a mailbox: where its messages
/// come in and go out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its id (`chn_…`), which the API calls `channel_id`.
    pub id: LineId,
    /// The agent whose line it is.
    pub agent_id: AgentId,
    /// The platform account it is: unique, per channel type, across agents.
    pub account: LineAccount,
    /// How Parley reaches the platform for it.
    pub access: LineAccess,
    /// When it was added: lines list oldest first.
    pub created_at: Timestamp,
    /// How many messages a second go out through it (sends are spaced to it).
    pub pace: Pace,
}

impl Line {
    /// The kind of channel its contacts are reached on.
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
            LineAccount::Instagram { .. } | LineAccount::Email { .. } => None,
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
        let p = Password::new("hunter 2").unwrap();
        assert_eq!(format!("{p:?}"), "Password(***)");
        assert!(Password::new("").is_err());
        assert!(Password::new("a\nb").is_err());
    }

    #[test]
    fn inbound_tokens_match_only_their_digest() {
        let digest = InboundTokenDigest::of("it_abc");
        assert!(digest.matches("it_abc"));
        assert!(!digest.matches("it_abd"));
        assert!(!digest.matches(""));
        assert_eq!(InboundTokenDigest::from_stored(digest.as_str().to_string()), digest);
    }

    #[test]
    fn server_addresses_need_a_host() {
        assert!(ServerAddress::new("smtp_url", "smtps://mail.example.com:465").is_ok());
        assert!(ServerAddress::new("smtp_url", "mail.example.com").is_err());
        assert!(ServerAddress::new("smtp_url", "").is_err());
    }
}
