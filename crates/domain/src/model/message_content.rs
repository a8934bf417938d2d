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
            MessageContent::Interactive(_) => MessageType::Interactive,
            MessageContent::Button { .. } => MessageType::Button,
            MessageContent::Reaction { .. } => MessageType::Reaction,
            MessageContent::Order(_) => MessageType::Order,
            MessageContent::Template { .. } => MessageType::Template,
            MessageContent::Unsupported { .. } => MessageType::Unsupported,
        }
    }

    /// What a person reads: the body, a caption, the chosen option's title, a template's
    /// parsed message, a reaction's emoji, an order's note. Uncut: the API shortens it.
    pub fn text(&self) -> Option<&str> {
        match self {
            MessageContent::Text { body } => Some(body),
            MessageContent::Interactive(reply) => Some(reply.title()),
            MessageContent::Button { text, .. } => Some(text),
            MessageContent::Reaction { emoji, .. } => emoji.as_deref(),
            MessageContent::Order(order) => order.text.as_deref(),
            MessageContent::Template { parsed_message, .. } => Some(parsed_message),
            _ => self.media().and_then(|m| m.caption.as_deref()),
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
}
