//! Activities: one conversation per contact, across the contact's channels.

use crate::FieldError;
use crate::model::{
    ActivityId, AgentId, Channel, ChannelType, Contact, ContactId, FirstResponse, MemberId, MemberRef, MessageSummary, ProfileName, TagId,
    TagRef, Timestamp, text,
};

/// Where a conversation stands. An inbound message makes it (or puts it back) `Open`; a send to
/// someone new opens it `Pending`; the team may move it between any two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActivityStatus {
    /// In progress: what an inbound message makes it (`open`).
    Open,
    /// Closed by the team; the contact's next message reopens it (`closed`).
    Closed,
    /// Opened by the business before the contact wrote (a send to someone new), or set by the
    /// team; the contact's next message opens it (`pending`).
    Pending,
}

impl ActivityStatus {
    /// Every status, in the order status sets list them.
    pub const ALL: [ActivityStatus; 3] = [ActivityStatus::Open, ActivityStatus::Closed, ActivityStatus::Pending];

    /// Its name on the wire: `open`, `closed` or `pending`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActivityStatus::Open => "open",
            ActivityStatus::Closed => "closed",
            ActivityStatus::Pending => "pending",
        }
    }

    /// The status named exactly (lowercase) `raw`; a `FieldError` on `status` for anything else.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw).ok_or_else(|| FieldError::new("status", "must be one of open, closed, pending"))
    }
}

/// Who an activity is assigned to: a member's id (`usr_…`), or any other user id of the
/// caller's own system; trimmed, 1–128 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignee(String);

impl Assignee {
    /// The member this assignee names, when it is a member id (`usr_…`). Whether the agent has
    /// that member is for the caller to check.
    pub fn member(&self) -> Option<MemberId> {
        self.0.starts_with("usr_").then(|| MemberId::new(self.0.clone()))
    }

    /// `raw` trimmed; a `FieldError` on `assigned_to` when empty, longer than 128 characters or
    /// holding a control character other than newline and tab.
    pub fn new(raw: &str) -> Result<Self, FieldError> {
        text::bounded("assigned_to", raw, 1, 128).map(Self)
    }

    /// The user id, trimmed.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A contact's one conversation, across all the contact's channels.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Activity {
    /// Its id (`act_…`).
    pub id: ActivityId,
    /// The agent whose conversation it is.
    pub agent_id: AgentId,
    /// The contact it is with: a contact has at most one activity.
    pub contact_id: ContactId,
    /// Where it stands.
    pub status: ActivityStatus,
    /// The team member in charge; `None` while unassigned.
    pub assigned_to: Option<Assignee>,
    /// When the contact last wrote; the 24-hour messaging window runs from here.
    pub last_inbound_at: Option<Timestamp>,
    /// Its first-response clock: when the contact last opened it, when the team's first answer
    /// falls due and when it came.
    #[serde(default)]
    pub first_response: FirstResponse,
    /// When it was opened.
    pub created_at: Timestamp,
    /// When it last changed: status, assignee, contact name, a tag actually attached or detached,
    /// or a message stored.
    pub updated_at: Timestamp,
}

/// An activity with what the API shows beside it: its contact's name and channels, its tags.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ActivityView {
    /// The activity itself.
    pub activity: Activity,
    /// Its contact's name.
    pub profile_name: ProfileName,
    /// Its contact's channels.
    pub channels: Vec<Channel>,
    /// Ordered by name (case-insensitive), then id.
    pub tags: Vec<TagRef>,
    /// The newest message (by `created_at`, then id), if any.
    pub last_message: Option<MessageSummary>,
    /// Inbound messages stored since the business last marked the conversation read: kept on
    /// the activity, raised by each inbound message and set to 0 by a read.
    pub unread_count: u64,
    /// The member it is assigned to, while it is assigned to one of the agent's members.
    #[serde(default)]
    pub assignee: Option<MemberRef>,
}

/// An activity's change as storage writes it: the activity as it now is, the contact's new name
/// when it is renamed, and whether the write must find it unassigned.
#[derive(Debug, Clone, Copy)]
pub struct ActivityWrite<'a> {
    /// The activity as it now is.
    pub activity: &'a Activity,
    /// The contact's new name, written with it.
    pub rename: Option<&'a ProfileName>,
    /// Write only if the stored activity has no assignee (`Conflict` otherwise): two people
    /// taking one conversation at once cannot both have it.
    pub if_unassigned: bool,
}

impl<'a> ActivityWrite<'a> {
    /// `activity` as it now is, with nothing else.
    pub fn of(activity: &'a Activity) -> Self {
        Self { activity, rename: None, if_unassigned: false }
    }

    /// With the contact renamed `name`.
    pub fn renaming(self, name: Option<&'a ProfileName>) -> Self {
        Self { rename: name, ..self }
    }
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

    /// A search for `raw` trimmed; a `FieldError` on `search` when empty, longer than 100
    /// characters or holding a control character other than newline and tab.
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

    /// Whether a contact named `name` with `channels` matches: the name or one channel's
    /// username holds the fragment (ignoring case), or one channel's digits hold the digit
    /// fragment.
    pub fn matches(&self, name: &ProfileName, channels: &[Channel]) -> bool {
        let holds = |text: &str| text::search_key(text).contains(&self.lowercase);
        holds(name.as_str())
            || channels.iter().filter_map(|c| c.user().username.as_ref()).any(|u| holds(u.as_str()))
            || self.matches_digits(channels)
    }

    fn matches_digits(&self, channels: &[Channel]) -> bool {
        self.digits.as_ref().is_some_and(|d| channels.iter().any(|c| c.digits().contains(d.as_str())))
    }

    /// Whether a contact matches the contact list's search: as [`matches`](Self::matches), or
    /// its email address (the `email` field, or an email channel's address) holds the fragment.
    pub fn matches_contact(&self, contact: &Contact) -> bool {
        let holds = |text: &str| text::search_key(text).contains(&self.lowercase);
        self.matches(&contact.profile_name, &contact.channels)
            || contact.email.as_ref().is_some_and(|e| holds(e.as_str()))
            || contact.channels.iter().any(|c| c.channel_type() == ChannelType::Email && holds(c.channel_id()))
    }
}

/// The statuses an activity list keeps: one, several, or any (the default, no filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StatusSet(u8);

impl Default for StatusSet {
    fn default() -> Self {
        Self::ANY
    }
}

impl From<ActivityStatus> for StatusSet {
    fn from(status: ActivityStatus) -> Self {
        Self(Self::bit(status))
    }
}

impl StatusSet {
    /// Every status: no filter.
    pub const ANY: StatusSet = StatusSet(0b111);

    fn bit(status: ActivityStatus) -> u8 {
        1 << ActivityStatus::ALL.iter().position(|s| *s == status).expect("a status of ALL")
    }

    /// `open`, or several comma-separated (`open,pending`); naming all three keeps every one.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        let mut bits = 0;
        for name in raw.split(',') {
            bits |= Self::bit(
                ActivityStatus::parse(name.trim())
                    .map_err(|_| FieldError::new("status", "must be one or more of open, closed, pending, separated by commas"))?,
            );
        }
        Ok(Self(bits))
    }

    /// Whether every status is kept (no filter).
    pub fn is_any(self) -> bool {
        self == Self::ANY
    }

    /// The status, when exactly one is kept.
    pub fn single(self) -> Option<ActivityStatus> {
        let mut kept = self.iter();
        match (kept.next(), kept.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Whether activities in `status` are kept.
    pub fn contains(self, status: ActivityStatus) -> bool {
        self.0 & Self::bit(status) != 0
    }

    /// The statuses kept, in [`ActivityStatus::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = ActivityStatus> {
        ActivityStatus::ALL.into_iter().filter(move |s| self.contains(*s))
    }
}

/// Whose activities a list keeps: nobody's (`none`, unassigned) or one user's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AssigneeFilter {
    /// Activities with no assignee (`none`).
    Unassigned,
    /// Activities assigned to this user.
    To(Assignee),
}

impl AssigneeFilter {
    /// `none`, or a user id (so `none` is no user's id).
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        if raw == "none" { Ok(Self::Unassigned) } else { Assignee::new(raw).map(Self::To) }
    }

    /// Whether an activity assigned to `assigned_to` (`None`: unassigned) is kept.
    pub fn matches(&self, assigned_to: Option<&Assignee>) -> bool {
        match self {
            Self::Unassigned => assigned_to.is_none(),
            Self::To(user) => assigned_to == Some(user),
        }
    }
}

/// Filters of the activity list; all given filters must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActivityFilter {
    /// The statuses kept; every one by default.
    pub status: StatusSet,
    /// Activities with this tag attached; an unknown or another agent's tag keeps none.
    pub tag: Option<TagId>,
    /// Activities whose contact matches ([`ActivitySearch::matches`]).
    pub search: Option<ActivitySearch>,
    /// Activities with this assignee, or unassigned ones.
    pub assigned_to: Option<AssigneeFilter>,
    /// Activities whose contact has a channel of this type.
    pub channel_type: Option<ChannelType>,
    /// `true`: activities with unread messages; `false`: those without.
    pub unread: Option<bool>,
    /// Activities updated after this time (not at it).
    pub since: Option<Timestamp>,
}

impl ActivityFilter {
    /// Whether the filter keeps `view`: the list's rule, applied to one activity. Storage
    /// answers the same question with its indexes; this is what it is held to.
    pub fn matches(&self, view: &ActivityView) -> bool {
        let a = &view.activity;
        self.status.contains(a.status)
            && self.tag.as_ref().is_none_or(|tag| view.tags.iter().any(|t| &t.id == tag))
            && self.search.as_ref().is_none_or(|s| s.matches(&view.profile_name, &view.channels))
            && self.assigned_to.as_ref().is_none_or(|f| f.matches(a.assigned_to.as_ref()))
            && self.channel_type.is_none_or(|t| view.channels.iter().any(|c| c.channel_type() == t))
            && self.unread.is_none_or(|unread| unread == (view.unread_count > 0))
            && self.since.is_none_or(|since| a.updated_at > since)
    }
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
    fn status_sets_parse_one_or_several() {
        assert_eq!(StatusSet::parse("pending").unwrap().single(), Some(ActivityStatus::Pending));
        let two = StatusSet::parse("open,pending").unwrap();
        assert_eq!(two.single(), None);
        assert_eq!(two.iter().collect::<Vec<_>>(), [ActivityStatus::Open, ActivityStatus::Pending]);
        assert!(StatusSet::parse("closed,open,pending").unwrap().is_any());
        assert!(StatusSet::parse("open,").is_err());
        assert!(StatusSet::parse("open,archived").is_err());
        assert!(StatusSet::default().is_any());
    }

    #[test]
    fn none_means_unassigned() {
        assert_eq!(AssigneeFilter::parse("none").unwrap(), AssigneeFilter::Unassigned);
        assert!(AssigneeFilter::Unassigned.matches(None));
        let ana = AssigneeFilter::parse("ana").unwrap();
        assert!(ana.matches(Some(&Assignee::new("ana").unwrap())));
        assert!(!ana.matches(None));
        assert!(AssigneeFilter::parse("").is_err());
    }

    #[test]
    fn assignee_is_bounded() {
        assert!(Assignee::new("user_1").is_ok());
        assert!(Assignee::new("").is_err());
        assert!(Assignee::new(&"u".repeat(129)).is_err());
    }
}
