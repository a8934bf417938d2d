//! What a message carries, one variant per kind, in the platform's terms.

use super::MessageType;

/// A media attachment: the platform's media `id` (inbound) or our `link` (outbound).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Media {
    pub id: Option<String>,
    pub link: Option<String>,
    pub mime_type: Option<String>,
    pub sha256: Option<String>,
    pub caption: Option<String>,
    /// Documents only.
    pub filename: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Location {
    pub latitude: f64,
    pub longitude: f64,
    pub name: Option<String>,
    pub address: Option<String>,
}

/// The option a contact chose in an interactive message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InteractiveReply {
    Button { id: String, title: String },
    List { id: String, title: String, description: Option<String> },
}

impl InteractiveReply {
    pub fn title(&self) -> &str {
        match self {
            InteractiveReply::Button { title, .. } | InteractiveReply::List { title, .. } => title,
        }
    }
}

/// One line of an order placed from the catalog. Prices as the platform sent them.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    pub product_retailer_id: String,
    pub quantity: u32,
    pub item_price: f64,
    pub currency: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub catalog_id: String,
    /// What the contact wrote with the order.
    pub text: Option<String>,
    pub items: Vec<OrderItem>,
}

/// A file that came with an email: kept by Parley, downloadable from the media endpoint by `id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailAttachment {
    /// `att_…`: the stored file's id.
    pub id: String,
    pub filename: Option<String>,
    /// `type/subtype`, lowercased.
    pub mime_type: String,
    /// In bytes.
    pub size: u64,
}

/// An email, inbound or a reply: addresses lowercased, ids without angle brackets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EmailContent {
    pub subject: Option<String>,
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    /// Its `Message-ID`: also the message's `platform_message_id`.
    pub message_id: String,
    pub in_reply_to: Option<String>,
    /// The thread's ids, oldest first: a reply's `References` are these and `message_id`.
    pub references: Vec<String>,
    /// The plain-text body (HTML turned into text when the email had no plain part).
    pub text: String,
    pub attachments: Vec<EmailAttachment>,
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

#[derive(Debug, Clone, PartialEq)]
pub enum MessageContent {
    Text {
        body: String,
    },
    Image(Media),
    Video(Media),
    Audio(Media),
    Document(Media),
    Sticker(Media),
    /// A post, reel or profile the contact shared: its link, and its title as the caption.
    Share(Media),
    /// The contact mentioned the business in their story: the story's media by link.
    StoryMention(Media),
    Location(Location),
    /// Shared contact cards: the platform's JSON array, kept whole.
    Contacts {
        cards: serde_json::Value,
    },
    Interactive(InteractiveReply),
    /// An interactive message the business sent: reply buttons, a list, or a URL button.
    Prompt(super::Interactive),
    /// A template's quick reply button, pressed.
    Button {
        payload: Option<String>,
        text: String,
    },
    /// `emoji` is `None` when the contact removed their reaction.
    Reaction {
        message_id: String,
        emoji: Option<String>,
    },
    Order(Order),
    /// An outbound template send (its id is the message's `template_id`).
    Template {
        name: String,
        language: String,
        parsed_message: String,
    },
    Email(EmailContent),
    /// A product card from the agent's catalog, as it was sent.
    Product(super::ProductCard),
    /// One of the agent's carts, as it was sent.
    Cart(super::CartCard),
    /// A private note of the team, never sent.
    Note(super::Note),
    /// A kind Parley does not read (or could not): the platform's message object, kept whole.
    Unsupported {
        raw: serde_json::Value,
    },
}

impl MessageContent {
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
            MessageContent::Template { .. } => MessageType::Template,
            MessageContent::Email(_) => MessageType::Email,
            MessageContent::Product(_) => MessageType::Product,
            MessageContent::Cart(_) => MessageType::Cart,
            MessageContent::Note(_) => MessageType::Note,
            MessageContent::Unsupported { .. } => MessageType::Unsupported,
        }
    }

    /// What a person reads: the body, a caption, the chosen option's title, a template's
    /// parsed message, a reaction's emoji, an order's note. Uncut: the API shortens it.
    pub fn text(&self) -> Option<&str> {
        match self {
            MessageContent::Text { body } => Some(body),
            MessageContent::Interactive(reply) => Some(reply.title()),
            MessageContent::Prompt(prompt) => Some(prompt.text()),
            MessageContent::Button { text, .. } => Some(text),
            MessageContent::Reaction { emoji, .. } => emoji.as_deref(),
            MessageContent::Order(order) => order.text.as_deref(),
            MessageContent::Template { parsed_message, .. } => Some(parsed_message),
            MessageContent::Email(email) => Some(&email.text),
            MessageContent::Product(card) => Some(&card.text),
            MessageContent::Cart(card) => Some(&card.text),
            MessageContent::Note(note) => Some(note.text()),
            _ => self.media().and_then(|m| m.caption.as_deref()),
        }
    }

    /// The form it goes out in: a product or cart card as the message that shows it, every
    /// other kind as it is.
    pub fn sent_form(&self) -> MessageContent {
        match self {
            MessageContent::Product(card) => card.shown(),
            MessageContent::Cart(card) => card.shown(),
            other => other.clone(),
        }
    }

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

    pub fn email(&self) -> Option<&EmailContent> {
        match self {
            MessageContent::Email(e) => Some(e),
            _ => None,
        }
    }

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
