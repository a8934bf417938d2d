//! What each write adds to its agent's reports: counts per quarter hour, and one duration per
//! first response and per resolution. Storage writes them in the write's own transaction, under
//! the activity's lock, from what these functions decide.

use crate::model::{ActivityId, Assignee, ChannelType, FirstResponse, Message, MessageDirection, MessageStatus, Timestamp};

/// The counts are kept per slot of this many minutes of UTC. Every time zone in use is a whole
/// number of quarter hours from UTC, so a slot lies inside one local day in any of them.
pub const SLOT_MINUTES: i64 = 15;

/// The start of the slot holding `at`.
pub fn slot_of(at: Timestamp) -> Timestamp {
    let slot_ms = SLOT_MINUTES * 60_000;
    let ms = at.timestamp_millis();
    chrono::DateTime::from_timestamp_millis(ms - ms.rem_euclid(slot_ms)).unwrap_or(at)
}

/// Counts one write adds (or a slot holds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Conversations the contact opened (their message found it not open: the first-response
    /// clock started).
    pub opened: i64,
    /// Conversations closed.
    pub closed: i64,
    /// The contacts' messages.
    pub messages_in: i64,
    /// The business's messages as they went out (notes are not messages to anyone).
    pub messages_out: i64,
}

impl Tally {
    /// Whether it counts nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// The two added up.
    pub fn plus(self, other: Tally) -> Tally {
        Tally {
            opened: self.opened + other.opened,
            closed: self.closed + other.closed,
            messages_in: self.messages_in + other.messages_in,
            messages_out: self.messages_out + other.messages_out,
        }
    }
}

/// An agent's counts of one slot for one assignee and channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotCount {
    /// The slot's start ([`slot_of`]).
    pub slot: Timestamp,
    /// Who the conversation was assigned to then; `None`: unassigned.
    pub member: Option<Assignee>,
    /// The channel of the message counted, or of the contact's latest message for a close;
    /// `None` for a conversation with no message.
    pub channel: Option<ChannelType>,
    /// What it counts.
    pub tally: Tally,
}

/// Which duration a span measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpanKind {
    /// From the contact's opening to the team's first answer.
    FirstResponse,
    /// From the contact's opening (or the conversation's start, when the contact never opened
    /// it) to its close.
    Resolution,
}

impl SpanKind {
    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::FirstResponse => "first_response",
            SpanKind::Resolution => "resolution",
        }
    }

    /// The kind stored as `raw`.
    pub fn parse(raw: &str) -> Option<Self> {
        [SpanKind::FirstResponse, SpanKind::Resolution].into_iter().find(|k| k.as_str() == raw)
    }
}

/// One first response or resolution: reports count it on the day it ended, in business time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSpan {
    /// What it measures.
    pub kind: SpanKind,
    /// The conversation.
    pub activity_id: ActivityId,
    /// When it started.
    pub started_at: Timestamp,
    /// When it ended: the answer, or the close.
    pub ended_at: Timestamp,
    /// Who the conversation was assigned to when it ended; `None`: unassigned.
    pub member: Option<Assignee>,
    /// The answer's channel, or the contact's latest message's for a close.
    pub channel: Option<ChannelType>,
}

/// What one write adds to its agent's reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportFacts {
    /// Counts to add, when there are any.
    pub count: Option<SlotCount>,
    /// A duration that ended.
    pub span: Option<ReportSpan>,
}

impl ReportFacts {
    /// A message stored at its `created_at` on an activity assigned to `member`, which moved
    /// the activity's clock from `before` to `after`: counted in or out (out unless it waits
    /// for its time or failed before going anywhere), an opening when the clock restarted, a
    /// first response when the clock stopped.
    pub fn of_message(m: &Message, before: &FirstResponse, after: &FirstResponse, member: Option<&Assignee>) -> Self {
        let tally = match m.direction {
            MessageDirection::Inbound => Tally { messages_in: 1, ..Tally::default() },
            MessageDirection::Outbound if !matches!(m.status, MessageStatus::Scheduled | MessageStatus::Failed) => {
                Tally { messages_out: 1, ..Tally::default() }
            }
            MessageDirection::Outbound | MessageDirection::Internal => Tally::default(),
        };
        Self::of_clock(&m.activity_id, m.created_at, Some(m.channel.channel_type()), tally, before, after, member)
    }

    /// A scheduled message going out at `at`: counted out then, and a first response when it
    /// stopped the clock.
    pub fn of_send(m: &Message, at: Timestamp, before: &FirstResponse, after: &FirstResponse, member: Option<&Assignee>) -> Self {
        let tally = Tally { messages_out: 1, ..Tally::default() };
        Self::of_clock(&m.activity_id, at, Some(m.channel.channel_type()), tally, before, after, member)
    }

    fn of_clock(
        activity: &ActivityId,
        at: Timestamp,
        channel: Option<ChannelType>,
        tally: Tally,
        before: &FirstResponse,
        after: &FirstResponse,
        member: Option<&Assignee>,
    ) -> Self {
        let opened = after.opened_at.is_some() && after.opened_at != before.opened_at;
        let tally = Tally { opened: i64::from(opened), ..tally };
        let span = match (before.responded_at, after.responded_at, after.opened_at) {
            (None, Some(responded), Some(opened)) => Some(ReportSpan {
                kind: SpanKind::FirstResponse,
                activity_id: activity.clone(),
                started_at: opened,
                ended_at: responded,
                member: member.cloned(),
                channel,
            }),
            _ => None,
        };
        let count = (!tally.is_empty()).then(|| SlotCount { slot: slot_of(at), member: member.cloned(), channel, tally });
        Self { count, span }
    }

    /// An activity closed at `at`, assigned to `member` then, that the contact last opened at
    /// `opened_at` (`None`: never; then it is resolved from `created_at`), whose contact's latest
    /// message came over `channel`.
    pub fn of_close(
        activity: &ActivityId,
        at: Timestamp,
        opened_at: Option<Timestamp>,
        created_at: Timestamp,
        member: Option<&Assignee>,
        channel: Option<ChannelType>,
    ) -> Self {
        let count = SlotCount { slot: slot_of(at), member: member.cloned(), channel, tally: Tally { closed: 1, ..Tally::default() } };
        let span = ReportSpan {
            kind: SpanKind::Resolution,
            activity_id: activity.clone(),
            started_at: opened_at.unwrap_or(created_at).min(at),
            ended_at: at,
            member: member.cloned(),
            channel,
        };
        Self { count: Some(count), span: Some(span) }
    }

    /// Whether it adds nothing.
    pub fn is_empty(&self) -> bool {
        self.count.is_none() && self.span.is_none()
    }
}

/// A first response or resolution as a report reads it: what it measures, when it started and
/// ended, and the key of the report's grouping (the assignee when grouped by member, the
/// channel when grouped by channel; `None` otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndedSpan {
    /// What it measures.
    pub kind: SpanKind,
    /// When it started.
    pub started_at: Timestamp,
    /// When it ended.
    pub ended_at: Timestamp,
    /// The assignee then (grouped by member).
    pub member: Option<Assignee>,
    /// The channel (grouped by channel).
    pub channel: Option<ChannelType>,
}

/// What reports hold for a range of time, as one grouping needs it
/// ([`ReportRepository::range`](crate::ports::ReportRepository::range)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportRange {
    /// The counts added up per the grouping's key: per slot by day (no member, no channel), per
    /// assignee by member (`slot` the range's start, no channel), per channel by channel (`slot`
    /// the range's start, no member); in no particular order.
    pub counts: Vec<SlotCount>,
    /// The spans that ended in it, each with the grouping's key.
    pub spans: Vec<EndedSpan>,
}
