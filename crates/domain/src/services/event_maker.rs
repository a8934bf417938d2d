//! Events as services make them: an id, the time of the change, and the changed object as the
//! API shows it, handed to the repository write that makes the change (the outbox).

use std::sync::Arc;

use crate::model::*;
use crate::ports::{ApiObject, ApiObjects, IdSource};

/// Makes the events a change records: a fresh `evt_…` id, the agent, the type, the time of the
/// change, and the object as the API shows it. It writes nothing: the events go with the write.
#[derive(Clone)]
pub struct EventMaker {
    ids: Arc<dyn IdSource>,
    objects: Arc<dyn ApiObjects>,
}

impl EventMaker {
    /// A maker drawing event ids from `ids` and rendering objects through `objects`.
    pub fn new(ids: Arc<dyn IdSource>, objects: Arc<dyn ApiObjects>) -> Self {
        Self { ids, objects }
    }

    /// An event of `event_type` reporting `object` as changed at `at`.
    pub fn make(&self, agent: &AgentId, event_type: EventType, at: Timestamp, object: ApiObject<'_>) -> Event {
        Event {
            id: EventId::new(self.ids.new_id(IdKind::Event)),
            agent_id: agent.clone(),
            event_type,
            created_at: at,
            data: serde_json::json!({ "object": self.objects.render(object) }),
        }
    }

    /// An event reporting the object `id` erased at `at`: nothing of it but its id, as a
    /// `DELETE` answers (`{"id": …, "deleted": true}`).
    pub fn make_deleted(&self, agent: &AgentId, event_type: EventType, at: Timestamp, id: &str) -> Event {
        Event {
            id: EventId::new(self.ids.new_id(IdKind::Event)),
            agent_id: agent.clone(),
            event_type,
            created_at: at,
            data: serde_json::json!({ "object": { "id": id, "deleted": true } }),
        }
    }
}

/// For unit tests: objects shown as `{"kind": …}`, with a real id source behind the mock's ids.
#[cfg(test)]
pub(crate) fn test_objects() -> Arc<dyn ApiObjects> {
    let mut objects = crate::ports::MockApiObjects::new();
    objects.expect_render().returning(|o| {
        let kind = match o {
            ApiObject::WebhookEndpoint(_) => "webhook_endpoint",
            ApiObject::Contact(_) => "contact",
            ApiObject::Activity(_) => "activity",
            ApiObject::Message(_) => "message",
            ApiObject::Cart(_) => "cart",
            ApiObject::Execution(_) => "execution",
            ApiObject::Template(_) => "template",
            ApiObject::Tag(_) => "tag",
        };
        serde_json::json!({ "kind": kind })
    });
    Arc::new(objects)
}
