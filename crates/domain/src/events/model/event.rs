//! Events: a change as the API showed its object at that moment, for the events list and the
//! webhook endpoints that subscribe to its type. Written in the transaction that makes the
//! change (an outbox), so a change that rolls back emits nothing and a committed one is never
//! lost.

use std::fmt;

use crate::FieldError;
use crate::model::{AgentId, EventId, Timestamp};

/// What happened. The wire names are Stripe's style: `resource.verb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventType {
    /// An inbound message was stored.
    MessageReceived,
    /// An outbound message the platform accepted was stored: a template send, a reply once the
    /// platform took it, a message the business sent from the platform's own app. Once each.
    MessageSent,
    /// An outbound message's status moved (sent, delivered, read, failed).
    MessageUpdated,
    /// A new conversation: someone new wrote or was sent to, or the team opened one.
    ActivityCreated,
    /// Status, assignee, contact name or tags changed.
    ActivityUpdated,
    /// An open conversation's first response came due unanswered (the agent's target, counted
    /// in business hours): once per opening.
    ActivityFirstResponseMissed,
    /// A contact was made: through the API, or someone new wrote or was sent to.
    ContactCreated,
    /// A contact's fields changed: through the API, a rename through its activity, or a new
    /// profile name from the platform.
    ContactUpdated,
    /// A storefront made a shareable cart (the handover).
    CartCreated,
    /// A template send's execution moved.
    ExecutionUpdated,
    /// A template sync changed a template's status.
    TemplateUpdated,
    /// A private note was added to an activity's timeline.
    NoteCreated,
    /// A contact was erased with its conversation (`DELETE /v1/contacts/:id`): the event
    /// carries only the id.
    ContactDeleted,
    /// A tag was made.
    TagCreated,
    /// A tag's name, color or description changed (a rename shows in every activity carrying it).
    TagUpdated,
    /// A tag was deleted and detached from every activity: the event carries only the id.
    TagDeleted,
    /// A test delivery (`POST /v1/webhook_endpoints/:id/test`); never subscribed to.
    Ping,
}

impl EventType {
    /// Every type an endpoint can subscribe to, in documentation order.
    pub const SUBSCRIBABLE: [EventType; 16] = [
        EventType::MessageReceived,
        EventType::MessageSent,
        EventType::MessageUpdated,
        EventType::ActivityCreated,
        EventType::ActivityUpdated,
        EventType::ActivityFirstResponseMissed,
        EventType::ContactCreated,
        EventType::ContactUpdated,
        EventType::CartCreated,
        EventType::ExecutionUpdated,
        EventType::TemplateUpdated,
        EventType::NoteCreated,
        EventType::ContactDeleted,
        EventType::TagCreated,
        EventType::TagUpdated,
        EventType::TagDeleted,
    ];

    /// The wire name (`message.received`, `ping`…).
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::MessageReceived => "message.received",
            EventType::MessageSent => "message.sent",
            EventType::MessageUpdated => "message.updated",
            EventType::ActivityCreated => "activity.created",
            EventType::ActivityUpdated => "activity.updated",
            EventType::ActivityFirstResponseMissed => "activity.first_response_missed",
            EventType::ContactCreated => "contact.created",
            EventType::ContactUpdated => "contact.updated",
            EventType::CartCreated => "cart.created",
            EventType::ExecutionUpdated => "execution.updated",
            EventType::TemplateUpdated => "template.updated",
            EventType::NoteCreated => "note.created",
            EventType::ContactDeleted => "contact.deleted",
            EventType::TagCreated => "tag.created",
            EventType::TagUpdated => "tag.updated",
            EventType::TagDeleted => "tag.deleted",
            EventType::Ping => "ping",
        }
    }

    /// Exactly a wire name (`ping` included: the events list can be filtered by it).
    pub fn parse(raw: &str) -> Option<Self> {
        Self::SUBSCRIBABLE.into_iter().chain([EventType::Ping]).find(|t| t.as_str() == raw)
    }
}

impl fmt::Display for EventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The types an endpoint receives: at least one, each once, in [`EventType::SUBSCRIBABLE`]
/// order; `*` subscribes to every type, present and future.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventSelection {
    /// `*`: every subscribable type, present and future.
    All,
    /// These types, at least one, each once, in [`EventType::SUBSCRIBABLE`] order.
    Only(Vec<EventType>),
}

impl EventSelection {
    /// From the request's `events`: wire names, or `["*"]`.
    pub fn new(raw: &[String]) -> Result<Self, FieldError> {
        if raw.is_empty() {
            return Err(FieldError::new("events", "must name at least one event type, or \"*\" for all"));
        }
        if raw.iter().any(|r| r == "*") {
            return if raw.len() == 1 {
                Ok(EventSelection::All)
            } else {
                Err(FieldError::new("events", "\"*\" already selects every type: list it alone"))
            };
        }
        let mut types = Vec::with_capacity(raw.len());
        for (i, name) in raw.iter().enumerate() {
            match EventType::parse(name).filter(|t| *t != EventType::Ping) {
                Some(t) => types.push(t),
                None => {
                    let known: Vec<&str> = EventType::SUBSCRIBABLE.iter().map(|t| t.as_str()).collect();
                    return Err(FieldError::new(format!("events[{i}]"), format!("must be one of {}, or \"*\"", known.join(", "))));
                }
            }
        }
        types.sort();
        types.dedup();
        Ok(EventSelection::Only(types))
    }

    /// Whether an event of type `t` goes to the endpoint (a ping goes wherever it is sent).
    pub fn includes(&self, t: EventType) -> bool {
        match self {
            EventSelection::All => t != EventType::Ping,
            EventSelection::Only(types) => types.contains(&t),
        }
    }

    /// The wire names, as the API shows them (`["*"]` for all).
    pub fn names(&self) -> Vec<&'static str> {
        match self {
            EventSelection::All => vec!["*"],
            EventSelection::Only(types) => types.iter().map(|t| t.as_str()).collect(),
        }
    }
}

/// One event: what changed, when, and a snapshot of the object right after the change.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `evt_…`: also the `webhook-id` of each delivery, the same on every retry.
    pub id: EventId,
    /// The agent whose change it reports: only its endpoints receive it.
    pub agent_id: AgentId,
    /// What happened.
    pub event_type: EventType,
    /// When the change was made.
    pub created_at: Timestamp,
    /// The object right after the change (its id alone for `contact.deleted`).
    pub object: crate::model::EventObject,
    /// Who made the change: what a rule does is reported like any change, but runs no rules.
    pub origin: EventOrigin,
}

/// Who made the change an event reports. Rules run on changes made from outside them (the
/// API, the platforms, the team); a change a rule makes runs no rules, so rules cannot loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EventOrigin {
    /// The API, a platform's webhook, a member, an operator's command.
    #[default]
    Outside,
    /// A rule's action.
    Rule,
}

impl EventOrigin {
    /// Whether the change may run rules.
    pub fn runs_rules(self) -> bool {
        self == EventOrigin::Outside
    }
}

/// A delivery to make: an event to one endpoint, after `attempts` failed tries.
#[derive(Debug, Clone, PartialEq)]
pub struct DueDelivery {
    /// The event to send.
    pub event: Event,
    /// Where to send it, as the claim read the endpoint.
    pub endpoint: crate::model::WebhookEndpoint,
    /// Tries already made of this delivery.
    pub attempts: u32,
}

/// An enabled endpoint with deliveries due, as the delivery worker sees it when choosing
/// whose deliveries to claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueEndpoint {
    /// The endpoint.
    pub id: crate::model::EndpointId,
    /// Its agent.
    pub agent_id: crate::model::AgentId,
    /// Failed since its last success: the worker sends it one delivery at a time (a probe).
    pub failing: bool,
}

/// Which events a list shows: of one type, created after an instant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventFilter {
    /// Only events of this type; every type when `None`.
    pub event_type: Option<EventType>,
    /// Only events created after this instant (not at it); all when `None`.
    pub since: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(raw: &[&str]) -> Vec<String> {
        raw.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_type_parses_from_its_wire_name() {
        for t in EventType::SUBSCRIBABLE.into_iter().chain([EventType::Ping]) {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
        }
        assert_eq!(EventType::parse("Message.Received"), None);
        assert_eq!(EventType::parse("message"), None);
    }

    #[test]
    fn a_selection_is_sorted_each_once_and_never_empty() {
        let s = EventSelection::new(&names(&["contact.created", "message.received", "contact.created"])).unwrap();
        assert_eq!(s.names(), vec!["message.received", "contact.created"]);
        assert!(s.includes(EventType::ContactCreated) && !s.includes(EventType::ContactUpdated));
        assert!(EventSelection::new(&[]).is_err());
        let e = EventSelection::new(&names(&["contact.created", "nope"])).unwrap_err();
        assert_eq!(e.field, "events[1]");
        assert!(EventSelection::new(&names(&["ping"])).is_err(), "ping is sent on request, never subscribed");
    }

    #[test]
    fn star_selects_every_type_but_ping_and_stands_alone() {
        let all = EventSelection::new(&names(&["*"])).unwrap();
        assert!(EventType::SUBSCRIBABLE.into_iter().all(|t| all.includes(t)));
        assert!(!all.includes(EventType::Ping));
        assert_eq!(all.names(), vec!["*"]);
        assert!(EventSelection::new(&names(&["*", "contact.created"])).is_err());
    }
}
