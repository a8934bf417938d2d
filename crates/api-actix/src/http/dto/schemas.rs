//! Schema-only types: the names of the domain's enums as the OpenAPI document lists them (a
//! test ties each to the domain's values), and the text rules of ids.

use utoipa::ToSchema;

// Patterns in the OpenAPI document (utoipa takes literals only), so generated clients and
// fuzzers know the rules: trimmed text has a visible character and no control characters but
// newline and tab (`[^\s\x00-\x1f\x7f-\x9f]`), colors are `#rrggbb`, emails printable ASCII
// with one `@` and a dotted domain. Whitespace is `\s`, never `\u…` escapes: generators copy
// patterns into string literals, where an escaped U+2028 became a raw line separator. (`\s` is
// Rust's whitespace in every dialect but JavaScript's, which adds U+FEFF: a JavaScript validator
// also refuses text made only of that invisible character, which the API accepts.)

/// An id as a client sends it in a body or a query: any text without control characters
/// (which the API refuses with 400 before looking anything up).
pub struct IdText;

impl utoipa::PartialSchema for IdText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .pattern(Some(r"^[^\x00-\x1f\x7f-\x9f]*$"))
            .into()
    }
}

impl ToSchema for IdText {}

/// A template button's position, as the platform's own examples write it (`"0"`) or as most
/// client libraries do (`0`): the same button.
pub struct ButtonIndex;

impl utoipa::PartialSchema for ButtonIndex {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(9)))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^[0-9]$")))
            .description(Some("The template button's position, from 0: a number or a string of its digit."))
            .into()
    }
}

impl ToSchema for ButtonIndex {}

/// An activity's status.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ActivityStatusName {
    Open,
    Closed,
    Pending,
}

/// A contact's channel.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ChannelTypeName {
    Whatsapp,
    Instagram,
    Messenger,
    Email,
    Sms,
    Webchat,
}

/// A campaign send's delivery status.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ExecutionStatusName {
    Sent,
    Delivered,
    Read,
    Failed,
}

/// How a template writes its placeholders.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "UPPERCASE")]
pub enum ParameterFormatName {
    Positional,
    Named,
}

/// A button component's kind, as the platform names it (any case is read).
#[derive(Debug, ToSchema)]
#[schema(rename_all = "snake_case")]
pub enum ButtonSubTypeName {
    QuickReply,
    Url,
    CopyCode,
    Catalog,
    Flow,
}

/// A latitude or longitude in degrees: a number, or its decimal string as the platform's own
/// examples write it (`"37.483307"`).
pub struct Coordinate;

impl utoipa::PartialSchema for Coordinate {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(ObjectBuilder::new().schema_type(Type::Number).minimum(Some(-180)).maximum(Some(180)))
            .item(ObjectBuilder::new().schema_type(Type::String).pattern(Some("^-?[0-9]{1,3}([.][0-9]+)?$")))
            .description(Some("Degrees: a number or its decimal string."))
            .into()
    }
}

impl ToSchema for Coordinate {}

/// A product's kind.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum ProductKindName {
    Product,
    Service,
}

/// A message's direction.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum MessageDirectionName {
    Inbound,
    Outbound,
    /// A private note of the team: never sent.
    Internal,
}

/// A message's status: `received` for inbound messages; outbound ones move sent → delivered →
/// read, or to failed. A reply is `sending` while Parley waits for the platform's answer, and
/// stays so when that answer was lost (an outage, a crash) until the platform's statuses name it.
/// A private note is `recorded`; a reply or template send waiting for its `send_at` is
/// `scheduled`.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum MessageStatusName {
    Received,
    Sending,
    Sent,
    Delivered,
    Read,
    Failed,
    /// A private note (`direction: internal`): stored, never sent.
    Recorded,
    /// Waiting for its `send_at`: the workers send it then; it may be cancelled until.
    Scheduled,
}

/// A message's kind.
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum MessageTypeName {
    Text,
    Image,
    Video,
    Audio,
    Document,
    Sticker,
    Share,
    #[schema(rename = "story_mention")]
    StoryMention,
    Location,
    Contacts,
    Interactive,
    Button,
    Reaction,
    Order,
    /// A contact's answer to a WhatsApp Flow (`flow_reply` holds it).
    #[schema(rename = "flow_reply")]
    FlowReply,
    /// A notice of the platform about the contact (`content.system.type`:
    /// `user_changed_number`, `user_changed_user_id`), `direction: internal`.
    System,
    Template,
    Email,
    Product,
    Cart,
    Note,
    Unsupported,
}

/// An event type. Both event-type schemas are built from the domain's list, which names
/// nine types that a hand-written enum had to repeat twice.
pub struct EventTypeName;

/// An event type an endpoint can subscribe to (every one but `ping`, which is sent on request).
pub struct SubscribableEventName;

fn event_type_enum(
    description: &str,
    types: impl Iterator<Item = parley_domain::model::EventType>,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(types.map(|t| t.as_str())))
        .description(Some(description))
        .into()
}

impl utoipa::PartialSchema for EventTypeName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use parley_domain::model::EventType;
        event_type_enum("An event type.", EventType::SUBSCRIBABLE.into_iter().chain([EventType::Ping]))
    }
}

impl ToSchema for EventTypeName {}

impl utoipa::PartialSchema for SubscribableEventName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        event_type_enum(
            "An event type an endpoint can subscribe to (every one but `ping`, which is sent on request).",
            parley_domain::model::EventType::SUBSCRIBABLE.into_iter(),
        )
    }
}

impl ToSchema for SubscribableEventName {}

/// An endpoint's `events`: `["*"]` alone (every type, present and future), or event types.
pub struct EventSelectionSchema;

impl utoipa::PartialSchema for EventSelectionSchema {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::Ref;
        use utoipa::openapi::schema::{ArrayBuilder, OneOfBuilder};
        let everything = ArrayBuilder::new().items(Ref::from_schema_name("EveryEventSchema")).min_items(Some(1)).max_items(Some(1));
        let types = ArrayBuilder::new().items(Ref::from_schema_name("SubscribableEventName")).min_items(Some(1));
        OneOfBuilder::new().item(everything).item(types).into()
    }
}

impl ToSchema for EventSelectionSchema {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push(("SubscribableEventName".into(), <SubscribableEventName as utoipa::PartialSchema>::schema()));
        schemas.push(("EveryEventSchema".into(), every_event()));
    }
}

/// `"*"`: every event type, present and future. Named (`x-enum-varnames`), so a generated
/// client's constant reads `EveryEvent.EVERY_EVENT`, not a number made up for a symbol.
fn every_event() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::extensions::ExtensionsBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(["*"]))
        .description(Some("Every event type, present and future."))
        .extensions(Some(ExtensionsBuilder::new().add("x-enum-varnames", serde_json::json!(["EVERY_EVENT"])).build()))
        .into()
}

#[cfg(test)]
mod tests {
    use parley_domain::model::{ActivityStatus, ChannelType, MessageDirection, MessageStatus, MessageType, ProductKind};
    use utoipa::PartialSchema;

    use super::*;

    /// The values a schema's `enum` lists.
    fn listed<T: PartialSchema>() -> Vec<String> {
        let schema = serde_json::to_value(T::schema()).unwrap();
        schema["enum"].as_array().expect("an enum schema").iter().map(|v| v.as_str().unwrap().to_string()).collect()
    }

    #[test]
    fn the_documented_event_types_are_the_domains() {
        use parley_domain::model::EventType;
        let all: Vec<String> = EventType::SUBSCRIBABLE.iter().chain(&[EventType::Ping]).map(|t| t.as_str().to_string()).collect();
        assert_eq!(listed::<EventTypeName>(), all);
        let subscribable: Vec<String> = EventType::SUBSCRIBABLE.iter().map(|t| t.as_str().to_string()).collect();
        assert_eq!(listed::<SubscribableEventName>(), subscribable);
    }

    #[test]
    fn the_documented_enums_are_the_domains() {
        assert_eq!(listed::<ActivityStatusName>(), ActivityStatus::ALL.map(|s| s.as_str().to_string()));
        assert_eq!(listed::<ChannelTypeName>(), ChannelType::ALL.map(|c| c.as_str().to_string()));
        assert_eq!(listed::<ExecutionStatusName>(), parley_domain::model::ExecutionStatus::ALL.map(|s| s.as_str().to_string()));
        assert_eq!(listed::<ProductKindName>(), ProductKind::ALL.map(|k| k.as_str().to_string()));
        assert_eq!(listed::<ParameterFormatName>(), parley_domain::model::ParameterFormat::ALL.map(|f| f.as_str().to_string()));
        assert_eq!(listed::<ButtonSubTypeName>(), parley_domain::model::ButtonSubType::ALL.map(|s| s.as_str().to_string()));
        assert_eq!(listed::<MessageDirectionName>(), MessageDirection::ALL.map(|d| d.as_str().to_string()));
        assert_eq!(listed::<MessageStatusName>(), MessageStatus::ALL.map(|s| s.as_str().to_string()));
        assert_eq!(listed::<MessageTypeName>(), MessageType::ALL.map(|t| t.as_str().to_string()));
    }
}
