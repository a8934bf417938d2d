//! Events as services make them: an id, the time of the change, and a snapshot of the changed
//! object, handed to the repository write that makes the change (the outbox). The API renders
//! the snapshot when it shows or sends the event.

use std::sync::Arc;

use crate::model::*;
use crate::ports::IdSource;

/// Makes the events a change records: a fresh `evt_…` id, the agent, the type, the time of the
/// change, and the object. It writes nothing: the events go with the write.
#[derive(Clone)]
pub struct EventMaker {
    ids: Arc<dyn IdSource>,
    origin: EventOrigin,
}

impl EventMaker {
    /// A maker drawing event ids from `ids`.
    pub fn new(ids: Arc<dyn IdSource>) -> Self {
        Self { ids, origin: EventOrigin::Outside }
    }

    /// The same maker for the changes a rule makes: its events run no rules.
    pub fn by_rules(self) -> Self {
        Self { origin: EventOrigin::Rule, ..self }
    }

    /// An event of `event_type` reporting `object` as changed at `at`.
    pub fn make(&self, agent: &AgentId, event_type: EventType, at: Timestamp, object: impl Into<EventObject>) -> Event {
        Event {
            id: EventId::new(self.ids.new_id(IdKind::Event)),
            agent_id: agent.clone(),
            event_type,
            created_at: at,
            object: object.into(),
            origin: self.origin,
        }
    }

    /// An event reporting the object `id` removed at `at`: nothing of it but its id, as a
    /// `DELETE` answers (`{"id": …, "deleted": true}`).
    pub fn make_deleted(&self, agent: &AgentId, event_type: EventType, at: Timestamp, id: &str) -> Event {
        self.make(agent, event_type, at, EventObject::Deleted { id: id.to_string() })
    }
}
