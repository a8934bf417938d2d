//! What a platform's webhook tells Parley, in Parley's terms: each platform's adapter reads its
//! own wire format into these (an [`InboundDecoder`](crate::ports::InboundDecoder)), and one
//! path stores them, whatever the channel.

use super::{Channel, ChannelType, MessageContent, PlatformUser, SetAside, StatusUpdate, Timestamp};

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
    /// The platform's id of the line's account ([`LineAccount::account_id`](super::LineAccount::account_id)).
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
