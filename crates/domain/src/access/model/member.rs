//! Team members: the people of an agent who work its inbox, each signing in with an email and a
//! password.

use std::fmt;

use crate::FieldError;
use crate::model::{AgentId, Email, MemberId, Timestamp, text};

/// A member's display name: trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberName(String);

impl MemberName {
    /// `raw` trimmed; a `FieldError` on `name` when empty, longer than 128 characters, or holding
    /// a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("name", raw, 1, 128).map(Self)
    }

    /// The name, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The most open conversations round robin gives a member: 0 (never) to [`MaxOpen::MAX`].
/// None set: no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MaxOpen(u32);

impl MaxOpen {
    /// The largest limit a member may set.
    pub const MAX: u32 = 10_000;

    /// `raw`, or a `FieldError` on `max_open` outside 0–10,000.
    pub fn new(raw: i64) -> Result<Self, FieldError> {
        u32::try_from(raw)
            .ok()
            .filter(|n| *n <= Self::MAX)
            .map(Self)
            .ok_or_else(|| FieldError::new("max_open", format!("must be a whole number from 0 to {}, or null for no limit", Self::MAX)))
    }

    /// A JSON number that is a whole number (`3`, `3.0`) in range; anything else is a
    /// `FieldError` on `max_open`.
    pub fn from_json(raw: &serde_json::Value) -> Result<Self, FieldError> {
        Self::new(crate::model::integral::integral_i64(raw).unwrap_or(-1))
    }

    /// The limit.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// What a member may do beyond the inbox. Admins also manage the agent's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberRole {
    /// Works the inbox and manages the agent's settings.
    Admin,
    /// Works the inbox.
    Member,
}

impl MemberRole {
    /// `admin` or `member`: its name on the wire and in storage.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberRole::Admin => "admin",
            MemberRole::Member => "member",
        }
    }

    /// The role named `raw`; a `FieldError` on `role` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        match raw {
            "admin" => Ok(MemberRole::Admin),
            "member" => Ok(MemberRole::Member),
            _ => Err(FieldError::new("role", "must be admin or member")),
        }
    }
}

/// A password as a member chose it, before hashing: 12–128 characters (NIST SP 800-63B's length
/// rule; no composition rules, which only make passwords predictable). Never stored, never
/// printed.
#[derive(Clone, PartialEq, Eq)]
pub struct NewPassword(String);

impl NewPassword {
    /// Fewest characters a password may have.
    pub const MIN_CHARS: usize = 12;
    /// Most characters a password may have: hashing cost does not depend on it much, but a
    /// megabyte "password" is not one.
    pub const MAX_CHARS: usize = 128;

    /// `raw` as typed (not trimmed: spaces count); a `FieldError` on `field` when shorter than 12
    /// or longer than 128 characters, or holding a control character.
    pub fn new(field: &str, raw: &str) -> Result<Self, FieldError> {
        let chars = raw.chars().count();
        if !(Self::MIN_CHARS..=Self::MAX_CHARS).contains(&chars) {
            return Err(FieldError::new(field, format!("must be {} to {} characters", Self::MIN_CHARS, Self::MAX_CHARS)));
        }
        if raw.chars().any(char::is_control) {
            return Err(FieldError::new(field, "must not contain control characters"));
        }
        Ok(Self(raw.to_string()))
    }

    /// The password, to hash it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for NewPassword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NewPassword(..)")
    }
}

/// A password's hash as the hashing port wrote it (a PHC string: algorithm, parameters, salt and
/// hash), the only thing stored of a password.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordDigest(String);

impl PasswordDigest {
    /// A digest as written by the hashing port or read back from storage (no check).
    pub fn from_stored(raw: String) -> Self {
        Self(raw)
    }

    /// The PHC string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PasswordDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordDigest(..)")
    }
}

/// One of an agent's team members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its id (`usr_…`).
    pub id: MemberId,
    /// The agent it works for.
    pub agent_id: AgentId,
    /// What it signs in with: lowercased, unique among the agent's members.
    pub email: Email,
    /// How the inbox names it.
    pub name: MemberName,
    /// What it may do.
    pub role: MemberRole,
    /// Its password's hash.
    pub password: PasswordDigest,
    /// Whether it must choose a new password before doing anything else: set while it holds the
    /// one-time password it was given.
    pub must_change_password: bool,
    /// The most open conversations round robin gives it; `None`: no limit.
    pub max_open: Option<MaxOpen>,
    /// When it was added.
    pub created_at: Timestamp,
    /// When it last changed (its password included).
    pub updated_at: Timestamp,
}

impl Member {
    /// How an activity assigned to it shows it.
    pub fn to_ref(&self) -> MemberRef {
        MemberRef { id: self.id.clone(), name: self.name.clone() }
    }
}

/// A member as others show it: an activity's `assignee`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemberRef {
    /// Its id.
    pub id: MemberId,
    /// Its name.
    pub name: MemberName,
}

/// A member just added, with the one-time password it signs in with first. The password exists
/// here only, once: storage keeps its hash.
#[derive(Debug, Clone)]
pub struct AddedMember {
    /// The stored member.
    pub member: Member,
    /// The password to hand the member, shown once.
    pub one_time_password: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_counted_in_characters_and_never_printed() {
        assert!(NewPassword::new("password", "short").is_err());
        assert!(NewPassword::new("password", &"é".repeat(12)).is_ok());
        assert!(NewPassword::new("password", &"a".repeat(129)).is_err());
        assert!(NewPassword::new("password", "twelve chars\u{0}").is_err());
        let p = NewPassword::new("password", "correct horse battery").unwrap();
        assert_eq!(format!("{p:?}"), "NewPassword(..)");
        assert_eq!(format!("{:?}", PasswordDigest::from_stored("$argon2id$x".into())), "PasswordDigest(..)");
    }

    #[test]
    fn roles_are_admin_or_member() {
        assert_eq!(MemberRole::parse("admin").unwrap(), MemberRole::Admin);
        assert_eq!(MemberRole::parse("member").unwrap().as_str(), "member");
        assert_eq!(MemberRole::parse("owner").unwrap_err().field, "role");
    }
}
