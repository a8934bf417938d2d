//! The messages DTOs: an activity's timeline as the API shows it, and a reply as it is sent.

use super::*;
use parley_domain::model::{
    CartMention, EmailAttachment, EmailContent, FlowReply, Location, Media, Message, MessageSummary, Pricing, ReplyInput,
};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

/// A media attachment: the platform's `id` (inbound) or our `link` (outbound).
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageMediaDto {
    pub id: Option<String>,
    pub link: Option<String>,
    pub mime_type: Option<String>,
    pub sha256: Option<String>,
    pub caption: Option<String>,
    pub filename: Option<String>,
}

impl From<&Media> for MessageMediaDto {
    fn from(m: &Media) -> Self {
        Self {
            id: m.id.clone(),
            link: m.link.clone(),
            mime_type: m.mime_type.clone(),
            sha256: m.sha256.clone(),
            caption: m.caption.clone(),
            filename: m.filename.clone(),
        }
    }
}

/// An email's headers, as Parley read them: addresses lowercased, ids without angle brackets.
#[derive(Debug, Serialize, ToSchema)]
pub struct EmailDto {
    pub subject: Option<String>,
    #[schema(example = "ana@example.com")]
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    /// Its `Message-ID` (also the message's `platform_message_id`).
    pub message_id: String,
    /// The `Message-ID` it answers.
    pub in_reply_to: Option<String>,
}

impl From<&EmailContent> for EmailDto {
    fn from(e: &EmailContent) -> Self {
        Self {
            subject: e.subject.clone(),
            from: e.from.clone(),
            to: e.to.clone(),
            cc: e.cc.clone(),
            message_id: e.message_id.clone(),
            in_reply_to: e.in_reply_to.clone(),
        }
    }
}

/// A file that came with an email, downloadable from the message's media endpoint
/// (`?attachment=<id>`).
#[derive(Debug, Serialize, ToSchema)]
pub struct AttachmentDto {
    #[schema(example = "att_3f9a0c1d2e4b5a6978c0d1e2")]
    pub id: String,
    pub filename: Option<String>,
    #[schema(example = "application/pdf")]
    pub mime_type: String,
    /// In bytes.
    pub size: u64,
}

impl From<&EmailAttachment> for AttachmentDto {
    fn from(a: &EmailAttachment) -> Self {
        Self { id: a.id.clone(), filename: a.filename.clone(), mime_type: a.mime_type.clone(), size: a.size }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationDto {
    pub latitude: f64,
    pub longitude: f64,
    pub name: Option<String>,
    pub address: Option<String>,
}

impl From<&Location> for LocationDto {
    fn from(l: &Location) -> Self {
        Self { latitude: l.latitude, longitude: l.longitude, name: l.name.clone(), address: l.address.clone() }
    }
}

/// A contact's answer to a WhatsApp Flow, as the flow sent it back.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowReplyDto {
    /// The flow's answer (the platform's `response_json`, parsed): the screens' fields by name,
    /// `flow_token` included.
    #[schema(value_type = Object, example = json!({"flow_token": "AQAAAAACS5FpgQ_cAAAAAD0QI3s.", "screen_0_Size_0": "0_Large"}))]
    pub response: serde_json::Map<String, Value>,
    /// The `flow_token` the business gave the flow when it sent it, read from the answer.
    pub flow_token: Option<String>,
    /// What the contact's chat shows for it (`Sent`).
    pub body: Option<String>,
    /// The reply's name (`flow`).
    pub name: Option<String>,
}

impl From<&FlowReply> for FlowReplyDto {
    fn from(r: &FlowReply) -> Self {
        Self { response: r.response.clone(), flow_token: r.flow_token.clone(), body: r.body.clone(), name: r.name.clone() }
    }
}

/// What the platform charges for an outbound message, as its status reports last told.
/// A report of a shape Parley does not read has `category` and `billable` null and the
/// platform's object in `raw`.
#[derive(Debug, Serialize, ToSchema)]
pub struct PricingDto {
    /// The platform's pricing category (`marketing`, `utility`, `authentication`, `service`, …).
    #[schema(example = "marketing")]
    pub category: Option<String>,
    /// Whether the message is billed: false for the platform's free kinds (a reply inside a
    /// service conversation, a free entry point).
    pub billable: Option<bool>,
    /// The platform's `pricing` as sent, when Parley could not read it; else null.
    #[schema(value_type = Option<Object>)]
    pub raw: Option<Value>,
}

impl From<&Pricing> for PricingDto {
    fn from(p: &Pricing) -> Self {
        match p {
            Pricing::Reported { category, billable } => {
                Self { category: Some(category.as_str().to_string()), billable: Some(*billable), raw: None }
            }
            Pricing::Unread { raw } => Self { category: None, billable: None, raw: Some(raw.clone()) },
        }
    }
}

/// One message of an activity's timeline.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageDto {
    #[schema(example = "msg_7Tq2WcLx9sK0bNc1zVeR4hYp")]
    pub id: String,
    pub activity_id: String,
    #[schema(value_type = MessageDirectionName)]
    pub direction: String,
    #[serde(rename = "type")]
    #[schema(value_type = MessageTypeName)]
    pub kind: String,
    /// What a person reads: the body, a caption, the chosen option's title, a template's
    /// parsed message, a reaction's emoji; else null.
    pub text: Option<String>,
    pub media: Option<MessageMediaDto>,
    pub location: Option<LocationDto>,
    /// An email's headers (`type` `email`), else null.
    pub email: Option<EmailDto>,
    /// An email's attachments, each downloadable from the media endpoint; else empty.
    pub attachments: Vec<AttachmentDto>,
    /// A WhatsApp Flow's answer (`type` `flow_reply`), else null.
    pub flow_reply: Option<FlowReplyDto>,
    /// The message in the platform's shape (`{"type": …, "<type>": {…}}`): the details `text`,
    /// `media` and `location` do not carry, such as shared contact cards, the chosen option's
    /// id, an order's items, a reaction's target, or an unsupported kind as received (`raw`).
    #[schema(value_type = Object)]
    pub content: Value,
    /// The message of this activity this one answers, else null.
    pub reply_to: Option<String>,
    /// The platform's id of the message (WhatsApp's `wamid.…`, Instagram's `mid`).
    pub platform_message_id: Option<String>,
    pub channel: ChannelDto,
    /// The line (`chn_…`) it came in on or went out through.
    pub line_id: Option<String>,
    #[schema(value_type = MessageStatusName)]
    pub status: String,
    /// Why the platform failed to deliver it, when it did.
    pub error_message: Option<String>,
    /// Outbound: what the platform charges for it; null until its statuses say.
    pub pricing: Option<PricingDto>,
    pub template_id: Option<String>,
    pub campaign_key: Option<String>,
    /// A cart of this agent the message links to (`…/c/<code>`).
    pub cart_code: Option<String>,
    /// The ad that brought the contact (the platform's `referral`), inbound only.
    #[schema(value_type = Option<Object>)]
    pub referral: Option<Value>,
    /// Inbound: the platform's time; outbound: when Parley sent it (a scheduled message: its
    /// `send_at`).
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub sent_at: Option<String>,
    /// A scheduled message: when it was asked to go out (kept once it has), else null.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    #[schema(format = DateTime)]
    pub delivered_at: Option<String>,
    #[schema(format = DateTime)]
    pub read_at: Option<String>,
    /// When the contact deleted it on the platform (it is kept, for the record), else null.
    #[schema(format = DateTime)]
    pub deleted_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<&Message> for MessageDto {
    fn from(m: &Message) -> Self {
        Self {
            id: m.id.as_str().to_string(),
            activity_id: m.activity_id.as_str().to_string(),
            direction: m.direction.as_str().to_string(),
            kind: m.message_type().as_str().to_string(),
            text: m.text().map(str::to_string),
            media: m.media().map(MessageMediaDto::from),
            location: m.location().map(LocationDto::from),
            email: m.content.email().map(EmailDto::from),
            attachments: m.content.email().map(|e| e.attachments.iter().map(AttachmentDto::from).collect()).unwrap_or_default(),
            flow_reply: m.content.flow_reply().map(FlowReplyDto::from),
            content: m.content.to_json(),
            reply_to: m.reply_to.as_ref().map(|r| r.as_str().to_string()),
            platform_message_id: m.platform_message_id.clone(),
            channel: ChannelDto::from(&m.channel),
            line_id: m.line_id.as_ref().map(|l| l.as_str().to_string()),
            status: m.status.as_str().to_string(),
            error_message: m.error_message.clone(),
            pricing: m.pricing.as_ref().map(PricingDto::from),
            template_id: m.template_id.as_ref().map(|t| t.as_str().to_string()),
            campaign_key: m.campaign_key.as_ref().map(|k| k.as_str().to_string()),
            cart_code: m.cart_code.as_ref().map(|c| c.as_str().to_string()),
            referral: m.referral.clone(),
            created_at: timestamp(m.created_at),
            sent_at: m.sent_at.map(timestamp),
            send_at: m.send_at.map(timestamp),
            delivered_at: m.delivered_at.map(timestamp),
            read_at: m.read_at.map(timestamp),
            deleted_at: m.deleted_at.map(timestamp),
            updated_at: timestamp(m.updated_at),
        }
    }
}

impl From<Message> for MessageDto {
    fn from(m: Message) -> Self {
        Self::from(&m)
    }
}

/// An activity's newest message, as its list item shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageSummaryDto {
    pub id: String,
    #[schema(value_type = MessageDirectionName)]
    pub direction: String,
    #[serde(rename = "type")]
    #[schema(value_type = MessageTypeName)]
    pub kind: String,
    /// The message's text, cut to 200 characters.
    pub text: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<&MessageSummary> for MessageSummaryDto {
    fn from(m: &MessageSummary) -> Self {
        Self {
            id: m.id.as_str().to_string(),
            direction: m.direction.as_str().to_string(),
            kind: m.message_type.as_str().to_string(),
            text: m.text.clone(),
            created_at: timestamp(m.created_at),
        }
    }
}

/// A cart the contact brought into the conversation.
#[derive(Debug, Serialize, ToSchema)]
pub struct CartMentionDto {
    #[schema(example = "k7Hq2Wx")]
    pub code: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<&CartMention> for CartMentionDto {
    fn from(c: &CartMention) -> Self {
        Self { code: c.code.as_str().to_string(), created_at: timestamp(c.created_at) }
    }
}

/// A private note for the team: never sent to the contact.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateNote {
    /// 1–4096 characters (trimmed; newline and tab are the only control characters allowed).
    #[schema(value_type = String, required = true, min_length = 1, max_length = 4096, example = "She prefers a call after 5pm",
        pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$")]
    pub text: Option<String>,
    /// Who wrote it: 1–128 characters of your own (a user id or a name).
    #[schema(
        min_length = 1,
        max_length = 128,
        example = "user_42",
        pattern = r"^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x08\x0b-\x1f\x7f-\x9f]*$"
    )]
    pub author: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MessageListParams {
    /// Page size, 1–100, default 50.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// Rows to skip, default 0.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub offset: Option<String>,
    /// RFC 3339: only messages created or changed (a status moved) after it, for polling.
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MediaParams {
    /// An email's attachment (`att_…`, from the message's `attachments`); default: its first.
    #[param(pattern = r"^[^\x00-\x1f\x7f-\x9f]*$")]
    pub attachment: Option<String>,
}

/// `text` of a text reply.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyText {
    /// 1–4096 characters.
    pub body: Option<String>,
    /// Whether the platform may show a preview of the first link. Default false.
    pub preview_url: Option<bool>,
}

/// The object of a media reply, by link.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyMedia {
    /// An https URL the platform fetches the file from.
    pub link: Option<String>,
    /// Up to 1024 characters; not for audio or stickers.
    pub caption: Option<String>,
    /// Documents only: the name the contact sees.
    pub filename: Option<String>,
}

/// A free-form reply, in the platform's message shape: `type` and the object it names (as
/// [`ReplyBody`](super::ReplyBody) documents it). Every field optional, so that the domain
/// names every wrong one at once.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendReply {
    /// text, image, video, audio, document, sticker, interactive, location, reaction, product or cart.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub text: Option<ReplyText>,
    pub image: Option<ReplyMedia>,
    pub video: Option<ReplyMedia>,
    pub audio: Option<ReplyMedia>,
    pub document: Option<ReplyMedia>,
    pub sticker: Option<ReplyMedia>,
    /// The id of a message of this activity to answer (the contact sees it quoted).
    pub reply_to: Option<String>,
    /// One of the contact's channels to send on, as the contact shows it; default: the one
    /// they last wrote on.
    pub channel: Option<ReplyChannel>,
    /// `human_agent`: a person's answer, allowed on Instagram up to 7 days after the contact's
    /// last message (instead of 24 hours).
    pub tag: Option<String>,
    /// Email only: the subject, used as given (default: `Re: <the contact's last subject>`).
    pub subject: Option<String>,
    /// Send it at this time (RFC 3339, future, at most 30 days ahead) instead of now.
    pub send_at: Option<String>,
    /// `interactive`: reply buttons, a list or a URL button, in the Cloud API's shape.
    pub interactive: Option<parley_domain::model::InteractiveInput>,
    /// `location`: a pin on a map.
    pub location: Option<super::SendLocationBody>,
    /// `reaction`: an emoji on one of the activity's messages.
    pub reaction: Option<ReplyReaction>,
    /// `product`: a card of one of the agent's active products.
    pub product: Option<ReplyProduct>,
    /// `cart`: one of the agent's carts, its lines, total and link.
    pub cart: Option<ReplyCart>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyProduct {
    pub id: Option<String>,
    pub variant_id: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyCart {
    pub code: Option<String>,
}

/// A reaction to a message of the activity; an empty emoji removes it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplyReaction {
    pub message_id: Option<String>,
    pub emoji: Option<String>,
}

/// The contact's channel a reply goes out on.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplyChannel {
    /// whatsapp, instagram or email.
    pub channel_type: Option<String>,
    /// The contact's identifier on it.
    pub channel_id: Option<String>,
}

/// The object `name` when the reply's `type` names it; one sent beside another type is noted in
/// `unexpected`, for the domain to refuse by name.
fn of_kind<T>(kind: &str, name: &str, object: Option<T>, unexpected: &mut Vec<String>) -> Option<T> {
    match object {
        Some(object) if kind == name => Some(object),
        Some(_) => {
            unexpected.push(name.into());
            None
        }
        None => None,
    }
}

impl From<SendReply> for ReplyInput {
    fn from(b: SendReply) -> Self {
        let kind = b.kind.clone().unwrap_or_default();
        let mut input = ReplyInput {
            kind: b.kind,
            reply_to: b.reply_to,
            channel: b.channel.map(|c| (c.channel_type, c.channel_id)),
            tag: b.tag,
            subject: b.subject,
            send_at: b.send_at,
            ..ReplyInput::default()
        };
        let unexpected = &mut input.unexpected;
        if let Some(text) = of_kind(&kind, "text", b.text, unexpected) {
            input.body = text.body;
            input.preview_url = text.preview_url;
        }
        input.interactive = of_kind(&kind, "interactive", b.interactive, unexpected);
        input.location = of_kind(&kind, "location", b.location, unexpected).map(|l| parley_domain::model::LocationInput {
            latitude: l.latitude,
            longitude: l.longitude,
            name: l.name,
            address: l.address,
        });
        input.product = of_kind(&kind, "product", b.product, unexpected).map(|p| (p.id, p.variant_id));
        input.cart = of_kind(&kind, "cart", b.cart, unexpected).map(|c| c.code);
        input.reaction = of_kind(&kind, "reaction", b.reaction, unexpected).map(|r| (r.message_id, r.emoji));
        for (name, media) in [("image", b.image), ("video", b.video), ("audio", b.audio), ("document", b.document), ("sticker", b.sticker)]
        {
            if let Some(media) = of_kind(&kind, name, media, unexpected) {
                input.link = media.link;
                input.caption = media.caption;
                input.filename = media.filename;
            }
        }
        input
    }
}
