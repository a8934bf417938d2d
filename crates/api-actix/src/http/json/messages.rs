//! A message of a timeline: the fields of `MessageDto`, in its order. Its `content` is what
//! `MessageContent::to_json` builds, written here without building it: serde_json's maps are
//! sorted by key (no `preserve_order`), so each object's keys are written in byte order.

use std::fmt::Write as _;

use parley_domain::model::{EmailContent, FlowReply, InteractiveReply, Location, Media, Message, MessageContent, Pricing};
use serde_json::Value;

use super::{JsonText, push_channel, push_optional_string, push_string, push_time};
use crate::http::dto::MessageDto;

impl JsonText for Message {
    type Dto = MessageDto;

    fn push_json(&self, out: &mut String) {
        out.push_str("{\"id\":");
        push_string(out, self.id.as_str());
        out.push_str(",\"activity_id\":");
        push_string(out, self.activity_id.as_str());
        out.push_str(",\"direction\":");
        push_string(out, self.direction.as_str());
        out.push_str(",\"type\":");
        push_string(out, self.message_type().as_str());
        out.push_str(",\"text\":");
        push_optional_string(out, self.text());
        out.push_str(",\"media\":");
        match self.media() {
            Some(m) => push_media_dto(out, m),
            None => out.push_str("null"),
        }
        out.push_str(",\"location\":");
        match self.location() {
            Some(l) => push_location_dto(out, l),
            None => out.push_str("null"),
        }
        out.push_str(",\"email\":");
        match self.content.email() {
            Some(e) => push_email_dto(out, e),
            None => out.push_str("null"),
        }
        out.push_str(",\"attachments\":[");
        for (i, a) in self.content.email().map_or(&[][..], |e| &e.attachments).iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"id\":");
            push_string(out, &a.id);
            out.push_str(",\"filename\":");
            push_optional_string(out, a.filename.as_deref());
            out.push_str(",\"mime_type\":");
            push_string(out, &a.mime_type);
            let _ = write!(out, ",\"size\":{}}}", a.size);
        }
        out.push(']');
        out.push_str(",\"flow_reply\":");
        match self.content.flow_reply() {
            Some(r) => push_flow_reply_dto(out, r),
            None => out.push_str("null"),
        }
        out.push_str(",\"content\":");
        push_content(out, &self.content);
        out.push_str(",\"reply_to\":");
        push_optional_string(out, self.reply_to.as_ref().map(|r| r.as_str()));
        out.push_str(",\"platform_message_id\":");
        push_optional_string(out, self.platform_message_id.as_deref());
        out.push_str(",\"channel\":");
        push_channel(out, &self.channel);
        out.push_str(",\"line_id\":");
        push_optional_string(out, self.line_id.as_ref().map(|l| l.as_str()));
        out.push_str(",\"status\":");
        push_string(out, self.status.as_str());
        out.push_str(",\"error_message\":");
        push_optional_string(out, self.error_message.as_deref());
        out.push_str(",\"pricing\":");
        match &self.pricing {
            Some(Pricing::Reported { category, billable }) => {
                out.push_str("{\"category\":");
                push_string(out, category.as_str());
                out.push_str(if *billable { ",\"billable\":true,\"raw\":null}" } else { ",\"billable\":false,\"raw\":null}" });
            }
            Some(Pricing::Unread { raw }) => {
                out.push_str("{\"category\":null,\"billable\":null,\"raw\":");
                push_value(out, raw);
                out.push('}');
            }
            None => out.push_str("null"),
        }
        out.push_str(",\"template_id\":");
        push_optional_string(out, self.template_id.as_ref().map(|t| t.as_str()));
        out.push_str(",\"campaign_key\":");
        push_optional_string(out, self.campaign_key.as_ref().map(|k| k.as_str()));
        out.push_str(",\"cart_code\":");
        push_optional_string(out, self.cart_code.as_ref().map(|c| c.as_str()));
        out.push_str(",\"referral\":");
        match &self.referral {
            Some(referral) => push_value(out, referral),
            None => out.push_str("null"),
        }
        out.push_str(",\"created_at\":");
        push_time(out, self.created_at);
        for (key, time) in [
            (",\"sent_at\":", self.sent_at),
            (",\"send_at\":", self.send_at),
            (",\"delivered_at\":", self.delivered_at),
            (",\"read_at\":", self.read_at),
            (",\"deleted_at\":", self.deleted_at),
        ] {
            out.push_str(key);
            match time {
                Some(t) => push_time(out, t),
                None => out.push_str("null"),
            }
        }
        out.push_str(",\"updated_at\":");
        push_time(out, self.updated_at);
        out.push('}');
    }

    fn json_len_hint(&self) -> usize {
        // The fixed part is about 600 bytes; a text message carries its text twice.
        640 + 2 * self.text().map_or(0, str::len)
    }
}

/// `MessageMediaDto`: every field, null when absent.
fn push_media_dto(out: &mut String, m: &Media) {
    out.push_str("{\"id\":");
    push_optional_string(out, m.id.as_deref());
    out.push_str(",\"link\":");
    push_optional_string(out, m.link.as_deref());
    out.push_str(",\"mime_type\":");
    push_optional_string(out, m.mime_type.as_deref());
    out.push_str(",\"sha256\":");
    push_optional_string(out, m.sha256.as_deref());
    out.push_str(",\"caption\":");
    push_optional_string(out, m.caption.as_deref());
    out.push_str(",\"filename\":");
    push_optional_string(out, m.filename.as_deref());
    out.push('}');
}

/// `EmailDto`: every field, null when absent.
fn push_email_dto(out: &mut String, e: &EmailContent) {
    out.push_str("{\"subject\":");
    push_optional_string(out, e.subject.as_deref());
    out.push_str(",\"from\":");
    push_string(out, &e.from);
    for (key, list) in [(",\"to\":[", &e.to), (",\"cc\":[", &e.cc)] {
        out.push_str(key);
        for (i, address) in list.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_string(out, address);
        }
        out.push(']');
    }
    out.push_str(",\"message_id\":");
    push_string(out, &e.message_id);
    out.push_str(",\"in_reply_to\":");
    push_optional_string(out, e.in_reply_to.as_deref());
    out.push('}');
}

/// `FlowReplyDto`: every field, null when absent; the answer as serde_json writes it.
fn push_flow_reply_dto(out: &mut String, r: &FlowReply) {
    out.push_str("{\"response\":");
    out.push_str(&serde_json::to_string(&r.response).expect("a JSON object always serializes"));
    out.push_str(",\"flow_token\":");
    push_optional_string(out, r.flow_token.as_deref());
    out.push_str(",\"body\":");
    push_optional_string(out, r.body.as_deref());
    out.push_str(",\"name\":");
    push_optional_string(out, r.name.as_deref());
    out.push('}');
}

/// `LocationDto`: every field, null when absent.
fn push_location_dto(out: &mut String, l: &Location) {
    out.push_str("{\"latitude\":");
    push_f64(out, l.latitude);
    out.push_str(",\"longitude\":");
    push_f64(out, l.longitude);
    out.push_str(",\"name\":");
    push_optional_string(out, l.name.as_deref());
    out.push_str(",\"address\":");
    push_optional_string(out, l.address.as_deref());
    out.push('}');
}

/// `content.to_json()`: `{"type": kind, kind: part}`, the two keys in byte order.
fn push_content(out: &mut String, content: &MessageContent) {
    if let MessageContent::Unsupported { raw } = content {
        out.push_str("{\"raw\":");
        push_value(out, raw);
        out.push_str(",\"type\":\"unsupported\"}");
        return;
    }
    let kind = content.message_type().as_str();
    // Every kind's name is plain ASCII: no escaping.
    if kind < "type" {
        out.push_str("{\"");
        out.push_str(kind);
        out.push_str("\":");
        push_part(out, content);
        out.push_str(",\"type\":\"");
        out.push_str(kind);
        out.push_str("\"}");
    } else {
        out.push_str("{\"type\":\"");
        out.push_str(kind);
        out.push_str("\",\"");
        out.push_str(kind);
        out.push_str("\":");
        push_part(out, content);
        out.push('}');
    }
}

/// The object under the kind's key, only the fields present, keys in byte order.
fn push_part(out: &mut String, content: &MessageContent) {
    match content {
        // The platform's array (or object) as is.
        MessageContent::Contacts { cards } => return push_value(out, cards),
        // Rare on a page next to text: serde_json writes the document's part (keys sorted).
        MessageContent::Email(_) => return push_value(out, &content.to_json()["email"]),
        MessageContent::Prompt(_) => return push_value(out, &content.to_json()["interactive"]),
        MessageContent::Product(_) => return push_value(out, &content.to_json()["product"]),
        MessageContent::Cart(_) => return push_value(out, &content.to_json()["cart"]),
        MessageContent::FlowReply(_) => return push_value(out, &content.to_json()["flow_reply"]),
        MessageContent::System(_) => return push_value(out, &content.to_json()["system"]),
        MessageContent::Unsupported { raw } => return push_value(out, raw),
        _ => {}
    }
    let mut o = Object::open(out);
    match content {
        MessageContent::Text { body } => o.string("body", body),
        MessageContent::Image(m)
        | MessageContent::Video(m)
        | MessageContent::Audio(m)
        | MessageContent::Document(m)
        | MessageContent::Sticker(m)
        | MessageContent::Share(m)
        | MessageContent::StoryMention(m) => {
            o.optional("caption", m.caption.as_deref());
            o.optional("filename", m.filename.as_deref());
            o.optional("id", m.id.as_deref());
            o.optional("link", m.link.as_deref());
            o.optional("mime_type", m.mime_type.as_deref());
            o.optional("sha256", m.sha256.as_deref());
        }
        MessageContent::Location(l) => {
            o.optional("address", l.address.as_deref());
            push_f64(o.key("latitude"), l.latitude);
            push_f64(o.key("longitude"), l.longitude);
            o.optional("name", l.name.as_deref());
        }
        MessageContent::Interactive(InteractiveReply::Button { id, title }) => {
            let mut reply = Object::open(o.key("button_reply"));
            reply.string("id", id);
            reply.string("title", title);
            reply.close();
            o.string("type", "button_reply");
        }
        MessageContent::Interactive(InteractiveReply::List { id, title, description }) => {
            let mut reply = Object::open(o.key("list_reply"));
            reply.optional("description", description.as_deref());
            reply.string("id", id);
            reply.string("title", title);
            reply.close();
            o.string("type", "list_reply");
        }
        MessageContent::Button { payload, text } => {
            o.optional("payload", payload.as_deref());
            o.string("text", text);
        }
        MessageContent::Reaction { message_id, emoji } => {
            o.optional("emoji", emoji.as_deref());
            o.string("message_id", message_id);
        }
        MessageContent::Order(order) => {
            o.string("catalog_id", &order.catalog_id);
            let items = o.key("product_items");
            items.push('[');
            for (i, item) in order.items.iter().enumerate() {
                if i > 0 {
                    items.push(',');
                }
                let mut line = Object::open(items);
                line.string("currency", &item.currency);
                push_f64(line.key("item_price"), item.item_price);
                line.string("product_retailer_id", &item.product_retailer_id);
                let _ = write!(line.key("quantity"), "{}", item.quantity);
                line.close();
            }
            o.out.push(']');
            o.optional("text", order.text.as_deref());
        }
        MessageContent::Template { name, language, parsed_message } => {
            o.string("language", language);
            o.string("name", name);
            o.string("parsed_message", parsed_message);
        }
        MessageContent::Note(note) => {
            o.optional("author", note.author());
            o.string("text", note.text());
        }
        MessageContent::Contacts { .. }
        | MessageContent::Unsupported { .. }
        | MessageContent::Email(_)
        | MessageContent::Prompt(_)
        | MessageContent::Product(_)
        | MessageContent::Cart(_)
        | MessageContent::FlowReply(_)
        | MessageContent::System(_) => {}
    }
    o.close();
}

/// A JSON object being written: commas between its fields.
struct Object<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut String) -> Self {
        out.push('{');
        Self { out, empty: true }
    }

    /// Writes `"key":` (a plain ASCII key) and returns where its value goes.
    fn key(&mut self, key: &str) -> &mut String {
        if !std::mem::take(&mut self.empty) {
            self.out.push(',');
        }
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    fn string(&mut self, key: &str, value: &str) {
        push_string(self.key(key), value);
    }

    /// A field that is left out, not null, when absent.
    fn optional(&mut self, key: &str, value: Option<&str>) {
        if let Some(value) = value {
            self.string(key, value);
        }
    }

    fn close(self) {
        self.out.push('}');
    }
}

/// A number as serde_json writes an `f64`: its shortest form, or null when not finite.
fn push_f64(out: &mut String, x: f64) {
    match serde_json::Number::from_f64(x) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}

/// Arbitrary JSON kept whole (contact cards, a raw unsupported message, a referral): rare on a
/// page, so serde_json writes it.
fn push_value(out: &mut String, value: &Value) {
    out.push_str(&serde_json::to_string(value).expect("a JSON value always serializes"));
}
