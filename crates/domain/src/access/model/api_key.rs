//! API keys: secret (`sk_…`) and publishable (`pk_…`). Only a SHA-256 hash is ever stored;
//! keys carry 40 random base-62 characters (~238 bits), so a fast unsalted hash is safe.

use sha2::{Digest, Sha256};

use crate::DomainError;
use crate::model::{AgentId, ApiKeyId, MemberId, MemberRole, SessionId, Timestamp};

/// Random characters after the prefix.
pub const KEY_SECRET_LEN: usize = 40;

/// What a key may do, told by its prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyKind {
    /// Server-side key: every endpoint.
    Secret,
    /// Browser-safe key: catalog reads and carts only.
    Publishable,
}

impl KeyKind {
    /// What the full key starts with: `sk_` or `pk_`.
    pub fn prefix(self) -> &'static str {
        match self {
            KeyKind::Secret => "sk_",
            KeyKind::Publishable => "pk_",
        }
    }

    /// Its name on the wire: `secret` or `publishable`.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Secret => "secret",
            KeyKind::Publishable => "publishable",
        }
    }

    /// The kind named `secret` or `publishable`; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "secret" => Some(KeyKind::Secret),
            "publishable" => Some(KeyKind::Publishable),
            _ => None,
        }
    }
}

/// What an endpoint demands of the calling key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Public catalog reads and carts: publishable keys are enough.
    Publishable,
    /// Everything else: a secret key.
    Secret,
}

/// The hex SHA-256 of a full key string (prefix included).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyHash(String);

impl KeyHash {
    /// The hash of a full key string, as stored and looked up.
    pub fn of(full_key: &str) -> Self {
        Self(hex::encode(Sha256::digest(full_key.as_bytes())))
    }

    /// A hash as read back from storage (no check).
    pub fn from_stored(hex: String) -> Self {
        Self(hex)
    }

    /// The 64 lowercase hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A key as presented in `X-API-Key`, checked for shape before any lookup.
#[derive(Debug, Clone)]
pub struct PresentedKey {
    kind: KeyKind,
    hash: KeyHash,
}

impl PresentedKey {
    /// `Unauthorized` for anything that cannot be a key we issued.
    pub fn parse(raw: &str) -> Result<Self, DomainError> {
        let kind = if raw.starts_with(KeyKind::Secret.prefix()) {
            KeyKind::Secret
        } else if raw.starts_with(KeyKind::Publishable.prefix()) {
            KeyKind::Publishable
        } else {
            return Err(DomainError::Unauthorized);
        };
        let secret = &raw[3..];
        if secret.len() != KEY_SECRET_LEN || !secret.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(DomainError::Unauthorized);
        }
        Ok(Self { kind, hash: KeyHash::of(raw) })
    }

    /// Its kind, from its prefix.
    pub fn kind(&self) -> KeyKind {
        self.kind
    }

    /// Its hash: what finds the stored key.
    pub fn hash(&self) -> &KeyHash {
        &self.hash
    }
}

/// A stored key. The plaintext exists only in [`IssuedKey`], once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The record's id (`key_…`).
    pub id: ApiKeyId,
    /// The agent the key acts for.
    pub agent_id: AgentId,
    /// Secret or publishable.
    pub kind: KeyKind,
    /// The hash of the full key, unique across agents.
    pub hash: KeyHash,
    /// The last four characters, so operators can tell keys apart without seeing them.
    pub hint: String,
    /// When it was issued.
    pub created_at: Timestamp,
    /// When it was revoked; `None` while it works. Set once: revoking again keeps the first time.
    pub revoked_at: Option<Timestamp>,
}

/// A freshly created key with its plaintext, to be shown to the operator exactly once.
#[derive(Debug, Clone)]
pub struct IssuedKey {
    /// The stored record.
    pub key: ApiKey,
    /// The full key (`sk_…` or `pk_…`), never stored.
    pub plaintext: String,
}

/// The authenticated caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The agent it acts for.
    pub agent_id: AgentId,
    /// Who called: a key, or a member in a session.
    pub caller: Caller,
    /// What it may call ([`Principal::require`]): a member's session reaches what a secret key
    /// reaches.
    pub kind: KeyKind,
}

/// Who made a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// An API key.
    Key(ApiKeyId),
    /// A member signed in to the inbox.
    Member {
        /// The member.
        id: MemberId,
        /// Its role.
        role: MemberRole,
        /// The session it presented.
        session: SessionId,
    },
}

impl Principal {
    /// `Forbidden` when a publishable key calls a secret-key endpoint.
    pub fn require(&self, access: Access) -> Result<(), DomainError> {
        match (access, self.kind) {
            (Access::Secret, KeyKind::Publishable) => Err(DomainError::Forbidden),
            _ => Ok(()),
        }
    }

    /// `AdminOnly` unless a secret key or an admin's session calls: what changes the team.
    pub fn require_admin(&self) -> Result<(), DomainError> {
        self.require(Access::Secret)?;
        match &self.caller {
            Caller::Member { role: MemberRole::Member, .. } => Err(DomainError::AdminOnly),
            _ => Ok(()),
        }
    }

    /// `AdminOnly` unless a secret key, an admin's session or `member` itself calls: what a
    /// member may change of its own.
    pub fn require_admin_or(&self, member: &MemberId) -> Result<(), DomainError> {
        if self.member() == Some(member) { self.require(Access::Secret) } else { self.require_admin() }
    }

    /// The member calling, in a member's session.
    pub fn member(&self) -> Option<&MemberId> {
        match &self.caller {
            Caller::Member { id, .. } => Some(id),
            Caller::Key(_) => None,
        }
    }

    /// What rate limits count against: the key, or the member's session.
    pub fn rate_key(&self) -> &str {
        match &self.caller {
            Caller::Key(id) => id.as_str(),
            Caller::Member { session, .. } => session.as_str(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(prefix: &str) -> String {
        format!("{prefix}{}", "a".repeat(KEY_SECRET_LEN))
    }

    #[test]
    fn parses_both_prefixes_and_hashes_the_whole_key() {
        let sk = PresentedKey::parse(&key("sk_")).unwrap();
        assert_eq!(sk.kind(), KeyKind::Secret);
        assert_eq!(sk.hash(), &KeyHash::of(&key("sk_")));
        assert_eq!(PresentedKey::parse(&key("pk_")).unwrap().kind(), KeyKind::Publishable);
        assert_ne!(KeyHash::of(&key("sk_")), KeyHash::of(&key("pk_")));
    }

    #[test]
    fn rejects_malformed_keys() {
        for bad in [
            "",
            "sk_",
            "xx_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            &format!("sk_{}", "a".repeat(39)),
            &format!("sk_{}!", "a".repeat(39)),
        ] {
            assert!(matches!(PresentedKey::parse(bad), Err(DomainError::Unauthorized)), "{bad}");
        }
    }

    #[test]
    fn publishable_keys_are_refused_secret_endpoints() {
        let p = Principal { agent_id: AgentId::new("agt_1"), caller: Caller::Key(ApiKeyId::new("key_1")), kind: KeyKind::Publishable };
        assert!(p.require(Access::Publishable).is_ok());
        assert!(matches!(p.require(Access::Secret), Err(DomainError::Forbidden)));
        let s = Principal { kind: KeyKind::Secret, ..p };
        assert!(s.require(Access::Secret).is_ok());
    }
}
