//! What a platform's webhook tells Parley, in Parley's terms: each platform's adapter reads its
//! own wire format into these (an [`InboundDecoder`](crate::ports::InboundDecoder)), and one
//! path stores them, whatever the channel.

use crate::model::{Channel, ChannelType, MessageContent, PlatformUser, SetAside, StatusUpdate, Timestamp};

/// A message of a conversation on one of the agent's lines, as the platform reported it: one the
/// contact sent, or (`echo`) one the business sent from the platform's own app.
#[derive(Debug, Clone, PartialEq)]
pub struct InboundMessage {
    /// The contact's identifier on the line's channel (a phone number's digits, a
    /// platform-scoped id, an address), their `channel_id`: the sender, or an echo's recipient.
    /// A WhatsApp user who hides their phone is named by their business-scoped user id.
    pub from: String,
    /// What the platform said of the user beside their address (WhatsApp's user id, parent id
    /// and username), checked; empty on other channels.
    pub user: PlatformUser,
    /// Sent by the business outside Parley (the platform's own app): stored as outbound.
    pub echo: bool,
    /// The sender's name, when the platform says.
    pub profile_name: Option<String>,
    /// When it was sent, by the platform's clock.
    pub at: Timestamp,
    /// The platform's id of the message: one message is stored once per id.
    pub platform_message_id: String,
    /// What it holds.
    pub content: MessageContent,
    /// The platform's id of the message this one answers or quotes.
    pub reply_to: Option<String>,
    /// The ad that brought the contact, as the platform described it.
    pub referral: Option<serde_json::Value>,
    /// Its place among the delivery's messages, from 1 (for an operator, when it is set aside).
    pub position: u32,
    /// Files that came inside the message (an email's attachments), kept by Parley: each is
    /// named by an attachment of `content`.
    pub files: Vec<InboundFile>,
    /// Who the user is now, when the message says they changed (a `system` notice of a new
    /// number or user id, their own card shared on request); `from` and `user` name them as
    /// they were.
    pub identity: Option<crate::model::IdentityChange>,
}

impl InboundMessage {
    /// The channel it came over on a line of `channel_type`, knowing what the message said of
    /// its user; why not, when `from` is no identifier of that channel.
    pub fn channel(&self, channel_type: ChannelType) -> Result<Channel, String> {
        let channel =
            Channel::new(channel_type, &self.from).map_err(|_| format!("the sender is not a {} identifier", channel_type.as_str()))?;
        Ok(channel.with_user(self.user.clone()))
    }
}

/// A file that came inside a message, to keep. Its `id` is derived from the message, so
/// processing the delivery again keeps it once.
#[derive(Clone, PartialEq, Eq)]
pub struct InboundFile {
    /// `att_…`, derived from the message it came in and its place there.
    pub id: String,
    /// The name it came with, if any.
    pub filename: Option<String>,
    /// Its media type, as the message declared it.
    pub mime_type: String,
    /// The whole content.
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for InboundFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboundFile")
            .field("id", &self.id)
            .field("filename", &self.filename)
            .field("mime_type", &self.mime_type)
            .field("size", &self.bytes.len())
            .finish()
    }
}

/// What one delivery tells about one line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LineNews {
    /// The platform's id of the line's account ([`LineAccount::account_id`](crate::model::LineAccount::account_id)).
    pub account_id: String,
    /// Status reports of messages the line sent.
    pub statuses: Vec<StatusUpdate>,
    /// Messages of the line's conversations, in the delivery's order.
    pub inbound: Vec<InboundMessage>,
    /// Messages that cannot be stored as received (no usable id, sender or time), with why.
    pub set_aside: Vec<SetAside>,
    /// Contacts who read the conversation: the business's earlier messages become `read`.
    pub reads: Vec<ReadReceipt>,
    /// Messages the contact deleted: kept, marked with when.
    pub deletions: Vec<Deletion>,
    /// The platform's notices about the templates of a business account (WhatsApp): news that
    /// carries them names the business account in `account_id`, not a line, and every line of
    /// that account follows them.
    pub template_notices: Vec<TemplateNotice>,
}

/// The platform changed one of a business account's templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateNotice {
    /// The template's id on the platform.
    pub template_id: crate::model::TemplateId,
    /// What changed.
    pub change: TemplateChange,
}

/// What a template notice changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateChange {
    /// Its review status (`APPROVED`, `PAUSED`, `REJECTED`, `DISABLED`…), uppercase.
    Status(String),
    /// Its category (`MARKETING`, `UTILITY`, `AUTHENTICATION`), uppercase.
    Category(String),
}

impl TemplateChange {
    /// A status as the platform's notice names it: uppercase `A-Z` and `_`, 1–32 characters;
    /// `REINSTATED` (a paused template back in use) is `APPROVED`. `None` otherwise.
    pub fn status(raw: &str) -> Option<Self> {
        let name = upper_name(raw)?;
        Some(TemplateChange::Status(if name == "REINSTATED" { crate::model::APPROVED.to_string() } else { name }))
    }

    /// A category as the platform's notice names it (same form as a status); `None` otherwise.
    pub fn category(raw: &str) -> Option<Self> {
        upper_name(raw).map(TemplateChange::Category)
    }

    /// `definition` with the change made; `None` when it already says so.
    pub fn applied_to(&self, definition: &crate::model::TemplateDefinition) -> Option<crate::model::TemplateDefinition> {
        let mut changed = definition.clone();
        match self {
            TemplateChange::Status(status) => changed.status.clone_from(status),
            TemplateChange::Category(category) => changed.category.clone_from(category),
        }
        (changed != *definition).then_some(changed)
    }
}

fn upper_name(raw: &str) -> Option<String> {
    let name = raw.trim().to_ascii_uppercase();
    ((1..=32).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')).then_some(name)
}

/// A contact read the conversation up to `up_to`: every outbound message to them on the line
/// sent at or before it is read, at `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadReceipt {
    /// The contact's identifier on the line's channel.
    pub contact: String,
    /// How far they read: outbound messages sent at or before it are read.
    pub up_to: Timestamp,
    /// When they read it, by the platform's clock.
    pub at: Timestamp,
}

/// A contact deleted one of their messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deletion {
    /// The platform's id of the message deleted.
    pub platform_message_id: String,
    /// When it was deleted, by the platform's clock.
    pub at: Timestamp,
}

#[cfg(test)]
mod template_change_tests {
    use super::*;
    use crate::model::{ParameterFormat, TemplateDefinition, TemplateId};

    #[test]
    fn a_change_is_read_uppercase_and_applies_only_when_it_changes_something() {
        assert_eq!(TemplateChange::status("paused"), Some(TemplateChange::Status("PAUSED".into())));
        assert_eq!(TemplateChange::status("REINSTATED"), Some(TemplateChange::Status("APPROVED".into())));
        assert_eq!(TemplateChange::category(" marketing "), Some(TemplateChange::Category("MARKETING".into())));
        for bad in ["", "not a status", "PAUSED!", &"A".repeat(33)] {
            assert_eq!(TemplateChange::status(bad), None, "{bad:?}");
        }
        let definition = TemplateDefinition {
            id: TemplateId::new("1"),
            name: "n".into(),
            language: "en_US".into(),
            status: "APPROVED".into(),
            category: "UTILITY".into(),
            parameter_format: ParameterFormat::Positional,
            components: vec![],
        };
        assert_eq!(TemplateChange::Status("APPROVED".into()).applied_to(&definition), None);
        let paused = TemplateChange::Status("PAUSED".into()).applied_to(&definition).unwrap();
        assert_eq!((paused.status.as_str(), paused.category.as_str()), ("PAUSED", "UTILITY"));
        let marketing = TemplateChange::Category("MARKETING".into()).applied_to(&definition).unwrap();
        assert_eq!((marketing.status.as_str(), marketing.category.as_str()), ("APPROVED", "MARKETING"));
    }
}
