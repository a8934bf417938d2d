//! Activities: one conversation per contact, across the contact's channels.

use super::{ActivityId, AgentId, Channel, ContactId, MessageSummary, ProfileName, TagId, TagRef, Timestamp, text};
use crate::FieldError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ActivityStatus {
    Open,
    Closed,
    Pending,
}

impl ActivityStatus {
    pub const ALL: [ActivityStatus; 3] = [ActivityStatus::Open, ActivityStatus::Closed, ActivityStatus::Pending];

    pub fn as_str(self) -> &'static str {
        match self {
            ActivityStatus::Open => "open",
            ActivityStatus::Closed => "closed",
            ActivityStatus::Pending => "pending",
        }
    }

    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw).ok_or_else(|| FieldError::new("status", "must be one of open, closed, pending"))
    }
}

/// The user id of an assignee: trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignee(String);

impl Assignee {
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("assigned_to", raw, 1, 128).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    pub id: ActivityId,
    pub agent_id: AgentId,
    pub contact_id: ContactId,
    pub status: ActivityStatus,
    pub assigned_to: Option<Assignee>,
    /// When the contact last wrote; the 24-hour messaging window runs from here.
    pub last_inbound_at: Option<Timestamp>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// An activity with what the API shows beside it: its contact's name and channels, its tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivityView {
    pub activity: Activity,
    pub profile_name: ProfileName,
    pub channels: Vec<Channel>,
    /// Ordered by name (case-insensitive), then id.
    pub tags: Vec<TagRef>,
    /// The newest message (by `created_at`, then id), if any.
    pub last_message: Option<MessageSummary>,
    /// Inbound messages stored since the business last marked the conversation read: kept on
    /// the activity, raised by each inbound message and set to 0 by a read.
    pub unread_count: u64,
}

/// What to search activities for: a case-insensitive piece of the contact's name, or, when the
/// term holds [`MIN_DIGITS`](Self::MIN_DIGITS)+ digits, a piece of one of the contact's channel identifiers' digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActivitySearch {
    lowercase: String,
    digits: Option<String>,
}

impl ActivitySearch {
    /// Fewer digits than this in a term search the name only: two digits would match most numbers.
    pub const MIN_DIGITS: usize = 3;

    pub fn new(raw: &str) -> Result<Self, FieldError> {
        let term = text::bounded("search", raw, 1, 100)?;
        let digits = text::digits_of(&term);
        Ok(Self { lowercase: text::search_key(&term), digits: (digits.len() >= Self::MIN_DIGITS).then_some(digits) })
    }

    /// Matched as a substring of the lowercased contact name.
    pub fn name_fragment(&self) -> &str {
        &self.lowercase
    }

    /// Matched as a substring of a channel identifier's digits, when present.
    pub fn digit_fragment(&self) -> Option<&str> {
        self.digits.as_deref()
    }
}

/// Filters of the activity list; all given filters must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityFilter {
    pub status: Option<ActivityStatus>,
    pub tag: Option<TagId>,
    pub search: Option<ActivitySearch>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_parse_exactly() {
        assert_eq!(ActivityStatus::parse("pending").unwrap(), ActivityStatus::Pending);
        assert!(ActivityStatus::parse("OPEN").is_err());
        assert!(ActivityStatus::parse("archived").is_err());
    }

    #[test]
    fn search_extracts_digits_only_when_three_or_more() {
        let s = ActivitySearch::new(" +1 555-01 ").unwrap();
        assert_eq!(s.digit_fragment(), Some("155501"));
        assert_eq!(s.name_fragment(), "+1 555-01");
        assert_eq!(ActivitySearch::new("Ana 12").unwrap().digit_fragment(), None);
        assert!(ActivitySearch::new("  ").is_err());
    }

    #[test]
    fn assignee_is_bounded() {
        assert!(Assignee::new("user_1").is_ok());
        assert!(Assignee::new("").is_err());
        assert!(Assignee::new(&"u".repeat(129)).is_err());
    }
}
