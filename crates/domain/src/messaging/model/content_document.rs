//! Parley's content document: a message's content as one JSON object, `{"type": kind, kind:
//! {…}}`, what storage keeps and the API shows as `content`. It is Parley's format: its layout
//! began as the messaging platforms' message objects and stays as the API documents it, but no
//! platform is read through it (each adapter reads its own platform's objects into
//! [`MessageContent`]), and it changes only in ways that keep every stored document readable.
//! The reader is lenient: a kind it does not know, or an object not of the expected shape, reads
//! as `Unsupported` with the whole object.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::model::{
    EmailAttachment, EmailContent, EmailRich, FlowReply, InteractiveReply, Location, Media, MessageContent, Order, OrderItem,
};

/// Inserts `key: value` when there is a value.
fn put(object: &mut Map<String, Value>, key: &str, value: Option<&str>) {
    if let Some(value) = value {
        object.insert(key.into(), Value::String(value.into()));
    }
}

fn media_json(m: &Media) -> Value {
    let mut o = Map::new();
    for (key, value) in [
        ("id", &m.id),
        ("link", &m.link),
        ("mime_type", &m.mime_type),
        ("sha256", &m.sha256),
        ("caption", &m.caption),
        ("filename", &m.filename),
    ] {
        put(&mut o, key, value.as_deref());
    }
    Value::Object(o)
}

impl MessageContent {
    /// The platform's shape of this content; [`from_json`](Self::from_json) reads it back to
    /// an equal value. `template` (Parley's sends) and `unsupported` (`{"raw": …}`) are
    /// Parley's own.
    pub fn to_json(&self) -> Value {
        let kind = self.message_type().as_str();
        let part = match self {
            MessageContent::Text { body } => json!({ "body": body }),
            MessageContent::Image(m)
            | MessageContent::Video(m)
            | MessageContent::Audio(m)
            | MessageContent::Document(m)
            | MessageContent::Sticker(m)
            | MessageContent::Share(m)
            | MessageContent::StoryMention(m) => media_json(m),
            MessageContent::Location(l) => {
                let mut o = Map::new();
                o.insert("latitude".into(), json!(l.latitude));
                o.insert("longitude".into(), json!(l.longitude));
                put(&mut o, "name", l.name.as_deref());
                put(&mut o, "address", l.address.as_deref());
                Value::Object(o)
            }
            MessageContent::Contacts { cards } => cards.clone(),
            MessageContent::Interactive(InteractiveReply::Button { id, title }) => {
                json!({ "type": "button_reply", "button_reply": { "id": id, "title": title } })
            }
            MessageContent::Interactive(InteractiveReply::List { id, title, description }) => {
                let mut reply = Map::new();
                put(&mut reply, "id", Some(id));
                put(&mut reply, "title", Some(title));
                put(&mut reply, "description", description.as_deref());
                json!({ "type": "list_reply", "list_reply": reply })
            }
            MessageContent::Prompt(prompt) => serde_json::to_value(prompt).expect("an interactive message always serializes"),
            MessageContent::Button { payload, text } => {
                let mut o = Map::new();
                put(&mut o, "payload", payload.as_deref());
                put(&mut o, "text", Some(text));
                Value::Object(o)
            }
            MessageContent::Reaction { message_id, emoji } => {
                let mut o = Map::new();
                put(&mut o, "message_id", Some(message_id));
                put(&mut o, "emoji", emoji.as_deref());
                Value::Object(o)
            }
            MessageContent::Order(order) => {
                let items: Vec<Value> = order
                    .items
                    .iter()
                    .map(|i| {
                        json!({
                            "product_retailer_id": i.product_retailer_id,
                            "quantity": i.quantity,
                            "item_price": i.item_price,
                            "currency": i.currency,
                        })
                    })
                    .collect();
                let mut o = Map::new();
                put(&mut o, "catalog_id", Some(&order.catalog_id));
                put(&mut o, "text", order.text.as_deref());
                o.insert("product_items".into(), Value::Array(items));
                Value::Object(o)
            }
            MessageContent::FlowReply(reply) => json!({
                "response": reply.response,
                "flow_token": reply.flow_token,
                "body": reply.body,
                "name": reply.name,
            }),
            MessageContent::System(notice) => serde_json::to_value(notice).expect("a notice always serializes"),
            MessageContent::Template { name, language, parsed_message } => {
                json!({ "name": name, "language": language, "parsed_message": parsed_message })
            }
            MessageContent::Email(email) => serde_json::to_value(RawEmail::from(email)).expect("an email always serializes"),
            MessageContent::Product(card) => serde_json::to_value(card).expect("a product card always serializes"),
            MessageContent::Cart(card) => serde_json::to_value(card).expect("a cart card always serializes"),
            MessageContent::Note(note) => serde_json::to_value(note).expect("a note always serializes"),
            MessageContent::Unsupported { raw } => return json!({ "type": "unsupported", "raw": raw }),
        };
        json!({ "type": kind, kind: part })
    }

    /// Reads what [`to_json`](Self::to_json) wrote. Never fails: an object it cannot read is
    /// kept whole as `Unsupported`.
    pub fn from_json(value: &Value) -> MessageContent {
        stored_content_of(value)
    }

    /// [`from_json`](Self::from_json) of the text `to_json().to_string()` wrote; an error only
    /// when `text` is not JSON. A text message, the commonest kind, is read straight from the
    /// text: a timeline page reads fifty, and a JSON tree for each cost more than the rest of
    /// the row.
    pub fn from_json_text(text: &str) -> serde_json::Result<MessageContent> {
        if let Some(body) = stored_text(text) {
            return Ok(MessageContent::Text { body });
        }
        Ok(stored_content_of(&serde_json::from_str(text)?))
    }
}

#[derive(Deserialize)]
struct RawText {
    body: String,
}

#[derive(Deserialize)]
struct RawMedia {
    id: Option<String>,
    /// Outbound media (ours) are by link; inbound ones by the platform's `id`.
    link: Option<String>,
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

/// Parley's own flow answers: every key written, null when absent.
#[derive(Deserialize)]
struct RawFlowReply {
    response: Map<String, Value>,
    flow_token: Option<String>,
    body: Option<String>,
    name: Option<String>,
}

/// Parley's own template sends.
#[derive(Deserialize)]
struct RawTemplate {
    name: String,
    language: String,
    parsed_message: String,
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

/// Parley's own email kind: optional fields left out when absent, lists always written.
#[derive(serde::Serialize, Deserialize)]
struct RawEmail {
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<String>,
    from: String,
    #[serde(default)]
    to: Vec<String>,
    #[serde(default)]
    cc: Vec<String>,
    message_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_reply_to: Option<String>,
    #[serde(default)]
    references: Vec<String>,
    text: String,
    #[serde(default)]
    attachments: Vec<RawAttachment>,
    /// The rich reply, as its own kind's content document (`{"type":"cart","cart":{…}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rich: Option<Value>,
}

#[derive(serde::Serialize, Deserialize)]
struct RawAttachment {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<String>,
    mime_type: String,
    size: u64,
}

impl From<&EmailContent> for RawEmail {
    fn from(e: &EmailContent) -> Self {
        Self {
            subject: e.subject.clone(),
            from: e.from.clone(),
            to: e.to.clone(),
            cc: e.cc.clone(),
            message_id: e.message_id.clone(),
            in_reply_to: e.in_reply_to.clone(),
            references: e.references.clone(),
            text: e.text.clone(),
            attachments: e
                .attachments
                .iter()
                .map(|a| RawAttachment { id: a.id.clone(), filename: a.filename.clone(), mime_type: a.mime_type.clone(), size: a.size })
                .collect(),
            rich: e.rich.as_ref().map(|rich| rich.content().to_json()),
        }
    }
}

impl From<RawEmail> for EmailContent {
    fn from(e: RawEmail) -> Self {
        Self {
            subject: e.subject,
            from: e.from,
            to: e.to,
            cc: e.cc,
            message_id: e.message_id,
            in_reply_to: e.in_reply_to,
            references: e.references,
            text: e.text,
            attachments: e
                .attachments
                .into_iter()
                .map(|a| EmailAttachment { id: a.id, filename: a.filename, mime_type: a.mime_type, size: a.size })
                .collect(),
            rich: e.rich.as_ref().and_then(|rich| EmailRich::of(&MessageContent::from_json(rich))).map(Box::new),
        }
    }
}

/// A JSON number, or a string holding one (both have been stored).
fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    match Value::deserialize(d)? {
        Value::Number(n) => n.as_f64().ok_or_else(|| serde::de::Error::custom("not a number")),
        Value::String(s) => s.trim().parse().map_err(serde::de::Error::custom),
        _ => Err(serde::de::Error::custom("not a number")),
    }
}

/// The object under `message[kind]`, when it has the expected shape. Read in place, not from a
/// clone: a timeline page reads every message's stored content through here.
fn part<T: DeserializeOwned>(message: &Value, kind: &str) -> Option<T> {
    T::deserialize(message.get(kind)?).ok()
}

fn media(raw: RawMedia) -> Media {
    Media { id: raw.id, link: raw.link, mime_type: raw.mime_type, sha256: raw.sha256, caption: raw.caption, filename: raw.filename }
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
        "share" => MessageContent::Share(media(part(message, kind)?)),
        "story_mention" => MessageContent::StoryMention(media(part(message, kind)?)),
        "location" => {
            let l: RawLocation = part(message, kind)?;
            MessageContent::Location(Location { latitude: l.latitude, longitude: l.longitude, name: l.name, address: l.address })
        }
        "contacts" => match message.get("contacts")? {
            cards @ Value::Array(_) => MessageContent::Contacts { cards: cards.clone() },
            _ => return None,
        },
        // What the business sent (`button`, `list`, `cta_url`), else a contact's answer to it.
        "interactive" if matches!(message.pointer("/interactive/type").and_then(Value::as_str), Some("button" | "list" | "cta_url")) => {
            MessageContent::Prompt(part(message, kind)?)
        }
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
        "email" => MessageContent::Email(part::<RawEmail>(message, kind)?.into()),
        "product" => MessageContent::Product(part(message, kind)?),
        "cart" => MessageContent::Cart(part(message, kind)?),
        "note" => MessageContent::Note(part(message, kind)?),
        "system" => MessageContent::System(part(message, kind)?),
        "flow_reply" => {
            let r: RawFlowReply = part(message, kind)?;
            MessageContent::FlowReply(FlowReply { response: r.response, flow_token: r.flow_token, body: r.body, name: r.name })
        }
        "template" => {
            let t: RawTemplate = part(message, kind)?;
            MessageContent::Template { name: t.name, language: t.language, parsed_message: t.parsed_message }
        }
        _ => return None,
    })
}

/// The content of a document as [`MessageContent::to_json`] wrote it: the message kinds, plus
/// Parley's own `template` sends and `unsupported` kinds kept under `raw`.
fn stored_content_of(message: &Value) -> MessageContent {
    if message.get("type").and_then(Value::as_str) == Some("unsupported")
        && let Some(raw) = message.get("raw")
    {
        return MessageContent::Unsupported { raw: raw.clone() };
    }
    known(message).unwrap_or_else(|| MessageContent::Unsupported { raw: message.clone() })
}

/// A text message exactly as `to_json` writes it: `{"text": {"body": …}, "type": "text"}`, in
/// any order, nothing more. Anything else is `None` and takes the general path, so this reads
/// only what `from_json` would read to the same value.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredText<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    text: StoredBody,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredBody {
    body: String,
}

fn stored_text(text: &str) -> Option<String> {
    // serde would also read a struct from an array; `from_json` reads an array as unsupported.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let stored: StoredText = serde_json::from_str(text).ok()?;
    (stored.kind == "text").then_some(stored.text.body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EmailAttachment, EmailContent, Location, Order, OrderItem};

    fn every_kind() -> Vec<MessageContent> {
        let media = Media {
            id: Some("1013".into()),
            link: None,
            mime_type: Some("image/jpeg".into()),
            sha256: Some("abc=".into()),
            caption: Some("our \"mug\"".into()),
            filename: None,
        };
        let linked = Media { link: Some("https://cdn.test/a.pdf".into()), filename: Some("a.pdf".into()), ..Media::default() };
        vec![
            MessageContent::Text { body: "hi\nthere".into() },
            MessageContent::Image(media.clone()),
            MessageContent::Video(Media::default()),
            MessageContent::Audio(Media { caption: None, ..media.clone() }),
            MessageContent::Document(linked),
            MessageContent::Sticker(media.clone()),
            MessageContent::Share(Media {
                link: Some("https://www.instagram.com/p/x".into()),
                caption: Some("A reel".into()),
                ..Media::default()
            }),
            MessageContent::StoryMention(media),
            MessageContent::Location(Location { latitude: 38.7, longitude: -9.14, name: Some("Shop".into()), address: None }),
            MessageContent::Contacts { cards: json!([{"name": {"formatted_name": "Ann"}}]) },
            MessageContent::Interactive(InteractiveReply::Button { id: "b1".into(), title: "Yes".into() }),
            MessageContent::Interactive(InteractiveReply::List { id: "r".into(), title: "Red".into(), description: Some("d".into()) }),
            MessageContent::Interactive(InteractiveReply::List { id: "r".into(), title: "Red".into(), description: None }),
            MessageContent::Prompt(
                serde_json::from_value(json!({"type": "button", "body": {"text": "Confirm?"},
                    "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}]}}))
                .unwrap(),
            ),
            MessageContent::Prompt(
                serde_json::from_value(json!({"type": "list", "header": {"type": "text", "text": "Sizes"}, "body": {"text": "Pick"},
                    "footer": {"text": "f"}, "action": {"button": "Sizes", "sections": [{"title": "S", "rows": [{"id": "s", "title": "Small", "description": "d"}]}]}}))
                .unwrap(),
            ),
            MessageContent::Prompt(
                serde_json::from_value(json!({"type": "cta_url", "header": {"type": "image", "image": {"link": "https://x.test/a.jpg"}},
                    "body": {"text": "Cart"}, "action": {"name": "cta_url", "parameters": {"display_text": "View", "url": "https://x.test/c"}}}))
                .unwrap(),
            ),
            MessageContent::Button { payload: Some("STOP".into()), text: "Stop".into() },
            MessageContent::Button { payload: None, text: "Stop".into() },
            MessageContent::Reaction { message_id: "pm.1".into(), emoji: Some("👍".into()) },
            MessageContent::Reaction { message_id: "pm.1".into(), emoji: None },
            MessageContent::Order(Order {
                catalog_id: "cat".into(),
                text: Some("asap".into()),
                items: vec![OrderItem { product_retailer_id: "sku".into(), quantity: 2, item_price: 9.5, currency: "EUR".into() }],
            }),
            MessageContent::Template { name: "hello".into(), language: "en_US".into(), parsed_message: "Hello Ann".into() },
            MessageContent::FlowReply(
                FlowReply::parse(r#"{"flow_token":"t-1","screen_0_Size_0":"0_Large","n":[1,{"x":null}]}"#, Some("Sent".into()), Some("flow".into()))
                    .unwrap(),
            ),
            MessageContent::FlowReply(FlowReply::parse(r#"{"flow_token":7}"#, None, None).unwrap()),
            MessageContent::Email(EmailContent {
                subject: Some("Order 42".into()),
                from: "ana@example.com".into(),
                to: vec!["shop@example.com".into()],
                cc: vec![],
                message_id: "a1@example.com".into(),
                in_reply_to: Some("m0@shop.example.com".into()),
                references: vec!["m0@shop.example.com".into()],
                text: "Is it in stock?".into(),
                attachments: vec![EmailAttachment { id: "att_1".into(), filename: None, mime_type: "image/png".into(), size: 3 }],
                rich: None,
            }),
            MessageContent::Email(EmailContent { from: "a@b.co".into(), message_id: "x@y".into(), ..EmailContent::default() }),
            // A rich reply on email keeps its buttons, product or cart.
            MessageContent::Email(EmailContent {
                from: "shop@example.com".into(),
                message_id: "r1@example.com".into(),
                text: "Which size?\n\nReply with one of:\n- S".into(),
                rich: Some(Box::new(EmailRich::Prompt(crate::model::Interactive {
                    kind: crate::model::interactive::InteractiveKind::Button,
                    header: None,
                    body: crate::model::interactive::Text { text: "Which size?".into() },
                    footer: None,
                    action: crate::model::interactive::Action::Buttons {
                        buttons: vec![crate::model::interactive::ReplyButton {
                            kind: "reply".into(),
                            reply: crate::model::interactive::Row { id: "s".into(), title: "S".into(), description: None },
                        }],
                    },
                }))),
                ..EmailContent::default()
            }),
            MessageContent::Email(EmailContent {
                from: "shop@example.com".into(),
                message_id: "r2@example.com".into(),
                rich: Some(Box::new(EmailRich::Cart(crate::model::CartCard {
                    code: "AbC1234".into(),
                    lines: vec![crate::model::CartCardLine { title: "Bottle".into(), qty: 2, line_total: crate::model::Decimal::new(2490, 2) }],
                    currency: Some("EUR".into()),
                    total: Some(crate::model::Decimal::new(2490, 2)),
                    url: None,
                    text: "2 × Bottle: 24.90 EUR".into(),
                }))),
                ..EmailContent::default()
            }),
            MessageContent::Unsupported { raw: json!({"type": "poll", "poll": {"q": 1}}) },
            // A stored template look-alike that came in as unsupported stays unsupported.
            MessageContent::Unsupported {
                raw: json!({"type": "template", "template": {"name": "x", "language": "en", "parsed_message": "y"}}),
            },
            MessageContent::Unsupported { raw: json!({"type": "unsupported", "errors": [{"code": 131051}]}) },
        ]
    }

    #[test]
    fn every_kind_reads_back_equal() {
        for content in every_kind() {
            let json = content.to_json();
            assert_eq!(MessageContent::from_json(&json), content, "{json}");
            assert_eq!(json["type"], content.message_type().as_str());
        }
    }

    #[test]
    fn the_text_reader_agrees_with_the_tree_reader() {
        for content in every_kind() {
            let text = content.to_json().to_string();
            assert_eq!(MessageContent::from_json_text(&text).unwrap(), content, "{text}");
        }
        for text in [
            r#"{"type":"text","text":{"body":"a\"b\u00e9"}}"#,
            r#"{"text":{"body":"x","extra":1},"type":"text"}"#,
            r#"{"text":{"body":"x"},"type":"text","extra":null}"#,
            r#"{"text":{"body":"x"},"type":"text","type":"image"}"#,
            r#"{"text":{"body":"x"},"type":"te\u0078t"}"#,
            r#"{"text":{"body":7},"type":"text"}"#,
            r#"{"text":["x"],"type":"text"}"#,
            r#"["text",{"body":"x"}]"#,
            r#"{"text":{"body":"x"}}"#,
            r#"{"raw":{"text":{"body":"x"}},"type":"unsupported"}"#,
            "[]",
            "3",
        ] {
            let tree: Value = serde_json::from_str(text).unwrap();
            assert_eq!(MessageContent::from_json_text(text).unwrap(), MessageContent::from_json(&tree), "{text}");
        }
        assert!(MessageContent::from_json_text(r#"{"text":{"body":"x"},"type":"text"} x"#).is_err());
        assert!(MessageContent::from_json_text("").is_err());
    }
}
