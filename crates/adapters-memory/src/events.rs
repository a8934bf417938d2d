//! `EventRepository`: events (written by the outbox, `outbox.rs`), their deliveries to webhook
//! endpoints and the attempts made. A claim moves a delivery's next attempt to the end of its
//! lease: until then no other claim takes it, and an attempt is recorded only under the claim
//! that still holds it.

use async_trait::async_trait;
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{EventRepository, StoreResult};

use crate::store::{Delivery, MemoryStore, State, conflict, page_of};

impl State {
    /// Whether the endpoint's deliveries may go at `now`: it exists, is enabled, and its breaker
    /// is not open.
    fn sending_to(&self, endpoint: &EndpointId, now: Timestamp) -> bool {
        self.endpoints.get(endpoint).is_some_and(|e| e.endpoint.enabled() && e.endpoint.paused_until.is_none_or(|until| until <= now))
    }

    /// Takes up to `limit` deliveries due by `now` (of `only` alone when given), oldest event
    /// first, until `until`, and returns them as they are now.
    fn claim(&mut self, now: Timestamp, until: Timestamp, limit: u32, only: Option<&EndpointId>) -> Vec<DueDelivery> {
        let mut due: Vec<(Timestamp, EventId, EndpointId)> = self
            .deliveries
            .iter()
            .filter(|((_, endpoint), d)| only.is_none_or(|only| endpoint == only) && d.next_attempt_at.is_some_and(|at| at <= now))
            .filter(|((_, endpoint), _)| self.sending_to(endpoint, now))
            .map(|((event, endpoint), d)| (d.event_created_at, event.clone(), endpoint.clone()))
            .collect();
        due.sort();
        due.truncate(limit as usize);
        let mut claimed = Vec::with_capacity(due.len());
        for (_, event, endpoint) in due {
            let Some(delivery) = self.deliveries.get_mut(&(event.clone(), endpoint.clone())) else { continue };
            delivery.next_attempt_at = Some(until);
            let attempts = delivery.attempts;
            if let (Some(event), Some(endpoint)) = (self.events.get(&event), self.endpoints.get(&endpoint)) {
                claimed.push(DueDelivery { event: event.clone(), endpoint: endpoint.endpoint.clone(), attempts });
            }
        }
        if let Some(endpoint) = only.and_then(|id| self.endpoints.get_mut(id)) {
            // Served now, whatever was taken: to the back of the rotation.
            endpoint.served_at = Some(now);
        }
        claimed
    }
}

#[async_trait]
impl EventRepository for MemoryStore {
    async fn emit<'a>(&self, event: &Event, only: Option<&'a EndpointId>) -> StoreResult<()> {
        self.with(|s| {
            s.check_events(std::slice::from_ref(event))?;
            s.emit(event, only);
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &EventId) -> StoreResult<Option<Event>> {
        Ok(self.with(|s| s.events.get(id).filter(|e| &e.agent_id == agent).cloned()))
    }

    async fn after<'a>(&self, agent: Option<&'a AgentId>, cursor: &EventCursor, limit: u32) -> StoreResult<Vec<Event>> {
        let mut matching: Vec<Event> = self.with(|s| {
            s.events.values().filter(|e| agent.is_none_or(|a| &e.agent_id == a) && cursor.precedes(e.created_at, &e.id)).cloned().collect()
        });
        matching.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        matching.truncate(limit as usize);
        Ok(matching)
    }

    async fn list(&self, agent: &AgentId, filter: &EventFilter, page: PageRequest) -> StoreResult<Page<Event>> {
        let mut matching: Vec<Event> = self.with(|s| {
            s.events
                .values()
                .filter(|e| &e.agent_id == agent)
                .filter(|e| filter.event_type.is_none_or(|t| e.event_type == t) && filter.since.is_none_or(|since| e.created_at > since))
                .cloned()
                .collect()
        });
        matching.sort_by(|x, y| (y.created_at, &y.id).cmp(&(x.created_at, &x.id)));
        Ok(page_of(matching, page))
    }

    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>> {
        Ok(self.with(|s| s.claim(now, until, limit, None)))
    }

    async fn claim_due_for(&self, endpoint: &EndpointId, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>> {
        Ok(self.with(|s| s.claim(now, until, limit, Some(endpoint))))
    }

    async fn due_endpoints(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<DueEndpoint>> {
        Ok(self.with(|s| {
            let mut due: Vec<(Option<Timestamp>, &WebhookEndpoint)> = s
                .endpoints
                .values()
                .filter(|e| s.sending_to(&e.endpoint.id, now))
                .filter(|e| s.deliveries.iter().any(|((_, to), d)| to == &e.endpoint.id && d.next_attempt_at.is_some_and(|at| at <= now)))
                .map(|e| (e.served_at, &e.endpoint))
                .collect();
            // The least recently served first (never served before all), then by id.
            due.sort_by(|x, y| (x.0, &x.1.id).cmp(&(y.0, &y.1.id)));
            due.into_iter()
                .take(limit as usize)
                .map(|(_, e)| DueEndpoint { id: e.id.clone(), agent_id: e.agent_id.clone(), failing: e.failing_since.is_some() })
                .collect()
        }))
    }

    async fn record_attempt(&self, attempt: &DeliveryAttempt, until: Timestamp, after: EndpointAfterAttempt) -> StoreResult<bool> {
        self.with(|s| {
            let key = (attempt.event_id.clone(), attempt.endpoint_id.clone());
            if s.deliveries.get(&key).filter(|d| d.next_attempt_at == Some(until)).is_none() {
                return Ok(false);
            }
            // An attempt is recorded once under its number, as the attempts' key says.
            if s.attempts
                .iter()
                .any(|a| a.event_id == attempt.event_id && a.endpoint_id == attempt.endpoint_id && a.attempt == attempt.attempt)
            {
                return Err(conflict(format!(
                    "attempt {} of event {} to {} already recorded",
                    attempt.attempt, attempt.event_id, attempt.endpoint_id
                )));
            }
            let Some(delivery) = s.deliveries.get_mut(&key) else { return Ok(false) };
            delivery.attempts = attempt.attempt;
            delivery.next_attempt_at = attempt.next_attempt_at;
            s.attempts.push(attempt.clone());
            if let Some(stored) = s.endpoints.get_mut(&attempt.endpoint_id) {
                let endpoint = &mut stored.endpoint;
                match after {
                    EndpointAfterAttempt::Unchanged => {}
                    EndpointAfterAttempt::Healthy => (endpoint.failing_since, endpoint.paused_until) = (None, None),
                    EndpointAfterAttempt::Failing => {
                        // The first failure since the last success is the one kept.
                        endpoint.failing_since.get_or_insert(attempt.attempted_at);
                    }
                    EndpointAfterAttempt::Pause(until) => endpoint.paused_until = Some(until),
                    EndpointAfterAttempt::Disable => {
                        endpoint.disabled.get_or_insert(Disabled { at: attempt.attempted_at, reason: DisabledReason::Failing });
                    }
                }
            }
            Ok(true)
        })
    }

    async fn attempts(&self, agent: &AgentId, endpoint: &EndpointId, page: PageRequest) -> StoreResult<Page<DeliveryAttempt>> {
        let mut attempts: Vec<DeliveryAttempt> = self.with(|s| {
            if s.endpoint_of(agent, endpoint).is_none() {
                return Err(StoreError::NotFound("webhook endpoint"));
            }
            Ok(s.attempts.iter().filter(|a| &a.endpoint_id == endpoint).cloned().collect())
        })?;
        attempts.sort_by(|x, y| (y.attempted_at, &y.event_id, y.attempt).cmp(&(x.attempted_at, &x.event_id, x.attempt)));
        Ok(page_of(attempts, page))
    }

    async fn redeliver(&self, agent: &AgentId, event: &EventId, endpoint: &EndpointId, now: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(created_at) = s.events.get(event).filter(|e| &e.agent_id == agent).map(|e| e.created_at) else { return false };
            if s.endpoint_of(agent, endpoint).is_none() {
                return false;
            }
            // Due now; its attempts keep counting (a first delivery there starts from none).
            let delivery = s.deliveries.entry((event.clone(), endpoint.clone())).or_insert(Delivery {
                event_created_at: created_at,
                attempts: 0,
                next_attempt_at: None,
            });
            delivery.next_attempt_at = Some(now);
            true
        }))
    }

    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        Ok(self.with(|s| {
            let mut old: Vec<(Timestamp, EventId)> =
                s.events.values().filter(|e| e.created_at < before).map(|e| (e.created_at, e.id.clone())).collect();
            old.sort();
            old.truncate(limit as usize);
            for (_, id) in &old {
                // With its deliveries and their attempts.
                s.events.remove(id);
                s.deliveries.retain(|(event, _), _| event != id);
                s.attempts.retain(|a| &a.event_id != id);
                s.rule_queue.remove(id);
            }
            old.len() as u64
        }))
    }

    async fn backlog(&self) -> StoreResult<u64> {
        Ok(self.with(|s| s.deliveries.values().filter(|d| d.next_attempt_at.is_some()).count() as u64))
    }
}
