//! Objects for events' `data.object`, through the same DTOs the API answers with: an event and
//! a `GET` of the object at that moment show the same thing.

use parley_domain::ports::{ApiObject, ApiObjects};
use serde::Serialize;

use super::{ActivityDto, CartDto, ContactDto, ExecutionDto, MessageDto, TagDto, TemplateDto, WebhookEndpointDto};

/// The API's representation of each object.
#[derive(Debug, Default, Clone, Copy)]
pub struct ApiRepresentation;

fn value(dto: impl Serialize) -> serde_json::Value {
    // DTOs are plain data (strings, numbers, maps with string keys): serializing cannot fail.
    serde_json::to_value(dto).unwrap_or_else(|e| unreachable!("a DTO always serializes: {e}"))
}

impl ApiObjects for ApiRepresentation {
    fn render<'a>(&self, object: ApiObject<'a>) -> serde_json::Value {
        match object {
            ApiObject::WebhookEndpoint(e) => value(WebhookEndpointDto::from(e)),
            ApiObject::Contact(c) => value(ContactDto::from(c.clone())),
            ApiObject::Activity(a) => value(ActivityDto::from(a)),
            ApiObject::Message(m) => value(MessageDto::from(m)),
            ApiObject::Cart(c) => value(CartDto::from(c.clone())),
            ApiObject::Execution(e) => value(ExecutionDto::from(e.clone())),
            ApiObject::Template(t) => value(TemplateDto::from(t.clone())),
            ApiObject::Tag(t) => value(TagDto::from(t.clone())),
        }
    }
}
