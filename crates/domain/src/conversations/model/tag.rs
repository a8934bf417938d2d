//! Tags organize activities. Names are unique per agent ignoring case.

use crate::FieldError;
use crate::model::{AgentId, TagId, Timestamp, text};

/// Trimmed, 1–64 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagName(String);

impl TagName {
    /// `raw` trimmed; a `FieldError` on `name` when empty, longer than 64 characters or holding a
    /// control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("name", raw, 1, 64).map(Self)
    }

    /// The name, trimmed, case kept.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The uniqueness key: two names that differ only in case collide.
    pub fn key(&self) -> String {
        self.0.to_lowercase()
    }
}

/// `#rrggbb`, stored lowercase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagColor(String);

impl TagColor {
    /// Given to tags created without a color, so `color` is always a string.
    pub const DEFAULT: &'static str = "#6b7280";

    /// `raw` lowercased; a `FieldError` on `color` unless it is `#` and six hex digits.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let ok = raw.len() == 7 && raw.starts_with('#') && raw[1..].bytes().all(|b| b.is_ascii_hexdigit());
        if ok { Ok(Self(raw.to_ascii_lowercase())) } else { Err(FieldError::new("color", "must be a hex color like #1a2b3c")) }
    }

    /// [`DEFAULT`](Self::DEFAULT).
    pub fn default_color() -> Self {
        Self(Self::DEFAULT.to_string())
    }

    /// `#rrggbb`, lowercase.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// At most 500 characters (trimmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagDescription(String);

impl TagDescription {
    /// `raw` trimmed, possibly empty; a `FieldError` on `description` when longer than 500
    /// characters or holding a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("description", raw, 0, 500).map(Self)
    }

    /// The description, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How many tags an agent may have: every one of them is in `GET /v1/tags`, which has no pages.
pub const MAX_TAGS_PER_AGENT: u32 = 1_000;
/// How many tags an activity may hold: each is shown with the activity on every list page.
pub const MAX_TAGS_PER_ACTIVITY: u32 = 50;

/// A label the team attaches to activities.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tag {
    /// Its id (`tag_…`).
    pub id: TagId,
    /// The agent whose tag it is.
    pub agent_id: AgentId,
    /// Unique among the agent's tags, ignoring case.
    pub name: TagName,
    /// How it is shown.
    pub color: TagColor,
    /// What it is for; `None` when not given.
    pub description: Option<TagDescription>,
    /// When it was created.
    pub created_at: Timestamp,
    /// When its name, color or description last changed.
    pub updated_at: Timestamp,
}

/// A tag as shown on an activity.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagRef {
    /// The tag's id.
    pub id: TagId,
    /// The tag's name.
    pub name: TagName,
    /// The tag's color.
    pub color: TagColor,
}

impl From<&Tag> for TagRef {
    fn from(t: &Tag) -> Self {
        Self { id: t.id.clone(), name: t.name.clone(), color: t.color.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_bounded_and_case_folded() {
        assert_eq!(TagName::new("  VIP ").unwrap().as_str(), "VIP");
        assert_eq!(TagName::new("VIP").unwrap().key(), TagName::new("vip").unwrap().key());
        assert!(TagName::new("   ").is_err());
        assert!(TagName::new(&"x".repeat(64)).is_ok());
        assert!(TagName::new(&"x".repeat(65)).is_err());
        assert!(TagName::new(&"é".repeat(64)).is_ok(), "bounds count characters, not bytes");
    }

    #[test]
    fn colors_must_be_hex_and_are_lowercased() {
        assert_eq!(TagColor::new("#A1B2C3").unwrap().as_str(), "#a1b2c3");
        for bad in ["red", "#abc", "#abcdeg", "a1b2c3d", "#a1b2c3 "] {
            assert!(TagColor::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn descriptions_are_capped_at_500() {
        assert!(TagDescription::new(&"d".repeat(500)).is_ok());
        assert!(TagDescription::new(&"d".repeat(501)).is_err());
    }
}
