//! The event outbox: an event and one delivery, due at once, per endpoint that is to receive it.
//! Every write that reports a change checks its events first ([`State::check_events`]), changes
//! its tables, then emits them ([`State::emit_all`]) under the same lock: the change and its
//! events are kept together or not at all, and a write that changes nothing emits nothing.

use std::collections::BTreeSet;

use parley_domain::model::*;
use parley_domain::ports::StoreResult;

use crate::store::{Delivery, State, conflict};

impl State {
    /// Refuses `events` (before anything is written) when one would clash with a stored event's
    /// id or with another of them, as the events table's key would.
    pub(crate) fn check_events(&self, events: &[Event]) -> StoreResult<()> {
        let mut seen = BTreeSet::new();
        for event in events {
            if self.events.contains_key(&event.id) || !seen.insert(&event.id) {
                return Err(conflict(format!("event {} already stored", event.id)));
            }
        }
        Ok(())
    }

    /// Stores `event` with a delivery due at its creation: to `only` alone when given (one of
    /// its agent's endpoints, enabled or not: a test ping), else to each of its agent's enabled
    /// endpoints subscribed to its type. Call [`check_events`](Self::check_events) first.
    pub(crate) fn emit(&mut self, event: &Event, only: Option<&EndpointId>) {
        let receivers: Vec<EndpointId> = self
            .endpoints
            .values()
            .map(|stored| &stored.endpoint)
            .filter(|e| e.agent_id == event.agent_id)
            .filter(|e| match only {
                Some(only) => &e.id == only,
                // `*` takes every type, as the databases' `events = '*'` does.
                None => e.enabled() && (e.events == EventSelection::All || e.events.includes(event.event_type)),
            })
            .map(|e| e.id.clone())
            .collect();
        for endpoint in receivers {
            let delivery = Delivery { event_created_at: event.created_at, attempts: 0, next_attempt_at: Some(event.created_at) };
            self.deliveries.insert((event.id.clone(), endpoint), delivery);
        }
        // Queued for the rule engine as the databases' `queue_for_rules!` does: an enabled
        // rule for its type, or an away message for a contact's message.
        let away =
            |on| on == RuleTrigger::MessageReceived && self.business_hours.get(&event.agent_id).is_some_and(|h| h.away_message().is_some());
        if let Some(on) = RuleTrigger::of_event(event)
            && (self.rules.values().any(|r| r.agent_id == event.agent_id && r.on == on && r.enabled) || away(on))
        {
            self.rule_queue.insert(event.id.clone(), (event.created_at, event.created_at));
        }
        self.events.insert(event.id.clone(), event.clone());
    }

    /// [`emit`](Self::emit) for each of the events a change reports.
    pub(crate) fn emit_all(&mut self, events: &[Event]) {
        for event in events {
            self.emit(event, None);
        }
    }
}
