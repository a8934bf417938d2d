use std::collections::HashMap;
use std::sync::Arc;

use chrono::TimeDelta;

use crate::DomainError;
use crate::model::*;
use crate::ports::{Clock, EventRepository};

/// Events read per query, by a stream catching up and by the live tail.
pub const STREAM_PAGE: u32 = 500;
/// How far back each read of the live tail looks again: an event is dated when its change is
/// made and becomes visible when its transaction commits, so a read may see an event dated
/// before one it saw last time. Events are told apart by id, never sent twice.
pub const STREAM_LAG: TimeDelta = TimeDelta::seconds(2);
/// How far back a slower sweep of the live tail looks, for a transaction that committed later
/// than [`STREAM_LAG`] after its change (a busy writer lock).
pub const STREAM_SWEEP: TimeDelta = TimeDelta::seconds(30);

/// The events API as a stream: where a stream resumes (`Last-Event-ID`), what it missed, and
/// the live tail every stream of a process is fed from. It reads the outbox the event webhooks
/// use, so a stream sees exactly what `/v1/events` lists, whichever instance wrote it.
pub struct EventStreamService {
    events: Arc<dyn EventRepository>,
    clock: Arc<dyn Clock>,
}

impl EventStreamService {
    /// A service over these ports.
    pub fn new(events: Arc<dyn EventRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { events, clock }
    }

    /// Where a stream of `agent` starts: right after the agent's event `last_event_id`, or
    /// `None` (from now on) when there is none, or when that event is unknown (another agent's,
    /// or older than the 30 days kept).
    pub async fn resume_after(&self, agent: &AgentId, last_event_id: Option<&str>) -> Result<Option<EventCursor>, DomainError> {
        let Some(id) = last_event_id.map(str::trim).filter(|id| !id.is_empty()) else { return Ok(None) };
        let Some(id) = EventId::received(id.to_string()) else { return Ok(None) };
        Ok(self.events.get(agent, &id).await?.map(|e| EventCursor::after(&e)))
    }

    /// Up to [`STREAM_PAGE`] of the agent's events after `cursor`, oldest first.
    pub async fn missed(&self, agent: &AgentId, cursor: &EventCursor) -> Result<Vec<Event>, DomainError> {
        Ok(self.events.after(Some(agent), cursor, STREAM_PAGE).await?)
    }

    /// Now, as the stream's clock tells it.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

/// The live tail of every agent's events, read again and again: each read returns the events
/// not returned before, oldest first. One per process feeds all its streams.
pub struct LiveTail {
    stream: Arc<EventStreamService>,
    /// The time of the newest event returned, or where the tail started before the first.
    newest: Timestamp,
    /// Ids returned within the last [`STREAM_SWEEP`], with their time, so a read that looks back
    /// returns none twice.
    seen: HashMap<EventId, Timestamp>,
    reads: u64,
}

impl LiveTail {
    /// A tail that starts at `from` (nothing before it is returned).
    pub fn starting(stream: Arc<EventStreamService>, from: Timestamp) -> Self {
        Self { stream, newest: from, seen: HashMap::new(), reads: 0 }
    }

    /// The events committed since the last read, whatever their agent. Every tenth read looks
    /// back [`STREAM_SWEEP`] instead of [`STREAM_LAG`].
    pub async fn read(&mut self) -> Result<Vec<Event>, DomainError> {
        self.reads += 1;
        let back = if self.reads.is_multiple_of(10) { STREAM_SWEEP } else { STREAM_LAG };
        let from = self.newest - back;
        let mut fresh = Vec::new();
        let mut cursor = EventCursor::from(from);
        loop {
            let page = self.stream.events.after(None, &cursor, STREAM_PAGE).await?;
            let full = page.len() == STREAM_PAGE as usize;
            if let Some(last) = page.last() {
                cursor = EventCursor::after(last);
            }
            for event in page {
                if self.seen.insert(event.id.clone(), event.created_at).is_none() {
                    self.newest = self.newest.max(event.created_at);
                    fresh.push(event);
                }
            }
            if !full {
                break;
            }
        }
        let forget = self.newest - STREAM_SWEEP - STREAM_LAG;
        self.seen.retain(|_, at| *at >= forget);
        Ok(fresh)
    }
}
