//! What a message carries, one variant per kind, in the platform's terms.

use crate::model::MessageType;

/// A media attachment: the platform's media `id` (inbound) or our `link` (outbound).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Media {
    /// Inbound: the platform's media id to fetch it by, or `att_…` for a file Parley keeps.
    pub id: Option<String>,
    /// Outbound: the https URL the platform fetches it from; inbound, a link the platform gave.
    pub link: Option<String>,
    /// Its media type, as the platform reported it.
    pub mime_type: Option<String>,
    /// The file's SHA-256, as the platform reported it.
    pub sha256: Option<String>,
    /// Text shown with it.
    pub caption: Option<String>,
    /// Documents only.
    pub filename: Option<String>,
}

/// A place: its coordinates, with an optional name and address.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Location {
    /// Degrees, -90 to 90.
    pub latitude: f64,
    /// Degrees, -180 to 180.
    pub longitude: f64,
    /// The place's name.
    pub name: Option<String>,
    /// The place's address.
    pub address: Option<String>,
}

/// The option a contact chose in an interactive message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum InteractiveReply {
    /// A reply button, tapped.
    Button {
        /// The button's id, as the business set it.
        id: String,
        /// The button's title.
        title: String,
    },
    /// A list row, chosen.
    List {
        /// The row's id, as the business set it.
        id: String,
        /// The row's title.
        title: String,
        /// The row's description, when it has one.
        description: Option<String>,
    },
}

impl InteractiveReply {
    /// The chosen option's title: what the contact read.
    pub fn title(&self) -> &str {
        match self {
            InteractiveReply::Button { title, .. } | InteractiveReply::List { title, .. } => title,
        }
    }
}

/// One line of an order placed from the catalog. Prices as the platform sent them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OrderItem {
    /// The catalog product's retailer id.
    pub product_retailer_id: String,
    /// How many.
    pub quantity: u32,
    /// The unit price, as the platform sent it.
    pub item_price: f64,
    /// The price's currency code, as the platform sent it.
    pub currency: String,
}

/// An order a contact placed from a catalog on the platform.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Order {
    /// The platform's id of the catalog.
    pub catalog_id: String,
    /// What the contact wrote with the order.
    pub text: Option<String>,
    /// Its lines.
    pub items: Vec<OrderItem>,
}

/// A notice of the platform about the user rather than from them (WhatsApp's `system`
/// messages: a changed phone number or user id), kept on the timeline as it came.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SystemNotice {
    /// What happened, as the platform names it (`user_changed_number`, `user_changed_user_id`).
    #[serde(rename = "type")]
    pub kind: String,
    /// What the user's chat shows (`User A changed from 1555… to 1555…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

/// A contact's answer to a WhatsApp Flow (a form the business sent): what they entered on the
/// flow's screens, as the flow sent it back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FlowReply {
    /// The flow's answer, parsed: always a JSON object, kept whole.
    pub response: serde_json::Map<String, serde_json::Value>,
    /// The `flow_token` the business gave the flow, read from the answer; `None` when the
    /// answer carries none (or one that is not a string).
    pub flow_token: Option<String>,
    /// What the contact's chat shows for it (`Sent`), if the platform said.
    pub body: Option<String>,
    /// The reply's name (`flow`), if the platform said.
    pub name: Option<String>,
}

impl FlowReply {
    /// A flow's answer from its JSON text, `answer_json`, with `flow_token` read
    /// from it; `None` unless the text is a JSON object. Its strings are made storable (a NUL
    /// escaped inside the text becomes U+FFFD, as everywhere else in a delivery).
    pub fn parse(answer_json: &str, body: Option<String>, name: Option<String>) -> Option<FlowReply> {
        match crate::model::from_storable_json(answer_json).ok()? {
            serde_json::Value::Object(response) => Some(FlowReply::new(response, body, name)),
            _ => None,
        }
    }

    /// The answer `response`, with `flow_token` read from it.
    pub fn new(response: serde_json::Map<String, serde_json::Value>, body: Option<String>, name: Option<String>) -> FlowReply {
        let flow_token = response.get("flow_token").and_then(serde_json::Value::as_str).map(str::to_string);
        FlowReply { response, flow_token, body, name }
    }
}

/// A file that came with an email: kept by Parley, downloadable from the media endpoint by `id`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmailAttachment {
    /// `att_…`: the stored file's id.
    pub id: String,
    /// The name it came with, if any.
    pub filename: Option<String>,
    /// `type/subtype`, lowercased.
    pub mime_type: String,
    /// In bytes.
    pub size: u64,
}

/// An email, inbound or a reply: addresses lowercased, ids without angle brackets.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct EmailContent {
    /// Its `Subject`, if any.
    pub subject: Option<String>,
    /// The sender's address.
    pub from: String,
    /// Its `To` addresses.
    pub to: Vec<String>,
    /// Its `Cc` addresses.
    pub cc: Vec<String>,
    /// Its `Message-ID`: also the message's `platform_message_id`.
    pub message_id: String,
    /// Its `In-Reply-To`: the message it answers, if any.
    pub in_reply_to: Option<String>,
    /// The thread's ids, oldest first: a reply's `References` are these and `message_id`.
    pub references: Vec<String>,
    /// The plain-text body (HTML turned into text when the email had no plain part).
    pub text: String,
    /// Files that came with it, kept by Parley.
    pub attachments: Vec<EmailAttachment>,
    /// A reply's buttons, list, link button, product or cart, shown by its HTML part (`text`
    /// says the same in plain text); `None` for a plain email. Boxed: most emails have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rich: Option<Box<crate::model::email_rich::EmailRich>>,
}

impl EmailContent {
    /// The subject of a reply to a thread whose last subject is `last`: `Re: <last>`, without
    /// doubling a `Re:` already there (any case); `Re:` alone when there was none. One line.
    pub fn reply_subject(last: Option<&str>) -> String {
        let last = last.unwrap_or("").replace(['\r', '\n'], " ");
        let last = last.trim();
        if last.is_empty() {
            return "Re:".to_string();
        }
        let has_re = last.get(..3).is_some_and(|prefix| prefix.eq_ignore_ascii_case("re:"));
        if has_re { last.to_string() } else { format!("Re: {last}") }
    }
}

/// What a message carries: one variant per kind ([`MessageType`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum MessageContent {
    /// Plain text.
    Text {
        /// The text.
        body: String,
    },
    /// An image.
    Image(Media),
    /// A video.
    Video(Media),
    /// Audio.
    Audio(Media),
    /// A file, with its name when known.
    Document(Media),
    /// A sticker.
    Sticker(Media),
    /// A post, reel or profile the contact shared: its link, and its title as the caption.
    Share(Media),
    /// The contact mentioned the business in their story: the story's media by link.
    StoryMention(Media),
    /// A shared place.
    Location(Location),
    /// Shared contact cards: the platform's JSON array, kept whole.
    Contacts {
        /// The cards, as the platform's JSON array.
        cards: serde_json::Value,
    },
    /// The contact's choice in an interactive message the business sent.
    Interactive(InteractiveReply),
    /// An interactive message the business sent: reply buttons, a list, or a URL button.
    Prompt(crate::model::Interactive),
    /// A template's quick reply button, pressed.
    Button {
        /// The payload the template send gave the button, if any.
        payload: Option<String>,
        /// The button's text.
        text: String,
    },
    /// `emoji` is `None` when the contact removed their reaction.
    Reaction {
        /// The platform's id of the message reacted to.
        message_id: String,
        /// The emoji; `None` when the reaction was removed.
        emoji: Option<String>,
    },
    /// An order the contact placed from a catalog.
    Order(Order),
    /// A contact's answer to a WhatsApp Flow.
    FlowReply(FlowReply),
    /// A notice of the platform about the user (stored `direction: internal`).
    System(SystemNotice),
    /// An outbound template send (its id is the message's `template_id`).
    Template {
        /// The template's name.
        name: String,
        /// Its language code (`en_US`).
        language: String,
        /// Its header, body and footer with placeholders filled, joined by a blank line.
        parsed_message: String,
    },
    /// An email, inbound or a reply.
    Email(EmailContent),
    /// A product card from the agent's catalog, as it was sent.
    Product(crate::model::ProductCard),
    /// One of the agent's carts, as it was sent.
    Cart(crate::model::CartCard),
    /// A private note of the team, never sent.
    Note(crate::model::Note),
    /// A kind Parley does not read (or could not): the platform's message object, kept whole.
    Unsupported {
        /// The platform's message object.
        raw: serde_json::Value,
    },
}

impl MessageContent {
    /// Its kind, as the API names it: a prompt the business sent and a choice in one are both
    /// `interactive`.
    pub fn message_type(&self) -> MessageType {
        match self {
            MessageContent::Text { .. } => MessageType::Text,
            MessageContent::Image(_) => MessageType::Image,
            MessageContent::Video(_) => MessageType::Video,
            MessageContent::Audio(_) => MessageType::Audio,
            MessageContent::Document(_) => MessageType::Document,
            MessageContent::Sticker(_) => MessageType::Sticker,
            MessageContent::Share(_) => MessageType::Share,
            MessageContent::StoryMention(_) => MessageType::StoryMention,
            MessageContent::Location(_) => MessageType::Location,
            MessageContent::Contacts { .. } => MessageType::Contacts,
            MessageContent::Interactive(_) | MessageContent::Prompt(_) => MessageType::Interactive,
            MessageContent::Button { .. } => MessageType::Button,
            MessageContent::Reaction { .. } => MessageType::Reaction,
            MessageContent::Order(_) => MessageType::Order,
            MessageContent::FlowReply(_) => MessageType::FlowReply,
            MessageContent::System(_) => MessageType::System,
            MessageContent::Template { .. } => MessageType::Template,
            MessageContent::Email(_) => MessageType::Email,
            MessageContent::Product(_) => MessageType::Product,
            MessageContent::Cart(_) => MessageType::Cart,
            MessageContent::Note(_) => MessageType::Note,
            MessageContent::Unsupported { .. } => MessageType::Unsupported,
        }
    }

    /// What a person reads: the body, a caption, the chosen option's title, a template's
    /// parsed message, a reaction's emoji, an order's note, a flow answer's body. Uncut: the API shortens it.
    pub fn text(&self) -> Option<&str> {
        match self {
            MessageContent::Text { body } => Some(body),
            MessageContent::Interactive(reply) => Some(reply.title()),
            MessageContent::Prompt(prompt) => Some(prompt.text()),
            MessageContent::Button { text, .. } => Some(text),
            MessageContent::Reaction { emoji, .. } => emoji.as_deref(),
            MessageContent::Order(order) => order.text.as_deref(),
            MessageContent::FlowReply(reply) => reply.body.as_deref(),
            MessageContent::System(notice) => notice.body.as_deref(),
            MessageContent::Template { parsed_message, .. } => Some(parsed_message),
            MessageContent::Email(email) => Some(&email.text),
            MessageContent::Product(card) => Some(&card.text),
            MessageContent::Cart(card) => Some(&card.text),
            MessageContent::Note(note) => Some(note.text()),
            _ => self.media().and_then(|m| m.caption.as_deref()),
        }
    }

    /// The form it goes out in on `channel`: on WhatsApp a product or cart card as the message
    /// that shows it (a URL button, a captioned picture or text); on Instagram the card itself,
    /// which its adapter writes as a generic template; every other kind as it is.
    pub fn sent_form(&self, channel: crate::model::ChannelType) -> MessageContent {
        match self {
            MessageContent::Product(card) if channel != crate::model::ChannelType::Instagram => card.shown(),
            MessageContent::Cart(card) if channel != crate::model::ChannelType::Instagram => card.shown(),
            other => other.clone(),
        }
    }

    /// The file of a media kind (image, video, audio, document, sticker, share, story mention).
    pub fn media(&self) -> Option<&Media> {
        match self {
            MessageContent::Image(m)
            | MessageContent::Video(m)
            | MessageContent::Audio(m)
            | MessageContent::Document(m)
            | MessageContent::Sticker(m)
            | MessageContent::Share(m)
            | MessageContent::StoryMention(m) => Some(m),
            _ => None,
        }
    }

    /// The email, for an email.
    pub fn email(&self) -> Option<&EmailContent> {
        match self {
            MessageContent::Email(e) => Some(e),
            _ => None,
        }
    }

    /// The answer, for a flow reply.
    pub fn flow_reply(&self) -> Option<&FlowReply> {
        match self {
            MessageContent::FlowReply(r) => Some(r),
            _ => None,
        }
    }

    /// The place, for a location.
    pub fn location(&self) -> Option<&Location> {
        match self {
            MessageContent::Location(l) => Some(l),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_what_a_person_reads() {
        let captioned = Media { caption: Some("our mug".into()), ..Media::default() };
        let cases = [
            (MessageContent::Text { body: "hi".into() }, Some("hi")),
            (MessageContent::Image(captioned.clone()), Some("our mug")),
            (MessageContent::Audio(Media::default()), None),
            (MessageContent::Interactive(InteractiveReply::List { id: "r1".into(), title: "Red".into(), description: None }), Some("Red")),
            (MessageContent::Button { payload: Some("STOP".into()), text: "Stop promotions".into() }, Some("Stop promotions")),
            (MessageContent::Reaction { message_id: "pm.1".into(), emoji: Some("👍".into()) }, Some("👍")),
            (MessageContent::Reaction { message_id: "pm.1".into(), emoji: None }, None),
            (MessageContent::Template { name: "n".into(), language: "en".into(), parsed_message: "Hello Ann".into() }, Some("Hello Ann")),
            (MessageContent::Location(Location::default()), None),
            (MessageContent::Unsupported { raw: serde_json::json!({"type": "poll"}) }, None),
        ];
        for (content, text) in cases {
            assert_eq!(content.text(), text, "{content:?}");
        }
        assert_eq!(MessageContent::Image(captioned.clone()).media(), Some(&captioned));
        assert_eq!(MessageContent::Image(captioned).message_type(), MessageType::Image);
        assert!(MessageContent::Text { body: "x".into() }.media().is_none());
    }

    #[test]
    fn reply_subjects_prefix_re_once() {
        let re = EmailContent::reply_subject;
        assert_eq!(re(Some("Order 42")), "Re: Order 42");
        assert_eq!(re(Some("Re: Order 42")), "Re: Order 42");
        assert_eq!(re(Some("RE: Order 42")), "RE: Order 42");
        assert_eq!(re(Some("re:Order 42")), "re:Order 42");
        assert_eq!(re(Some("  Order 42  ")), "Re: Order 42");
        assert_eq!(re(Some("Fwd: Order 42")), "Re: Fwd: Order 42");
        assert_eq!(re(Some("Regarding 42")), "Re: Regarding 42");
        assert_eq!(re(Some(" Order\r\n42 ")), "Re: Order  42");
        assert_eq!(re(Some("Order\r\n 42")), "Re: Order   42");
        assert_eq!(re(Some("")), "Re:");
        assert_eq!(re(None), "Re:");
        assert_eq!(re(Some("é")), "Re: é");
    }
}
