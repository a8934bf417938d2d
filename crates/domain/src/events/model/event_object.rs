//! What an event reports: an owned snapshot of the object right after the change, kept as
//! domain data. The API renders it with the same representation a `GET` answers with when it
//! lists the event or signs a delivery, so an event and a `GET` at that moment agree, and no
//! service needs a renderer to make one.
//!
//! Stored as a versioned JSON document ([`Event::to_stored`]): version 1 holds the snapshot;
//! rows written before snapshots (no `"v"`) hold the object as the API showed it then, read back
//! as [`EventObject::Shown`] and served as they are.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{
    ActivityView, AgentId, Cart, Contact, Event, EventId, EventOrigin, EventType, Execution, Message, PublicEndpoint, Tag, Template,
};

/// The snapshot an event carries.
// Externally tagged (`{"contact": {…}}`): an internally tagged enum is read through serde's
// buffer, which cannot carry the exact decimal numbers prices are kept as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventObject {
    /// A contact, for `contact.created` and `contact.updated`.
    Contact(Box<Contact>),
    /// An activity as its list shows it, for `activity.*`.
    Activity(Box<ActivityView>),
    /// A message or note, for `message.*` and `note.created`.
    Message(Box<Message>),
    /// A cart, for `cart.created`.
    Cart(Box<Cart>),
    /// A template send, for `execution.updated`.
    Execution(Box<Execution>),
    /// A template, for `template.updated`.
    Template(Box<Template>),
    /// A tag, for `tag.created` and `tag.updated`.
    Tag(Box<Tag>),
    /// An endpoint without its keys, for `ping`.
    WebhookEndpoint(Box<PublicEndpoint>),
    /// An object removed by a `DELETE` (`contact.deleted`, `tag.deleted`): its id alone, as the
    /// `DELETE` answered.
    Deleted {
        /// The removed object's id.
        id: String,
    },
    /// An object whose contact was erased since: its id alone, nothing of what it said.
    Erased {
        /// The object's id.
        id: String,
    },
    /// The object exactly as the API showed it, from an event stored before snapshots.
    Shown {
        /// The API's representation at the time.
        object: Value,
    },
}

macro_rules! from_owned {
    ($($variant:ident($ty:ty)),* $(,)?) => {$(
        impl From<&$ty> for EventObject {
            fn from(value: &$ty) -> Self {
                EventObject::$variant(Box::new(value.clone()))
            }
        }
    )*};
}

from_owned!(
    Contact(Contact),
    Activity(ActivityView),
    Message(Message),
    Cart(Cart),
    Execution(Execution),
    Template(Template),
    Tag(Tag),
    WebhookEndpoint(PublicEndpoint),
);

/// The stored form's version that holds a snapshot.
const SNAPSHOT_VERSION: u32 = 1;

/// How version 1 is stored.
#[derive(Serialize, Deserialize)]
struct StoredV1<O> {
    v: u32,
    id: String,
    #[serde(rename = "type")]
    event_type: String,
    created_at: String,
    object: O,
    /// Set only for a change a rule made (older documents have none: made from outside).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    by_rule: bool,
}

impl Event {
    /// The event as storage keeps it: a versioned document holding the snapshot.
    pub fn to_stored(&self) -> String {
        let stored = StoredV1 {
            v: SNAPSHOT_VERSION,
            id: self.id.as_str().to_string(),
            event_type: self.event_type.as_str().to_string(),
            created_at: crate::model::format_timestamp(self.created_at),
            object: &self.object,
            by_rule: self.origin == EventOrigin::Rule,
        };
        // Domain values are plain data (strings, numbers, maps with string keys).
        serde_json::to_string(&stored).unwrap_or_else(|e| unreachable!("an event always serializes: {e}"))
    }

    /// An event from what [`to_stored`](Self::to_stored) wrote for `agent`, or from an event
    /// stored before snapshots (the API's own body: `{"id","type","created_at","data"}`).
    pub fn from_stored(agent: AgentId, stored: &str) -> Result<Self, String> {
        // `to_stored` writes the version first, so its prefix tells the forms apart without
        // reading the text twice (the events list reads every row of its page).
        let (id, event_type, created_at, object, by_rule) = if stored.starts_with(r#"{"v":"#) {
            // Read from the text itself: exact decimals cannot pass through a `Value`.
            let v1: StoredV1<EventObject> =
                serde_json::from_str(stored).map_err(|e| format!("stored event's snapshot does not read back: {e}"))?;
            if v1.v != SNAPSHOT_VERSION {
                return Err(format!("stored event has version {}, newer than this build reads", v1.v));
            }
            (v1.id, v1.event_type, v1.created_at, v1.object, v1.by_rule)
        } else {
            let value: Value = serde_json::from_str(stored).map_err(|e| format!("stored event is not JSON: {e}"))?;
            let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string).ok_or(format!("stored event has no {key}"));
            let object = value.pointer("/data/object").cloned().ok_or("stored event has no data.object")?;
            (text("id")?, text("type")?, text("created_at")?, EventObject::Shown { object }, false)
        };
        let event_type = EventType::parse(&event_type).ok_or("stored event has an unknown type")?;
        let created_at = crate::model::parse_timestamp("created_at", &created_at).map_err(|e| e.issue)?;
        let origin = if by_rule { EventOrigin::Rule } else { EventOrigin::Outside };
        Ok(Event { id: EventId::new(id), agent_id: agent, event_type, created_at, object, origin })
    }

    /// The same event with its object reduced to its id: what is left once its contact is
    /// erased.
    pub fn erased(&self) -> Event {
        Event {
            id: self.id.clone(),
            agent_id: self.agent_id.clone(),
            event_type: self.event_type,
            created_at: self.created_at,
            object: EventObject::Erased { id: self.object.id() },
            origin: self.origin,
        }
    }
}

impl EventObject {
    /// The reported object's id (a cart's code).
    pub fn id(&self) -> String {
        match self {
            EventObject::Contact(c) => c.id.as_str().to_string(),
            EventObject::Activity(a) => a.activity.id.as_str().to_string(),
            EventObject::Message(m) => m.id.as_str().to_string(),
            EventObject::Cart(c) => c.code.as_str().to_string(),
            EventObject::Execution(e) => e.id.clone(),
            EventObject::Template(t) => t.definition.id.as_str().to_string(),
            EventObject::Tag(t) => t.id.as_str().to_string(),
            EventObject::WebhookEndpoint(e) => e.id.as_str().to_string(),
            EventObject::Deleted { id } | EventObject::Erased { id } => id.clone(),
            EventObject::Shown { object } => object.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TagColor, TagId, TagName};

    fn tag_event() -> Event {
        let at = chrono::DateTime::from_timestamp_millis(1_767_225_600_123).unwrap();
        let tag = Tag {
            id: TagId::new("tag_1"),
            agent_id: AgentId::new("agt_1"),
            name: TagName::new("VIP \"gold\"").unwrap(),
            color: TagColor::default_color(),
            description: None,
            created_at: at,
            updated_at: at,
        };
        Event {
            id: EventId::new("evt_1"),
            agent_id: AgentId::new("agt_1"),
            event_type: EventType::TagCreated,
            created_at: at,
            object: (&tag).into(),
            origin: EventOrigin::Outside,
        }
    }

    #[test]
    fn a_snapshot_is_stored_versioned_and_reads_back_equal() {
        let event = tag_event();
        let stored = event.to_stored();
        assert!(
            stored.starts_with(r#"{"v":1,"id":"evt_1","type":"tag.created","created_at":"2026-01-01T00:00:00.123Z","object":{"tag":{"#)
        );
        assert_eq!(Event::from_stored(AgentId::new("agt_1"), &stored).unwrap(), event);
    }

    #[test]
    fn a_rules_change_is_stored_as_one_and_reads_back_so() {
        let event = Event { origin: EventOrigin::Rule, ..tag_event() };
        let stored = event.to_stored();
        assert!(stored.ends_with(r#","by_rule":true}"#), "{stored}");
        assert_eq!(Event::from_stored(AgentId::new("agt_1"), &stored).unwrap(), event);
        assert!(!tag_event().to_stored().contains("by_rule"), "a change from outside adds nothing to the document");
    }

    #[test]
    fn an_event_stored_before_snapshots_reads_as_the_object_shown_then() {
        let shown = r#"{"id":"evt_1","type":"contact.created","created_at":"2026-01-01T00:00:00.123Z","data":{"object":{"id":"con_1","name":"Ana"}}}"#;
        let event = Event::from_stored(AgentId::new("agt_1"), shown).unwrap();
        assert_eq!(event.object, EventObject::Shown { object: serde_json::json!({"id": "con_1", "name": "Ana"}) });
        assert_eq!(event.object.id(), "con_1");
        assert_eq!(event.event_type, EventType::ContactCreated);
    }

    #[test]
    fn stored_text_the_domain_would_refuse_does_not_read_back() {
        let stored = tag_event().to_stored();
        let blank_name = stored.replace(r#""name":"VIP \"gold\"""#, r#""name":"   ""#);
        assert_ne!(blank_name, stored);
        assert!(Event::from_stored(AgentId::new("agt_1"), &blank_name).unwrap_err().contains("name"));
        let newer = stored.replace(r#""v":1"#, r#""v":2"#);
        assert!(Event::from_stored(AgentId::new("agt_1"), &newer).unwrap_err().contains("version 2"));
        assert!(Event::from_stored(AgentId::new("agt_1"), r#"{"id":"evt_1","type":"nope"}"#).is_err());
    }

    #[test]
    fn an_erased_event_keeps_only_its_objects_id() {
        let erased = tag_event().erased();
        assert_eq!(erased.object, EventObject::Erased { id: "tag_1".into() });
        assert_eq!(erased.id.as_str(), "evt_1");
    }
}
