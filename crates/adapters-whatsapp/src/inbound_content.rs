//! The content of one inbound message object of the WhatsApp webhook (`messages[]`), by its
//! `type`, read from the Cloud API's own layout into Parley's [`MessageContent`]. Parley's
//! content document looks much like these objects, but it is Parley's format and changes on
//! Parley's terms: this reader is the one place that knows Meta's. A kind it does not know, or
//! one whose object is not of the expected shape, becomes `Unsupported` with the whole message
//! object, never an error and never dropped.

use parley_domain::model::{FlowReply, InteractiveReply, Location, Media, MessageContent, Order, OrderItem, SystemNotice};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The content of one message object of the webhook.
pub(crate) fn content_of(message: &Value) -> MessageContent {
    known(message).unwrap_or_else(|| MessageContent::Unsupported { raw: message.clone() })
}

fn known(message: &Value) -> Option<MessageContent> {
    let kind = message.get("type")?.as_str()?;
    Some(match kind {
        "text" => MessageContent::Text { body: part::<CloudText>(message, kind)?.body },
        "image" => MessageContent::Image(part::<CloudMedia>(message, kind)?.into()),
        "video" => MessageContent::Video(part::<CloudMedia>(message, kind)?.into()),
        "audio" => MessageContent::Audio(part::<CloudMedia>(message, kind)?.into()),
        "document" => MessageContent::Document(part::<CloudMedia>(message, kind)?.into()),
        "sticker" => MessageContent::Sticker(part::<CloudMedia>(message, kind)?.into()),
        "location" => {
            let l: CloudLocation = part(message, kind)?;
            MessageContent::Location(Location { latitude: l.latitude, longitude: l.longitude, name: l.name, address: l.address })
        }
        // vCards kept as the platform sent them: Parley shows them, it does not model them.
        "contacts" => match message.get("contacts")? {
            cards @ Value::Array(_) => MessageContent::Contacts { cards: cards.clone() },
            _ => return None,
        },
        "interactive" => interactive(part(message, kind)?)?,
        "button" => {
            let b: CloudButton = part(message, kind)?;
            MessageContent::Button { payload: b.payload, text: b.text }
        }
        "reaction" => {
            let r: CloudReaction = part(message, kind)?;
            // An empty emoji is the platform's way of saying the reaction was taken back.
            MessageContent::Reaction { message_id: r.message_id, emoji: r.emoji.filter(|e| !e.is_empty()) }
        }
        "order" => MessageContent::Order(order(part(message, kind)?)?),
        // The notice's new ids are read by the delivery's reader; the timeline keeps what it says.
        "system" => {
            let s: CloudSystem = part(message, kind)?;
            MessageContent::System(SystemNotice { kind: s.kind, body: s.body })
        }
        _ => return None,
    })
}

/// The object under `message[kind]`, when it has the expected shape.
fn part<T: DeserializeOwned>(message: &Value, kind: &str) -> Option<T> {
    T::deserialize(message.get(kind)?).ok()
}

#[derive(Deserialize)]
struct CloudText {
    body: String,
}

/// An inbound media object: the platform's media `id` to fetch it by, never a link of ours.
#[derive(Deserialize)]
struct CloudMedia {
    id: Option<String>,
    link: Option<String>,
    mime_type: Option<String>,
    sha256: Option<String>,
    caption: Option<String>,
    filename: Option<String>,
}

impl From<CloudMedia> for Media {
    fn from(m: CloudMedia) -> Self {
        Media { id: m.id, link: m.link, mime_type: m.mime_type, sha256: m.sha256, caption: m.caption, filename: m.filename }
    }
}

#[derive(Deserialize)]
struct CloudLocation {
    latitude: f64,
    longitude: f64,
    name: Option<String>,
    address: Option<String>,
}

/// A contact's answer to an interactive message: a reply button, a list row, or a Flow's
/// answer (`nfm_reply`).
#[derive(Deserialize)]
struct CloudInteractive {
    #[serde(rename = "type")]
    kind: String,
    button_reply: Option<CloudReply>,
    list_reply: Option<CloudReply>,
    nfm_reply: Option<CloudFlowAnswer>,
}

#[derive(Deserialize)]
struct CloudReply {
    id: String,
    title: String,
    description: Option<String>,
}

/// A Flow's answer: what the contact entered is JSON inside the string `response_json`.
#[derive(Deserialize)]
struct CloudFlowAnswer {
    response_json: String,
    body: Option<String>,
    name: Option<String>,
}

fn interactive(raw: CloudInteractive) -> Option<MessageContent> {
    Some(match raw.kind.as_str() {
        "button_reply" => {
            let r = raw.button_reply?;
            MessageContent::Interactive(InteractiveReply::Button { id: r.id, title: r.title })
        }
        "list_reply" => {
            let r = raw.list_reply?;
            MessageContent::Interactive(InteractiveReply::List { id: r.id, title: r.title, description: r.description })
        }
        // Kept only when `response_json` is a JSON object: anything else is not an answer.
        "nfm_reply" => {
            let a = raw.nfm_reply?;
            MessageContent::FlowReply(FlowReply::parse(&a.response_json, a.body, a.name)?)
        }
        _ => return None,
    })
}

#[derive(Deserialize)]
struct CloudButton {
    payload: Option<String>,
    text: String,
}

#[derive(Deserialize)]
struct CloudReaction {
    message_id: String,
    emoji: Option<String>,
}

#[derive(Deserialize)]
struct CloudSystem {
    #[serde(rename = "type")]
    kind: String,
    body: Option<String>,
}

#[derive(Deserialize)]
struct CloudOrder {
    catalog_id: String,
    text: Option<String>,
    #[serde(default)]
    product_items: Vec<CloudOrderItem>,
}

#[derive(Deserialize)]
struct CloudOrderItem {
    product_retailer_id: String,
    #[serde(deserialize_with = "number")]
    quantity: f64,
    #[serde(deserialize_with = "number")]
    item_price: f64,
    currency: String,
}

/// A JSON number, or a string holding one: the platform has sent order lines both ways.
fn number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    match Value::deserialize(d)? {
        Value::Number(n) => n.as_f64().ok_or_else(|| serde::de::Error::custom("not a number")),
        Value::String(s) => s.trim().parse().map_err(serde::de::Error::custom),
        _ => Err(serde::de::Error::custom("not a number")),
    }
}

/// The order, unless a line's quantity is not a whole, positive count.
fn order(raw: CloudOrder) -> Option<Order> {
    let mut items = Vec::with_capacity(raw.product_items.len());
    for i in raw.product_items {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A message object as the webhook carries it, with `kind`'s fields.
    fn message(kind: &str, fields: Value) -> Value {
        let mut m = json!({"from": "16315551234", "id": "wamid.HBgL", "timestamp": "1767225600", "type": kind});
        m.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        m
    }

    #[test]
    fn text_and_media_are_read() {
        assert_eq!(
            content_of(&message("text", json!({"text": {"body": "Is the mug in stock?"}}))),
            MessageContent::Text { body: "Is the mug in stock?".into() }
        );
        let image = message(
            "image",
            json!({"image": {"caption": "this one", "mime_type": "image/jpeg", "sha256": "9Yc1xT3Q=", "id": "1479537139650973"}}),
        );
        assert_eq!(
            content_of(&image),
            MessageContent::Image(Media {
                id: Some("1479537139650973".into()),
                mime_type: Some("image/jpeg".into()),
                sha256: Some("9Yc1xT3Q=".into()),
                caption: Some("this one".into()),
                ..Media::default()
            })
        );
        let document = message(
            "document",
            json!({"document": {"caption": "invoice", "filename": "INV-7.pdf", "mime_type": "application/pdf", "sha256": "a1", "id": "2"}}),
        );
        let doc = content_of(&document);
        assert_eq!(doc.media().and_then(|m| m.filename.as_deref()), Some("INV-7.pdf"));
        assert_eq!(doc.text(), Some("invoice"));
        let audio = content_of(&message(
            "audio",
            json!({"audio": {"mime_type": "audio/ogg; codecs=opus", "sha256": "b2", "id": "3", "voice": true}}),
        ));
        assert_eq!((audio.message_type().as_str(), audio.media().and_then(|m| m.id.as_deref())), ("audio", Some("3")));
        let video = content_of(&message("video", json!({"video": {"mime_type": "video/mp4", "sha256": "c3", "id": "4"}})));
        assert_eq!(video.message_type().as_str(), "video");
        let sticker =
            content_of(&message("sticker", json!({"sticker": {"mime_type": "image/webp", "sha256": "d4", "id": "5", "animated": false}})));
        assert_eq!((sticker.message_type().as_str(), sticker.text()), ("sticker", None));
    }

    #[test]
    fn location_and_contacts_are_read() {
        let location = message(
            "location",
            json!({"location": {"address": "1 Hacker Way, Menlo Park, CA 94025", "latitude": 37.483307, "longitude": -122.148981,
                "name": "Main Street Beach", "url": "https://foo.bar"}}),
        );
        assert_eq!(
            content_of(&location),
            MessageContent::Location(Location {
                latitude: 37.483307,
                longitude: -122.148981,
                name: Some("Main Street Beach".into()),
                address: Some("1 Hacker Way, Menlo Park, CA 94025".into()),
            })
        );
        let cards = json!([{"name": {"formatted_name": "Ann Lee", "first_name": "Ann"}, "phones": [{"phone": "+1 415 555 0100", "wa_id": "14155550100", "type": "CELL"}]}]);
        assert_eq!(content_of(&message("contacts", json!({"contacts": cards.clone()}))), MessageContent::Contacts { cards });
    }

    #[test]
    fn replies_buttons_and_reactions_are_read() {
        let button_reply =
            message("interactive", json!({"interactive": {"type": "button_reply", "button_reply": {"id": "yes-1", "title": "Yes"}}}));
        assert_eq!(
            content_of(&button_reply),
            MessageContent::Interactive(InteractiveReply::Button { id: "yes-1".into(), title: "Yes".into() })
        );
        let list_reply = message(
            "interactive",
            json!({"interactive": {"type": "list_reply", "list_reply": {"id": "red", "title": "Red mug", "description": "350 ml"}}}),
        );
        assert_eq!(
            content_of(&list_reply),
            MessageContent::Interactive(InteractiveReply::List {
                id: "red".into(),
                title: "Red mug".into(),
                description: Some("350 ml".into())
            })
        );
        let button = message(
            "button",
            json!({"context": {"from": "15550001111", "id": "wamid.tpl"}, "button": {"payload": "STOP", "text": "Stop promotions"}}),
        );
        assert_eq!(content_of(&button), MessageContent::Button { payload: Some("STOP".into()), text: "Stop promotions".into() });
        let reaction = message("reaction", json!({"reaction": {"message_id": "wamid.out1", "emoji": "❤️"}}));
        assert_eq!(content_of(&reaction), MessageContent::Reaction { message_id: "wamid.out1".into(), emoji: Some("❤️".into()) });
        let removed = message("reaction", json!({"reaction": {"message_id": "wamid.out1", "emoji": ""}}));
        assert_eq!(
            content_of(&removed),
            MessageContent::Reaction { message_id: "wamid.out1".into(), emoji: None },
            "an empty emoji removes it"
        );
    }

    #[test]
    fn a_flow_answer_is_read_with_its_response_parsed_and_its_token() {
        let answer = message(
            "interactive",
            json!({"context": {"from": "15550001111", "id": "wamid.flow"}, "interactive": {"type": "nfm_reply", "nfm_reply": {
                "name": "flow", "body": "Sent",
                "response_json": "{\"flow_token\":\"AQAAAAACS5FpgQ_cAAAAAD0QI3s.\",\"screen_0_Size_0\":\"0_Large\",\"screen_0_Qty_1\":2}"}}}),
        );
        let MessageContent::FlowReply(reply) = content_of(&answer) else { panic!("{:?}", content_of(&answer)) };
        assert_eq!(reply.flow_token.as_deref(), Some("AQAAAAACS5FpgQ_cAAAAAD0QI3s."));
        assert_eq!(
            serde_json::Value::Object(reply.response.clone()),
            json!({"flow_token": "AQAAAAACS5FpgQ_cAAAAAD0QI3s.", "screen_0_Size_0": "0_Large", "screen_0_Qty_1": 2})
        );
        assert_eq!((reply.body.as_deref(), reply.name.as_deref()), (Some("Sent"), Some("flow")));
        assert_eq!(content_of(&answer).text(), Some("Sent"));
        assert_eq!(content_of(&answer).message_type().as_str(), "flow_reply");

        let tokenless = message("interactive", json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"response_json": "{}"}}}));
        let MessageContent::FlowReply(reply) = content_of(&tokenless) else { panic!() };
        assert_eq!((reply.flow_token, reply.body, reply.name, reply.response.len()), (None, None, None, 0));

        let nul = message(
            "interactive",
            json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"response_json": "{\"a\\u0000\":\"b\\u0000\"}"}}}),
        );
        let MessageContent::FlowReply(reply) = content_of(&nul) else { panic!() };
        assert_eq!(serde_json::Value::Object(reply.response), json!({"a\u{FFFD}": "b\u{FFFD}"}), "made storable");
    }

    #[test]
    fn orders_are_read_with_numbers_or_numeric_strings() {
        let order = message(
            "order",
            json!({"order": {"catalog_id": "194836987003835", "text": "for Friday please", "product_items": [
                {"product_retailer_id": "SKU-MUG", "quantity": 2, "item_price": 12.5, "currency": "USD"},
                {"product_retailer_id": "SKU-TEA", "quantity": "1", "item_price": "4", "currency": "USD"}]}}),
        );
        assert_eq!(
            content_of(&order),
            MessageContent::Order(Order {
                catalog_id: "194836987003835".into(),
                text: Some("for Friday please".into()),
                items: vec![
                    OrderItem { product_retailer_id: "SKU-MUG".into(), quantity: 2, item_price: 12.5, currency: "USD".into() },
                    OrderItem { product_retailer_id: "SKU-TEA".into(), quantity: 1, item_price: 4.0, currency: "USD".into() },
                ],
            })
        );
    }

    #[test]
    fn unknown_or_misshapen_kinds_are_kept_whole_as_unsupported() {
        for m in [
            message("unsupported", json!({"errors": [{"code": 131051, "title": "Message type unknown"}]})),
            message("poll", json!({"poll": {"question": "?"}})),
            message("text", json!({"text": "not an object"})),
            // A flow answer whose `response_json` is not a JSON object, or is missing.
            message("interactive", json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"response_json": "[1]", "name": "flow"}}})),
            message(
                "interactive",
                json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"response_json": "{\"a\":", "body": "Sent"}}}),
            ),
            message("interactive", json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"response_json": {"a": 1}}}})),
            message("interactive", json!({"interactive": {"type": "nfm_reply", "nfm_reply": {"body": "Sent", "name": "flow"}}})),
            message("interactive", json!({"interactive": {"type": "nfm_reply"}})),
            message(
                "order",
                json!({"order": {"catalog_id": "1", "product_items": [{"product_retailer_id": "A", "quantity": 0.5, "item_price": 1, "currency": "USD"}]}}),
            ),
            message("image", json!({})),
            json!({"from": "1", "id": "wamid.x", "timestamp": "1"}),
            // Parley's own kinds are never the platform's: an inbound look-alike is not read as one.
            message("template", json!({"template": {"name": "x", "language": "en", "parsed_message": "y"}})),
            message("email", json!({"email": {"from": "a@b.co", "message_id": "x@y", "text": "hi"}})),
            message("note", json!({"note": {"text": "internal"}})),
            message(
                "interactive",
                json!({"interactive": {"type": "button", "body": {"text": "Confirm?"},
                "action": {"buttons": [{"type": "reply", "reply": {"id": "yes", "title": "Yes"}}]}}}),
            ),
        ] {
            assert_eq!(content_of(&m), MessageContent::Unsupported { raw: m.clone() });
        }
    }
}
