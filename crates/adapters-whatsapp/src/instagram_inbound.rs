//! Instagram's messaging webhook (`object: instagram`): `entry[].id` is the professional
//! account (the line), and each `entry[].messaging[]` item one event between it and a contact,
//! read into Parley's [`LineNews`]:
//!
//! - `message`: text, `attachments` (image, video, audio, file; share, reel and story_mention by
//!   link), `quick_reply.payload`, `reply_to.mid`; `is_echo` (sent from Instagram's own app, so
//!   the contact is the recipient) is stored as outbound; `is_deleted` marks the message deleted;
//!   `is_unsupported` is kept whole;
//! - `reaction` (`react` with its emoji, `unreact` without), `postback` (a button tapped), `read`
//!   (the contact saw the conversation up to then).
//!
//! Lenient as the WhatsApp reader: an item of unexpected shape is set aside with why (or, for a
//! kind Parley does not read, skipped), never an error for the rest of the delivery.

use chrono::DateTime;
use parley_domain::model::{
    Deletion, InboundMessage, LineNews, Media, MessageContent, ReadReceipt, SetAside, SetAsideKind, Timestamp, from_storable_json,
    platform_message_id_issue,
};
use parley_domain::ports::InboundDecoder;
use serde::Deserialize;
use serde_json::Value;

/// Reads Instagram's webhook bodies.
#[derive(Debug, Clone, Copy, Default)]
pub struct InstagramDecoder;

impl InboundDecoder for InstagramDecoder {
    fn decode(&self, body: &str) -> Result<Vec<LineNews>, String> {
        parse_instagram_webhook(body)
    }
}

#[derive(Deserialize)]
struct Payload {
    #[serde(default)]
    entry: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    id: Option<Value>,
    /// Raw objects: one item of an unexpected shape must not cost the others.
    #[serde(default)]
    messaging: Vec<Value>,
}

#[derive(Deserialize)]
struct Item {
    sender: Party,
    recipient: Party,
    timestamp: Value,
    message: Option<RawMessage>,
    reaction: Option<RawReaction>,
    postback: Option<RawPostback>,
    read: Option<RawRead>,
}

#[derive(Deserialize)]
struct Party {
    id: String,
}

#[derive(Deserialize)]
struct RawMessage {
    mid: String,
    text: Option<String>,
    #[serde(default)]
    attachments: Vec<Value>,
    quick_reply: Option<QuickReply>,
    reply_to: Option<ReplyTo>,
    referral: Option<Value>,
    #[serde(default)]
    is_echo: bool,
    #[serde(default)]
    is_deleted: bool,
    #[serde(default)]
    is_unsupported: bool,
}

#[derive(Deserialize)]
struct QuickReply {
    payload: String,
}

#[derive(Deserialize)]
struct ReplyTo {
    mid: Option<String>,
}

#[derive(Deserialize)]
struct RawAttachment {
    #[serde(rename = "type")]
    kind: String,
    payload: Option<AttachmentPayload>,
}

#[derive(Deserialize)]
struct AttachmentPayload {
    url: Option<String>,
    title: Option<String>,
}

#[derive(Deserialize)]
struct RawReaction {
    mid: String,
    action: Option<String>,
    reaction: Option<String>,
    emoji: Option<String>,
}

#[derive(Deserialize)]
struct RawPostback {
    mid: Option<String>,
    title: Option<String>,
    payload: Option<String>,
}

#[derive(Deserialize)]
struct RawRead {
    /// Messenger's form: the time up to which everything was seen.
    watermark: Option<Value>,
}

/// A time in milliseconds since the epoch (Instagram's), or in seconds (older payloads), as a
/// number or a string holding one.
fn event_time(raw: &Value) -> Option<Timestamp> {
    let n = match raw {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    // 10^11 seconds is the year 5138; 10^11 milliseconds is 1973.
    if n.abs() >= 100_000_000_000 { DateTime::from_timestamp_millis(n) } else { DateTime::from_timestamp(n, 0) }
}

/// One attachment's content; a kind Parley does not read is kept whole.
fn attachment_content(raw: &Value) -> MessageContent {
    let Ok(a) = RawAttachment::deserialize(raw) else { return MessageContent::Unsupported { raw: raw.clone() } };
    let payload = a.payload.unwrap_or(AttachmentPayload { url: None, title: None });
    let media = Media { link: payload.url, caption: payload.title, ..Media::default() };
    match a.kind.as_str() {
        "image" => MessageContent::Image(media),
        "video" => MessageContent::Video(media),
        "audio" => MessageContent::Audio(media),
        "file" => MessageContent::Document(media),
        "share" | "reel" | "ig_reel" => MessageContent::Share(media),
        "story_mention" => MessageContent::StoryMention(media),
        _ => MessageContent::Unsupported { raw: raw.clone() },
    }
}

/// What one messaging item adds to its line's news.
struct Reading<'a> {
    news: &'a mut LineNews,
    position: u32,
}

impl Reading<'_> {
    fn set_aside(&mut self, raw: &Value, reason: &str) {
        let text_at = |path: &[&str]| {
            let mut v = raw;
            for key in path {
                v = v.get(key)?;
            }
            v.as_str().map(str::to_string)
        };
        self.news.set_aside.push(SetAside {
            kind: SetAsideKind::Message,
            position: self.position,
            platform_id: text_at(&["message", "mid"]).or_else(|| text_at(&["postback", "mid"])),
            from: text_at(&["sender", "id"]),
            reason: reason.to_string(),
        });
    }

    fn message(&mut self, from: &str, echo: bool, at: Timestamp, platform_message_id: String, content: MessageContent) {
        self.news.inbound.push(InboundMessage {
            from: from.to_string(),
            user: Default::default(),
            echo,
            profile_name: None,
            at,
            platform_message_id,
            content,
            reply_to: None,
            referral: None,
            position: self.position,
            files: Vec::new(),
            identity: None,
        });
    }

    fn read(&mut self, raw: &Value) {
        let Ok(item) = Item::deserialize(raw) else {
            return self.set_aside(raw, "not a messaging item with a sender, a recipient and a time");
        };
        let Some(at) = event_time(&item.timestamp) else { return self.set_aside(raw, "its time is not a time in milliseconds") };
        let contact = item.sender.id.as_str();
        if let Some(m) = item.message {
            return self.read_message(raw, &item.sender, &item.recipient, at, m);
        }
        if let Some(r) = item.reaction {
            if platform_message_id_issue(&r.mid).is_some() {
                return self.set_aside(raw, "the reaction names no usable message id");
            }
            let emoji = match r.action.as_deref() {
                Some("unreact") => None,
                _ => r.emoji.or(r.reaction).filter(|e| !e.is_empty()),
            };
            // A reaction has no id of its own: one per contact, message and moment.
            let id = format!("{}#reaction:{contact}:{}", r.mid, at.timestamp_millis());
            return self.message(contact, false, at, id, MessageContent::Reaction { message_id: r.mid, emoji });
        }
        if let Some(p) = item.postback {
            let id = p.mid.filter(|m| platform_message_id_issue(m).is_none());
            let id = id.unwrap_or_else(|| format!("postback:{contact}:{}", at.timestamp_millis()));
            let text = p.title.or_else(|| p.payload.clone()).unwrap_or_default();
            return self.message(contact, false, at, id, MessageContent::Button { payload: p.payload, text });
        }
        if let Some(read) = item.read {
            let up_to = read.watermark.as_ref().and_then(event_time).unwrap_or(at);
            self.news.reads.push(ReadReceipt { contact: contact.to_string(), up_to, at });
        }
        // Referrals, standby and kinds Parley does not read: nothing to store.
    }

    fn read_message(&mut self, raw: &Value, sender: &Party, recipient: &Party, at: Timestamp, m: RawMessage) {
        if let Some(issue) = platform_message_id_issue(&m.mid) {
            return self.set_aside(raw, issue);
        }
        if m.is_deleted {
            self.news.deletions.push(Deletion { platform_message_id: m.mid, at });
            return;
        }
        // An echo went from the account to the contact.
        let contact = if m.is_echo { recipient.id.as_str() } else { sender.id.as_str() };
        let reply_to = m.reply_to.and_then(|r| r.mid);
        let mut parts: Vec<MessageContent> = Vec::new();
        if m.is_unsupported {
            parts.push(MessageContent::Unsupported { raw: raw.get("message").cloned().unwrap_or(Value::Null) });
        } else {
            match (m.text, m.quick_reply) {
                (Some(text), Some(q)) => parts.push(MessageContent::Button { payload: Some(q.payload), text }),
                (Some(body), None) => parts.push(MessageContent::Text { body }),
                _ => {}
            }
            parts.extend(m.attachments.iter().map(attachment_content));
        }
        if parts.is_empty() {
            return self.set_aside(raw, "a message with no text and no attachment");
        }
        // One stored message per part: the first under the platform's id, the others after it.
        for (n, content) in (1u32..).zip(parts) {
            let id = if n == 1 { m.mid.clone() } else { format!("{}#{n}", m.mid) };
            self.message(contact, m.is_echo, at, id, content);
            if let Some(last) = self.news.inbound.last_mut() {
                last.reply_to = reply_to.clone();
                last.referral = m.referral.clone();
            }
        }
    }
}

/// The account id as Instagram writes it: a string, or a number in some payloads.
fn account_id(raw: &Value) -> Option<String> {
    match raw {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Parses an Instagram webhook body. `Err` only when it is not JSON of the webhook's outer
/// shape. Every string is made storable first (a NUL becomes U+FFFD).
pub fn parse_instagram_webhook(body: &str) -> Result<Vec<LineNews>, String> {
    let payload: Payload = from_storable_json(body).map_err(|e| format!("not an Instagram webhook payload: {e}"))?;
    let mut news: Vec<LineNews> = Vec::new();
    let mut position = 0u32;
    for entry in payload.entry {
        let Some(account) = entry.id.as_ref().and_then(account_id) else { continue };
        let at = match news.iter().position(|n| n.account_id == account) {
            Some(at) => at,
            None => {
                news.push(LineNews { account_id: account, ..LineNews::default() });
                news.len() - 1
            }
        };
        for raw in &entry.messaging {
            position = position.saturating_add(1);
            Reading { news: &mut news[at], position }.read(raw);
        }
    }
    Ok(news)
}
