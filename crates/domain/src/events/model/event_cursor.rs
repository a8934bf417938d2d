//! A place in the order events are streamed in: by `created_at`, then id.

use crate::model::{Event, EventId, Timestamp};

/// Where a read of events starts, in (`created_at`, id) order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventCursor {
    /// Events created at or after this instant…
    pub at: Timestamp,
    /// …and, at `at` itself, only those whose id sorts after this one (all of them when `None`).
    pub after_id: Option<EventId>,
}

impl EventCursor {
    /// Every event created at `at` or later.
    pub fn from(at: Timestamp) -> Self {
        Self { at, after_id: None }
    }

    /// Every event after `event`: created later, or at the same instant with a greater id.
    pub fn after(event: &Event) -> Self {
        Self { at: event.created_at, after_id: Some(event.id.clone()) }
    }

    /// Whether an event created at `at` with id `id` comes after the cursor.
    pub fn precedes(&self, at: Timestamp, id: &EventId) -> bool {
        match &self.after_id {
            None => at >= self.at,
            Some(after) => at > self.at || (at == self.at && id > after),
        }
    }
}
