//! The live tail of the events outbox, shared by every `GET /v1/stream` of this process: one
//! reader polls the events table (so it sees what any instance wrote) while anyone listens, and
//! hands each new event, framed for Server-Sent Events once, to every stream. A stream filters
//! its agent's. A stream that falls behind the channel reads what it missed from the database.

use std::sync::Arc;
use std::time::Duration;

use actix_web::web::Bytes;
use parley_domain::model::{AgentId, Event, EventId, Timestamp};
use parley_domain::services::{EventStreamService, LiveTail, STREAM_LAG};
use tokio::sync::{broadcast, watch};

use crate::runtime::state::EventBody;

/// How long a stream may stay quiet before its comment line, unless configured.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// Events the channel holds for a slow stream before it must catch up from the database.
const CHANNEL_CAPACITY: usize = 4096;

/// One event as every stream sends it.
#[derive(Debug)]
pub struct LiveEvent {
    pub agent: AgentId,
    pub id: EventId,
    pub created_at: Timestamp,
    /// `id:`, `event:` and `data:` lines, and the blank line that ends them.
    pub frame: Bytes,
}

/// The process's live tail and the streams listening to it.
pub struct EventHub {
    sender: broadcast::Sender<Arc<LiveEvent>>,
    closing: watch::Sender<bool>,
    body: EventBody,
    /// How often the tail is read while someone listens.
    pub poll_every: Duration,
    /// How long a stream stays silent before it sends a comment line.
    pub heartbeat: Duration,
}

impl EventHub {
    pub fn new(body: EventBody, poll_every: Duration, heartbeat: Duration) -> Self {
        let (sender, _) = broadcast::channel(CHANNEL_CAPACITY);
        let (closing, _) = watch::channel(false);
        Self { sender, closing, body, poll_every, heartbeat }
    }

    /// The live events from now on, and whether the server is closing the streams.
    pub fn subscribe(&self) -> (broadcast::Receiver<Arc<LiveEvent>>, watch::Receiver<bool>) {
        (self.sender.subscribe(), self.closing.subscribe())
    }

    /// Streams listening now.
    pub fn listeners(&self) -> usize {
        self.sender.receiver_count()
    }

    /// Ends every stream (the server is stopping): their clients reconnect elsewhere, with
    /// `Last-Event-ID`.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// `event` as a Server-Sent Event: its id, its type as the event name, its JSON (one line,
    /// as `/v1/events` lists it) as the data.
    pub fn frame(&self, event: &Event) -> Bytes {
        let json = (self.body)(event);
        Bytes::from(format!("id: {}\nevent: {}\ndata: {json}\n\n", event.id.as_str(), event.event_type.as_str()))
    }

    /// Reads the tail every [`poll_every`](Self::poll_every) while a stream listens, until
    /// `stopping`. Idle, it reads nothing; the first listener starts it a little in the past, so
    /// an event committed as it connected is not lost.
    pub async fn run(self: Arc<Self>, stream: Arc<EventStreamService>, mut stopping: watch::Receiver<bool>) {
        let mut tail: Option<LiveTail> = None;
        loop {
            tokio::select! {
                _ = stopping.changed() => break,
                () = tokio::time::sleep(self.poll_every) => {}
            }
            if self.listeners() == 0 {
                tail = None;
                continue;
            }
            let tail = tail.get_or_insert_with(|| LiveTail::starting(stream.clone(), stream.now() - STREAM_LAG));
            match tail.read().await {
                Ok(events) => {
                    for event in events {
                        let live =
                            LiveEvent { frame: self.frame(&event), agent: event.agent_id, id: event.id, created_at: event.created_at };
                        // No listener left between the check and now: nothing to do.
                        let _ = self.sender.send(Arc::new(live));
                    }
                }
                Err(e) => tracing::warn!(error = %e, "the event stream could not read new events; trying again"),
            }
        }
        self.close();
    }
}
