//! Events as the API shows them: the snapshot an event carries, rendered through the same DTOs
//! the API answers with, so an event and a `GET` of its object at that moment agree. Listing,
//! streaming and signing a delivery all render here.

use parley_domain::model::{Event, EventObject};
use serde::Serialize;
use serde_json::json;

use super::{ActivityDto, CartDto, ContactDto, EventDto, ExecutionDto, MessageDto, TagDto, TemplateDto, WebhookEndpointDto};

fn value(dto: impl Serialize) -> serde_json::Value {
    // DTOs are plain data (strings, numbers, maps with string keys): serializing cannot fail.
    serde_json::to_value(dto).unwrap_or_else(|e| unreachable!("a DTO always serializes: {e}"))
}

/// The object as the API represents it: what a `GET` of it answered right after the change;
/// `{"id", "deleted": true}` for a removed object, `{"id", "erased": true}` once its contact
/// was erased, and an event stored before snapshots as it was shown then.
pub fn event_object(object: &EventObject) -> serde_json::Value {
    match object {
        EventObject::Contact(c) => value(ContactDto::from((**c).clone())),
        EventObject::Activity(a) => value(ActivityDto::from(&**a)),
        EventObject::Message(m) => value(MessageDto::from(&**m)),
        EventObject::Cart(c) => value(CartDto::from((**c).clone())),
        EventObject::Execution(e) => value(ExecutionDto::from((**e).clone())),
        EventObject::Template(t) => value(TemplateDto::from((**t).clone())),
        EventObject::Tag(t) => value(TagDto::from((**t).clone())),
        EventObject::WebhookEndpoint(e) => value(WebhookEndpointDto::from(&**e)),
        EventObject::Deleted { id } => json!({ "id": id, "deleted": true }),
        EventObject::Erased { id } => json!({ "id": id, "erased": true }),
        EventObject::Shown { object } => object.clone(),
    }
}

/// The event as it is listed, streamed and sent: `{"id","type","created_at","data"}`, the bytes
/// each delivery signs.
pub fn event_body(event: &Event) -> String {
    serde_json::to_string(&EventDto::from(event)).unwrap_or_else(|e| unreachable!("a DTO always serializes: {e}"))
}
