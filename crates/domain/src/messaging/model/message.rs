//! Messages: one activity's timeline, inbound (from the contact) and outbound (from the agent).
//! Outbound statuses only move forward, as executions' do; inbound ones stay `received`.

use crate::FieldError;
use crate::model::execution::{earlier_delivery, record_delivery};
use crate::model::{
    ActivityId, AgentId, CampaignKey, CartCode, Channel, ExecutionStatus, LineId, Location, Media, MessageContent, MessageId,
};
use crate::model::{Pricing, StatusUpdate, TemplateId, Timestamp};

/// Who a timeline entry is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageDirection {
    /// From the contact (`inbound`).
    Inbound,
    /// From the business: through Parley, or from the platform's own app (`outbound`).
    Outbound,
    /// A private note of the business's team: in the timeline, never sent anywhere.
    Internal,
}

impl MessageDirection {
    /// Every direction.
    pub const ALL: [MessageDirection; 3] = [MessageDirection::Inbound, MessageDirection::Outbound, MessageDirection::Internal];

    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            MessageDirection::Inbound => "inbound",
            MessageDirection::Outbound => "outbound",
            MessageDirection::Internal => "internal",
        }
    }

    /// The direction named exactly `raw`; a `FieldError` on `direction` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL
            .into_iter()
            .find(|d| d.as_str() == raw)
            .ok_or_else(|| FieldError::new("direction", "must be one of inbound, outbound, internal"))
    }
}

/// Where a timeline entry stands: inbound messages stay `received` and notes `recorded`;
/// outbound ones only move forward ([`can_move_to`](Self::can_move_to)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Every inbound message, for good.
    Received,
    /// An outbound reply recorded before the platform was asked to send it: the platform has
    /// not answered yet, or the answer was lost (an outage, a crash). A status report naming
    /// it (`biz_opaque_callback_data`) moves it on.
    Sending,
    /// The platform accepted it (`sent`).
    Sent,
    /// It reached the contact (`delivered`).
    Delivered,
    /// The contact read it (`read`).
    Read,
    /// The platform refused it or could not deliver it (`failed`). Final.
    Failed,
    /// A private note: stored in the timeline, never sent. Final.
    Recorded,
    /// A reply or template send waiting for its `send_at`: the workers send it then (it moves
    /// to `sending`), or it is cancelled and leaves the timeline.
    Scheduled,
}

impl MessageStatus {
    /// Every status.
    pub const ALL: [MessageStatus; 8] = [
        MessageStatus::Received,
        MessageStatus::Sending,
        MessageStatus::Sent,
        MessageStatus::Delivered,
        MessageStatus::Read,
        MessageStatus::Failed,
        MessageStatus::Recorded,
        MessageStatus::Scheduled,
    ];

    /// Its wire name (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Received => "received",
            MessageStatus::Sending => "sending",
            MessageStatus::Sent => "sent",
            MessageStatus::Delivered => "delivered",
            MessageStatus::Read => "read",
            MessageStatus::Failed => "failed",
            MessageStatus::Recorded => "recorded",
            MessageStatus::Scheduled => "scheduled",
        }
    }

    /// The status named exactly `raw`; a `FieldError` on `status` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL.into_iter().find(|s| s.as_str() == raw).ok_or_else(|| {
            FieldError::new("status", "must be one of received, sending, sent, delivered, read, failed, recorded, scheduled")
        })
    }

    /// Whether a status the platform reported moves a message in this status: forward along
    /// sending → sent → delivered → read, to failed from any of those; `received` and `failed`
    /// are final.
    pub fn can_move_to(self, reported: ExecutionStatus) -> bool {
        match self {
            // A scheduled message has not reached the platform: nothing it reports names it.
            MessageStatus::Received | MessageStatus::Failed | MessageStatus::Recorded | MessageStatus::Scheduled => false,
            MessageStatus::Sending => true,
            MessageStatus::Sent => reported != ExecutionStatus::Sent,
            MessageStatus::Delivered => matches!(reported, ExecutionStatus::Read | ExecutionStatus::Failed),
            MessageStatus::Read => reported == ExecutionStatus::Failed,
        }
    }
}

impl From<ExecutionStatus> for MessageStatus {
    fn from(s: ExecutionStatus) -> Self {
        match s {
            ExecutionStatus::Sent => MessageStatus::Sent,
            ExecutionStatus::Delivered => MessageStatus::Delivered,
            ExecutionStatus::Read => MessageStatus::Read,
            ExecutionStatus::Failed => MessageStatus::Failed,
        }
    }
}

/// The kind of a message, as the API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageType {
    /// Plain text.
    Text,
    /// An image.
    Image,
    /// A video.
    Video,
    /// Audio.
    Audio,
    /// A file, with its name when known.
    Document,
    /// A sticker.
    Sticker,
    /// Something the contact shared from the platform (a post, a profile).
    Share,
    /// The contact mentioned the business in their story.
    StoryMention,
    /// A place.
    Location,
    /// Contact cards.
    Contacts,
    /// An interactive message the business sent, or the contact's choice in one.
    Interactive,
    /// A template's quick-reply button, pressed.
    Button,
    /// A reaction to a message, or its removal.
    Reaction,
    /// An order placed from the catalog.
    Order,
    /// A contact's answer to a WhatsApp Flow.
    FlowReply,
    /// A notice of the platform about the user (a changed phone number or user id).
    System,
    /// A template send.
    Template,
    /// An email, inbound or a reply.
    Email,
    /// A product card the business sent from its catalog.
    Product,
    /// A cart the business sent: its lines, total and link.
    Cart,
    /// A private note of the team (`direction: internal`).
    Note,
    /// A kind Parley does not read, kept whole.
    Unsupported,
}

impl MessageType {
    /// Every type.
    pub const ALL: [MessageType; 22] = [
        MessageType::Text,
        MessageType::Image,
        MessageType::Video,
        MessageType::Audio,
        MessageType::Document,
        MessageType::Sticker,
        MessageType::Share,
        MessageType::StoryMention,
        MessageType::Location,
        MessageType::Contacts,
        MessageType::Interactive,
        MessageType::Button,
        MessageType::Reaction,
        MessageType::Order,
        MessageType::FlowReply,
        MessageType::System,
        MessageType::Template,
        MessageType::Email,
        MessageType::Product,
        MessageType::Cart,
        MessageType::Note,
        MessageType::Unsupported,
    ];

    /// Its wire name (lowercase, `story_mention`).
    pub fn as_str(self) -> &'static str {
        match self {
            MessageType::Text => "text",
            MessageType::Image => "image",
            MessageType::Video => "video",
            MessageType::Audio => "audio",
            MessageType::Document => "document",
            MessageType::Sticker => "sticker",
            MessageType::Share => "share",
            MessageType::StoryMention => "story_mention",
            MessageType::Location => "location",
            MessageType::Contacts => "contacts",
            MessageType::Interactive => "interactive",
            MessageType::Button => "button",
            MessageType::Reaction => "reaction",
            MessageType::Order => "order",
            MessageType::FlowReply => "flow_reply",
            MessageType::System => "system",
            MessageType::Template => "template",
            MessageType::Email => "email",
            MessageType::Product => "product",
            MessageType::Cart => "cart",
            MessageType::Note => "note",
            MessageType::Unsupported => "unsupported",
        }
    }

    /// The type named exactly `raw`; a `FieldError` on `type` otherwise.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::ALL.into_iter().find(|t| t.as_str() == raw).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|t| t.as_str()).collect();
            FieldError::new("type", format!("must be one of {}", names.join(", ")))
        })
    }
}

/// One message of an activity's timeline.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Message {
    /// Its id (`msg_…`).
    pub id: MessageId,
    /// The agent whose conversation it is in.
    pub agent_id: AgentId,
    /// The activity (conversation) whose timeline it is in.
    pub activity_id: ActivityId,
    /// Who it is from.
    pub direction: MessageDirection,
    /// What it carries.
    pub content: MessageContent,
    /// Our id of the message this one answers (inbound: once storage maps the platform's id).
    pub reply_to: Option<MessageId>,
    /// The platform's id of the message; `None` while a reply is `sending`.
    pub platform_message_id: Option<String>,
    /// The contact's channel it came in on or went out to (a note: where the conversation is).
    pub channel: Channel,
    /// The line it came in on or went out from; `None` for a note.
    pub line_id: Option<LineId>,
    /// Where it stands.
    pub status: MessageStatus,
    /// Why it failed, as the platform told it; `None` unless `failed`.
    pub error_message: Option<String>,
    /// The template sent, for a template send.
    pub template_id: Option<TemplateId>,
    /// The campaign key a template send was made under, if any.
    pub campaign_key: Option<CampaignKey>,
    /// One of the agent's carts an inbound message links to (`…/c/<code>`); `None` otherwise.
    pub cart_code: Option<CartCode>,
    /// The ad that led the contact here (the platform's `referral` object), inbound only.
    pub referral: Option<serde_json::Value>,
    /// Outbound: what the platform charges for it, as its status reports last told; `None`
    /// until one does.
    pub pricing: Option<Pricing>,
    /// Inbound: the platform's time; outbound: when Parley made it.
    pub created_at: Timestamp,
    /// Outbound: when the platform accepted it.
    pub sent_at: Option<Timestamp>,
    /// A scheduled message: when it was asked to go out (kept once it has).
    #[serde(default)]
    pub send_at: Option<Timestamp>,
    /// Outbound: the earliest time it is known to have reached the contact (a `read` implies it).
    pub delivered_at: Option<Timestamp>,
    /// Outbound: when the contact read it.
    pub read_at: Option<Timestamp>,
    /// When the contact deleted it on the platform: kept, with its content, for the record.
    pub deleted_at: Option<Timestamp>,
    /// When Parley last changed it (status, deletion): what `since` polls against.
    pub updated_at: Timestamp,
}

impl Message {
    /// Its kind ([`MessageContent::message_type`]).
    pub fn message_type(&self) -> MessageType {
        self.content.message_type()
    }

    /// What a person reads of it ([`MessageContent::text`]).
    pub fn text(&self) -> Option<&str> {
        self.content.text()
    }

    /// Its file, for a media kind ([`MessageContent::media`]).
    pub fn media(&self) -> Option<&Media> {
        self.content.media()
    }

    /// Its place, for a location.
    pub fn location(&self) -> Option<&Location> {
        self.content.location()
    }

    /// Applies a reported status if it moves the message forward, or a late report that tells
    /// an earlier delivery of a delivered or read message (its time becomes `delivered_at`);
    /// `false` (and no change) for inbound messages, duplicates and other late, out-of-order
    /// reports.
    ///
    /// A report's pricing is kept on an outbound message whatever its status does (the platform
    /// may price it on any report, and reports come in any order), by [`Pricing::replaces`].
    pub fn apply(&mut self, update: &StatusUpdate, now: Timestamp) -> bool {
        let priced = self.direction == MessageDirection::Outbound
            && update.pricing.as_ref().is_some_and(|p| Pricing::replaces(p, self.pricing.as_ref()));
        if priced {
            self.pricing = update.pricing.clone();
        }
        let moved = if self.status.can_move_to(update.status) {
            if update.status == ExecutionStatus::Sent {
                self.sent_at.get_or_insert(update.at);
            }
            record_delivery(update, &mut self.delivered_at, &mut self.read_at, &mut self.error_message);
            self.status = update.status.into();
            true
        } else {
            let delivered = matches!(self.status, MessageStatus::Delivered | MessageStatus::Read);
            delivered && earlier_delivery(update, &mut self.delivered_at)
        };
        if moved || priced {
            self.updated_at = now;
        }
        moved || priced
    }
}

/// How long after a contact's last message the business may answer freely; after it, only
/// templates (the platform's customer service window).
pub const MESSAGING_WINDOW: chrono::TimeDelta = chrono::TimeDelta::hours(24);
/// How long after the contact's last message a person may still answer on Instagram, under the
/// human-agent tag.
pub const HUMAN_AGENT_WINDOW: chrono::TimeDelta = chrono::TimeDelta::days(7);

/// How far ahead of Parley's clock a platform's time may be and still be believed: clocks
/// drift, but not by more.
pub const PLATFORM_CLOCK_SKEW: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

/// The time of an inbound message the platform stamped `reported`, in a delivery received at
/// `received_at`: as reported, unless that is more than [`PLATFORM_CLOCK_SKEW`] after the
/// receipt, which no message sent before it can be; then the receipt's time. A time years ahead
/// would otherwise hold the 24-hour window open and the activity at the top of every list.
pub fn platform_time(reported: Timestamp, received_at: Timestamp) -> Timestamp {
    if reported - received_at > PLATFORM_CLOCK_SKEW { received_at } else { reported }
}

/// Whether a free-form message may be sent at `now` to a contact who last wrote at
/// `last_inbound_at` (never: `None`).
pub fn window_open(last_inbound_at: Option<Timestamp>, now: Timestamp) -> bool {
    last_inbound_at.is_some_and(|last| now - last < MESSAGING_WINDOW)
}

/// What an activity shows of its newest message (`last_message`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MessageSummary {
    /// The message's id.
    pub id: MessageId,
    /// Who it is from.
    pub direction: MessageDirection,
    /// Its kind.
    pub message_type: MessageType,
    /// The message's text, cut to [`TEXT_CHARS`](Self::TEXT_CHARS) characters.
    pub text: Option<String>,
    /// The message's `created_at`.
    pub created_at: Timestamp,
}

impl MessageSummary {
    /// A summary's text, at most: enough for a conversation list's preview line.
    pub const TEXT_CHARS: usize = 200;

    /// The summary of `message`.
    pub fn of(message: &Message) -> Self {
        let text = message.text().map(|t| match t.char_indices().nth(Self::TEXT_CHARS) {
            Some((cut, _)) => t[..cut].to_string(),
            None => t.to_string(),
        });
        Self {
            id: message.id.clone(),
            direction: message.direction,
            message_type: message.message_type(),
            text,
            created_at: message.created_at,
        }
    }
}

/// A cart a contact brought into the conversation (a message's `cart_code`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CartMention {
    /// The cart's code.
    pub code: CartCode,
    /// When the cart was made.
    pub created_at: Timestamp,
}

/// Filters of an activity's timeline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageFilter {
    /// Only messages created or changed (`updated_at`) after this instant: for polling.
    pub since: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExecutionStatus as Reported;
    use MessageStatus::*;
    use chrono::{TimeDelta, TimeZone, Utc};

    fn t(s: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap() + TimeDelta::seconds(s)
    }

    #[test]
    fn the_status_table_only_moves_forward() {
        let reported = [Reported::Sent, Reported::Delivered, Reported::Read, Reported::Failed];
        // Rows: the message's status; columns: the reported sent, delivered, read, failed.
        for (from, row) in [
            (Received, [false, false, false, false]),
            (Sending, [true, true, true, true]),
            (Sent, [false, true, true, true]),
            (Delivered, [false, false, true, true]),
            (Read, [false, false, false, true]),
            (Failed, [false, false, false, false]),
        ] {
            for (to, ok) in reported.into_iter().zip(row) {
                assert_eq!(from.can_move_to(to), ok, "{from:?} → {to:?}");
            }
        }
    }

    #[test]
    fn names_round_trip() {
        for s in MessageStatus::ALL {
            assert_eq!(MessageStatus::parse(s.as_str()).unwrap(), s);
        }
        for t in MessageType::ALL {
            assert_eq!(MessageType::parse(t.as_str()).unwrap(), t);
        }
        for d in MessageDirection::ALL {
            assert_eq!(MessageDirection::parse(d.as_str()).unwrap(), d);
        }
        assert_eq!(MessageType::parse("poll").unwrap_err().field, "type");
        assert!(MessageStatus::parse("Sent").is_err());
    }

    fn outbound() -> Message {
        Message {
            id: MessageId::new("msg_1"),
            agent_id: AgentId::new("agt_1"),
            activity_id: ActivityId::new("act_1"),
            direction: MessageDirection::Outbound,
            content: MessageContent::Text { body: "hi".into() },
            reply_to: None,
            platform_message_id: Some("pm.1".into()),
            channel: Channel::new(crate::model::ChannelType::Whatsapp, "14155550100").unwrap(),
            line_id: Some(LineId::new("chn_1")),
            status: Sent,
            error_message: None,
            template_id: None,
            campaign_key: None,
            cart_code: None,
            referral: None,
            pricing: None,
            created_at: t(0),
            sent_at: Some(t(0)),
            send_at: None,
            delivered_at: None,
            read_at: None,
            deleted_at: None,
            updated_at: t(0),
        }
    }

    fn update(status: Reported, at: i64) -> StatusUpdate {
        StatusUpdate { message_id: "pm.1".into(), status, at: t(at), error: None, callback_data: None, pricing: None }
    }

    #[test]
    fn the_window_is_open_for_24_hours_after_the_last_inbound_message() {
        assert!(!window_open(None, t(0)), "never wrote");
        assert!(window_open(Some(t(0)), t(0)));
        assert!(window_open(Some(t(0)), t(24 * 3600 - 1)));
        assert!(!window_open(Some(t(0)), t(24 * 3600)));
        assert!(window_open(Some(t(10)), t(5)), "a platform time slightly ahead of ours still opens it");
    }

    #[test]
    fn a_platform_time_far_ahead_of_the_receipt_is_the_receipts() {
        let received = t(1000);
        assert_eq!(platform_time(t(900), received), t(900), "the past as reported (a delivery retried later)");
        assert_eq!(platform_time(t(1000 + 300), received), t(1300), "within the skew as reported");
        assert_eq!(platform_time(t(1000 + 301), received), received, "beyond it, the receipt's time");
        let ten_years = t(1000) + TimeDelta::days(3653);
        assert_eq!(platform_time(ten_years, received), received);
        assert!(!window_open(Some(platform_time(ten_years, received)), received + MESSAGING_WINDOW), "the window closes as usual");
    }

    #[test]
    fn a_summary_cuts_the_text_to_200_characters() {
        let long = Message { content: MessageContent::Text { body: "é".repeat(250) }, ..outbound() };
        let summary = MessageSummary::of(&long);
        assert_eq!(summary.text.as_deref().map(|t| t.chars().count()), Some(200));
        assert_eq!((summary.message_type, summary.direction), (MessageType::Text, MessageDirection::Outbound));
        assert_eq!(MessageSummary::of(&outbound()).text.as_deref(), Some("hi"));
        let audio = Message { content: MessageContent::Audio(Media::default()), ..outbound() };
        assert_eq!(MessageSummary::of(&audio).text, None);
    }

    #[test]
    fn reports_apply_forward_only_and_never_to_inbound_messages() {
        let mut m = outbound();
        assert!(m.apply(&update(Reported::Read, 20), t(100)));
        assert_eq!((m.status, m.delivered_at, m.read_at, m.updated_at), (Read, Some(t(20)), Some(t(20)), t(100)));
        let after_read = m.clone();
        assert!(!m.apply(&update(Reported::Delivered, 25), t(200)), "a late delivered after the read tells nothing new");
        assert!(!m.apply(&update(Reported::Read, 20), t(200)), "a duplicate is ignored");
        assert_eq!(m, after_read);
        assert!(m.apply(&update(Reported::Delivered, 10), t(200)), "a late delivered with the earlier real time moves delivered_at");
        assert_eq!((m.status, m.delivered_at, m.read_at, m.updated_at), (Read, Some(t(10)), Some(t(20)), t(200)));
        assert!(!m.apply(&update(Reported::Delivered, 10), t(250)), "once");
        assert!(m.apply(&StatusUpdate { error: Some("131026: undeliverable".into()), ..update(Reported::Failed, 30) }, t(300)));
        assert_eq!((m.status, m.error_message.as_deref()), (Failed, Some("131026: undeliverable")));

        let mut inbound = Message { direction: MessageDirection::Inbound, status: Received, sent_at: None, ..outbound() };
        let before = inbound.clone();
        assert!(!inbound.apply(&update(Reported::Read, 5), t(6)));
        assert_eq!(inbound, before);
    }

    #[test]
    fn a_reports_pricing_is_kept_on_an_outbound_message_whatever_its_status_does() {
        let priced = |category: &str, billable: bool| {
            Some(Pricing::Reported { category: crate::model::PricingCategory::parse(category).unwrap(), billable })
        };
        let with = |status: Reported, at: i64, pricing: Option<Pricing>| StatusUpdate { pricing, ..update(status, at) };
        let mut m = outbound();
        assert!(m.apply(&with(Reported::Read, 20, priced("marketing", true)), t(100)));
        assert_eq!((m.status, &m.pricing, m.updated_at), (Read, &priced("marketing", true), t(100)));
        // A late delivered moves no status, but its differing pricing is news.
        assert!(m.apply(&with(Reported::Delivered, 25, priced("marketing", false)), t(200)));
        assert_eq!((m.status, &m.pricing, m.updated_at, m.delivered_at), (Read, &priced("marketing", false), t(200), Some(t(20))));
        assert!(!m.apply(&with(Reported::Read, 20, priced("marketing", false)), t(300)), "the same pricing again is no change");
        let unread = Some(Pricing::Unread { raw: serde_json::json!({"type": "later"}) });
        assert!(!m.apply(&with(Reported::Read, 20, unread.clone()), t(300)), "an unread report never hides a read one");
        assert!(!m.apply(&with(Reported::Read, 20, None), t(300)));
        assert_eq!((&m.pricing, m.updated_at), (&priced("marketing", false), t(200)));

        let mut fresh = outbound();
        assert!(fresh.apply(&with(Reported::Sent, 1, unread.clone()), t(5)), "an unread report fills an empty place");
        assert_eq!((fresh.status, &fresh.pricing), (Sent, &unread));

        let mut inbound = Message { direction: MessageDirection::Inbound, status: Received, sent_at: None, ..outbound() };
        assert!(!inbound.apply(&with(Reported::Read, 5, priced("service", false)), t(6)), "never an inbound message");
        assert_eq!(inbound.pricing, None);
    }
}
