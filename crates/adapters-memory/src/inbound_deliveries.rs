//! `InboundDeliveryRepository`: the platforms' webhook deliveries as received, to be processed.
//! An unprocessed delivery always has a next attempt, except once given up; a claim moves the
//! next attempt to the end of its lease, which is how a claim is told from another.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{InboundDeliveryRepository, StoreResult};

use crate::store::{MemoryStore, State, conflict};

impl State {
    /// Unprocessed deliveries due by `now`, oldest first, at most `limit`.
    fn due_deliveries(&self, now: Timestamp, limit: u32) -> Vec<String> {
        let mut due: Vec<&InboundDelivery> =
            self.webhook_events.values().filter(|w| w.processed_at.is_none() && w.next_attempt_at.is_some_and(|at| at <= now)).collect();
        due.sort_by(|x, y| (x.received_at, &x.id).cmp(&(y.received_at, &y.id)));
        due.into_iter().take(limit as usize).map(|w| w.id.clone()).collect()
    }

    /// The deliveries `ids`, in the order given, those known.
    fn deliveries_by_id(&self, ids: &[String]) -> Vec<InboundDelivery> {
        ids.iter().filter_map(|id| self.webhook_events.get(id)).cloned().collect()
    }
}

/// Given up on: failed for good, not processed.
fn given_up(w: &InboundDelivery) -> bool {
    w.failed_at.is_some() && w.processed_at.is_none()
}

/// Due now with a fresh count of attempts, unprocessed; the last error and what was set aside
/// stay until the next processing.
fn back_to_processing(w: &mut InboundDelivery, now: Timestamp) {
    w.failed_at = None;
    w.next_attempt_at = Some(now);
    w.attempts = 0;
    w.processed_at = None;
}

#[async_trait]
impl InboundDeliveryRepository for MemoryStore {
    async fn insert(&self, event: &InboundDelivery) -> StoreResult<()> {
        self.with(|s| {
            if s.webhook_events.contains_key(&event.id) {
                return Err(conflict(format!("webhook delivery {} already stored", event.id)));
            }
            // An unprocessed delivery is due (on receipt unless told otherwise); a processed or
            // given-up one never is.
            let next_attempt_at = match (event.processed_at, event.failed_at) {
                (None, None) => Some(event.next_attempt_at.unwrap_or(event.received_at)),
                _ => None,
            };
            s.webhook_events.insert(event.id.clone(), InboundDelivery { next_attempt_at, ..event.clone() });
            Ok(())
        })
    }

    async fn due(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        Ok(self.with(|s| s.deliveries_by_id(&s.due_deliveries(now, limit))))
    }

    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        Ok(self.with(|s| {
            let ids = s.due_deliveries(now, limit);
            for id in &ids {
                if let Some(w) = s.webhook_events.get_mut(id) {
                    w.next_attempt_at = Some(until);
                }
            }
            s.deliveries_by_id(&ids)
        }))
    }

    async fn release(&self, ids: &[String], until: Timestamp, at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            for id in ids {
                // Only what this claim still holds: unprocessed, with its lease's end.
                if let Some(w) = s.webhook_events.get_mut(id)
                    && w.processed_at.is_none()
                    && w.next_attempt_at == Some(until)
                {
                    w.next_attempt_at = Some(at);
                }
            }
        });
        Ok(())
    }

    async fn mark_processed(&self, ids: &[String], at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            for id in ids {
                if let Some(w) = s.webhook_events.get_mut(id) {
                    w.processed_at = Some(at);
                    w.next_attempt_at = None;
                    w.set_aside.clear();
                }
            }
        });
        Ok(())
    }

    async fn mark_set_aside(&self, id: &str, set_aside: &[SetAside], at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            if let Some(w) = s.webhook_events.get_mut(id) {
                w.processed_at = Some(at);
                w.next_attempt_at = None;
                w.set_aside = set_aside.to_vec();
            }
        });
        Ok(())
    }

    async fn mark_failed(&self, id: &str, error: &str, next_attempt_at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            if let Some(w) = s.webhook_events.get_mut(id) {
                w.attempts += 1;
                w.last_error = Some(error.to_string());
                w.next_attempt_at = Some(next_attempt_at);
            }
        });
        Ok(())
    }

    async fn give_up(&self, id: &str, error: &str, at: Timestamp) -> StoreResult<()> {
        self.with(|s| {
            // A processed delivery cannot be given up.
            if let Some(w) = s.webhook_events.get_mut(id)
                && w.processed_at.is_none()
            {
                w.attempts += 1;
                w.last_error = Some(error.to_string());
                w.next_attempt_at = None;
                w.failed_at = Some(at);
            }
        });
        Ok(())
    }

    async fn failed(&self, limit: u32) -> StoreResult<Vec<InboundDelivery>> {
        let mut failed: Vec<InboundDelivery> = self.with(|s| {
            s.webhook_events
                .values()
                .filter(|w| {
                    let retried = w.next_attempt_at.is_some() && w.last_error.is_some();
                    (w.processed_at.is_none() && (w.failed_at.is_some() || retried)) || !w.set_aside.is_empty()
                })
                .cloned()
                .collect()
        });
        failed.sort_by(|x, y| (x.received_at, &x.id).cmp(&(y.received_at, &y.id)));
        failed.truncate(limit as usize);
        Ok(failed)
    }

    async fn retry(&self, id: &str, now: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let Some(w) = s.webhook_events.get_mut(id) else { return false };
            let set_aside = !w.set_aside.is_empty() && w.processed_at.is_some();
            if !(given_up(w) || set_aside) {
                return false;
            }
            back_to_processing(w, now);
            true
        }))
    }

    async fn retry_all(&self, now: Timestamp) -> StoreResult<u64> {
        Ok(self.with(|s| {
            let mut retried = 0;
            for w in s.webhook_events.values_mut().filter(|w| given_up(w)) {
                back_to_processing(w, now);
                retried += 1;
            }
            retried
        }))
    }

    async fn backlog(&self) -> StoreResult<u64> {
        Ok(self.with(|s| s.webhook_events.values().filter(|w| w.next_attempt_at.is_some() && w.processed_at.is_none()).count() as u64))
    }

    async fn given_up(&self) -> StoreResult<u64> {
        Ok(self.with(|s| s.webhook_events.values().filter(|w| given_up(w)).count() as u64))
    }
}
