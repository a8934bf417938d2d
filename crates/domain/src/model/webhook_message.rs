//! The content of one inbound message object of the webhook (`messages[]`), by its `type`.
//! Lenient: a kind Parley does not know, or one whose object is not of the expected shape,
//! becomes `Unsupported` with the whole message object, never an error and never dropped.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{InteractiveReply, Location, Media, MessageContent, Order, OrderItem};

#[derive(Deserialize)]
struct RawText {
    body: String,
}

#[derive(Deserialize)]
struct RawMedia {
    id: Option<String>,
    mime_type: Option<String>,
    sha256: Option<String>,
    caption: Option<String>,
    filename: Option<String>,
}

#[derive(Deserialize)]
struct RawLocation {
    latitude: f64,
    longitude: f64,
    name: Option<String>,
    address: Option<String>,
}

#[derive(Deserialize)]
struct RawInteractive {
    #[serde(rename = "type")]
    kind: String,
    button_reply: Option<RawReply>,
    list_reply: Option<RawReply>,
}

#[derive(Deserialize)]
struct RawReply {
    id: String,
    title: String,
    description: Option<String>,
}

#[derive(Deserialize)]
struct RawButton {
    payload: Option<String>,
    text: String,
}

#[derive(Deserialize)]
struct RawReaction {
    message_id: String,
    emoji: Option<String>,
}

#[derive(Deserialize)]
struct RawOrder {
    catalog_id: String,
    text: Option<String>,
    #[serde(default)]
    product_items: Vec<RawOrderItem>,
}

#[derive(Deserialize)]
struct RawOrderItem {
    product_retailer_id: String,
    #[serde(deserialize_with = "number")]
    quantity: f64,
    #[serde(deserialize_with = "number")]
    item_price: f64,
    currency: String,
}

/// A JSON number, or a string holding one (the platform's documentation shows both).
fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    match Value::deserialize(d)? {
        Value::Number(n) => n.as_f64().ok_or_else(|| serde::de::Error::custom("not a number")),
        Value::String(s) => s.trim().parse().map_err(serde::de::Error::custom),
        _ => Err(serde::de::Error::custom("not a number")),
    }
}

/// The object under `message[kind]`, when it has the expected shape.
fn part<T: DeserializeOwned>(message: &Value, kind: &str) -> Option<T> {
    serde_json::from_value(message.get(kind)?.clone()).ok()
}

fn media(raw: RawMedia) -> Media {
    Media { id: raw.id, link: None, mime_type: raw.mime_type, sha256: raw.sha256, caption: raw.caption, filename: raw.filename }
}

fn interactive(raw: RawInteractive) -> Option<InteractiveReply> {
    match raw.kind.as_str() {
        "button_reply" => raw.button_reply.map(|r| InteractiveReply::Button { id: r.id, title: r.title }),
        "list_reply" => raw.list_reply.map(|r| InteractiveReply::List { id: r.id, title: r.title, description: r.description }),
        _ => None,
    }
}

fn order(raw: RawOrder) -> Option<Order> {
    let mut items = Vec::with_capacity(raw.product_items.len());
    for i in raw.product_items {
        // A quantity that is not a whole, positive count cannot be an order line.
        let whole = i.quantity.fract() == 0.0 && i.quantity >= 1.0 && i.quantity <= f64::from(u32::MAX);
        if !whole {
            return None;
        }
        items.push(OrderItem {
            product_retailer_id: i.product_retailer_id,
            quantity: i.quantity as u32,
            item_price: i.item_price,
            currency: i.currency,
        });
    }
    Some(Order { catalog_id: raw.catalog_id, text: raw.text, items })
}

fn known(message: &Value) -> Option<MessageContent> {
    let kind = message.get("type")?.as_str()?;
    Some(match kind {
        "text" => MessageContent::Text { body: part::<RawText>(message, kind)?.body },
        "image" => MessageContent::Image(media(part(message, kind)?)),
        "video" => MessageContent::Video(media(part(message, kind)?)),
        "audio" => MessageContent::Audio(media(part(message, kind)?)),
        "document" => MessageContent::Document(media(part(message, kind)?)),
        "sticker" => MessageContent::Sticker(media(part(message, kind)?)),
        "location" => {
            let l: RawLocation = part(message, kind)?;
            MessageContent::Location(Location { latitude: l.latitude, longitude: l.longitude, name: l.name, address: l.address })
        }
        "contacts" => match message.get("contacts")? {
            cards @ Value::Array(_) => MessageContent::Contacts { cards: cards.clone() },
            _ => return None,
        },
        "interactive" => MessageContent::Interactive(interactive(part(message, kind)?)?),
        "button" => {
            let b: RawButton = part(message, kind)?;
            MessageContent::Button { payload: b.payload, text: b.text }
        }
        "reaction" => {
            let r: RawReaction = part(message, kind)?;
            MessageContent::Reaction { message_id: r.message_id, emoji: r.emoji.filter(|e| !e.is_empty()) }
        }
        "order" => MessageContent::Order(order(part(message, kind)?)?),
        _ => return None,
    })
}

/// The content of one message object of the webhook.
pub(crate) fn content_of(message: &Value) -> MessageContent {
    known(message).unwrap_or_else(|| MessageContent::Unsupported { raw: message.clone() })
}
