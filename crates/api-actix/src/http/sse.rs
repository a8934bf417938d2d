//! One `GET /v1/stream` as a byte stream of Server-Sent Events: first what the client missed
//! (after its `Last-Event-ID`), read from the database page by page, then the process's live
//! tail filtered to its agent, a comment line whenever it has been quiet for the heartbeat, and
//! the end when the server closes. A stream that falls behind the live channel goes back to the
//! database from its last event, so it never skips one; events are told apart by id, so none is
//! sent twice.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use actix_web::web::Bytes;
use futures_util::Stream;
use parley_domain::model::{AgentId, EventCursor, EventId, Timestamp};
use parley_domain::services::{EventStreamService, STREAM_LAG, STREAM_PAGE, STREAM_SWEEP};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, watch};

use crate::runtime::event_hub::{EventHub, LiveEvent};

/// How long an EventSource waits before reconnecting (sent once, first).
const RETRY_MS: u32 = 2000;

enum Phase {
    /// Sending what was missed, from this cursor.
    CatchingUp(EventCursor),
    /// Following the live tail.
    Live,
    /// Done: the server is closing.
    Ended,
}

struct StreamState {
    agent: AgentId,
    streams: Arc<EventStreamService>,
    hub: Arc<EventHub>,
    live: broadcast::Receiver<Arc<LiveEvent>>,
    closing: watch::Receiver<bool>,
    phase: Phase,
    /// Chunks ready to send.
    pending: VecDeque<Bytes>,
    /// Ids sent lately, to send none twice (the catch-up and the tail overlap).
    sent: HashMap<EventId, Timestamp>,
    /// The time of the newest event sent: a stream that fell behind reads again from a little
    /// before it.
    newest_sent: Option<Timestamp>,
}

impl StreamState {
    fn remember(&mut self, id: &EventId, at: Timestamp) -> bool {
        let fresh = self.sent.insert(id.clone(), at).is_none();
        if fresh {
            let newest = self.newest_sent.map_or(at, |n| n.max(at));
            self.newest_sent = Some(newest);
            if self.sent.len() > 4 * STREAM_PAGE as usize {
                let forget = newest - STREAM_SWEEP - STREAM_LAG;
                self.sent.retain(|_, t| *t >= forget);
            }
        }
        fresh
    }

    /// The next chunk, or `None` when the stream ends.
    async fn next(&mut self) -> Option<Bytes> {
        loop {
            if let Some(chunk) = self.pending.pop_front() {
                return Some(chunk);
            }
            match &self.phase {
                Phase::Ended => return None,
                Phase::CatchingUp(cursor) => {
                    let cursor = cursor.clone();
                    let page = match self.streams.missed(&self.agent, &cursor).await {
                        Ok(page) => page,
                        Err(e) => {
                            tracing::warn!(error = %e, "a stream could not read the events it missed; it ends, and its client resumes");
                            self.phase = Phase::Ended;
                            continue;
                        }
                    };
                    self.phase = match page.last() {
                        Some(last) if page.len() == STREAM_PAGE as usize => Phase::CatchingUp(EventCursor::after(last)),
                        _ => Phase::Live,
                    };
                    let mut chunk = Vec::new();
                    for event in &page {
                        if self.remember(&event.id, event.created_at) {
                            chunk.extend_from_slice(&self.hub.frame(event));
                        }
                    }
                    if !chunk.is_empty() {
                        self.pending.push_back(Bytes::from(chunk));
                    }
                }
                Phase::Live => {
                    let heartbeat = self.hub.heartbeat;
                    tokio::select! {
                        changed = self.closing.changed() => {
                            if changed.is_err() || *self.closing.borrow() {
                                self.phase = Phase::Ended;
                            }
                        }
                        received = tokio::time::timeout(heartbeat, self.live.recv()) => match received {
                            // Quiet for the heartbeat: a comment keeps proxies from closing it.
                            Err(_) => return Some(Bytes::from_static(b": keep-alive\n\n")),
                            Ok(Ok(event)) => {
                                if event.agent == self.agent && self.remember(&event.id, event.created_at) {
                                    return Some(event.frame.clone());
                                }
                            }
                            Ok(Err(RecvError::Lagged(_))) => {
                                let from = self.newest_sent.unwrap_or_else(|| self.streams.now()) - STREAM_SWEEP;
                                self.phase = Phase::CatchingUp(EventCursor::from(from));
                            }
                            Ok(Err(RecvError::Closed)) => self.phase = Phase::Ended,
                        },
                    }
                }
            }
        }
    }
}

/// The stream of `agent`'s events after `resume` (from now on when `None`).
pub fn event_stream(
    agent: AgentId,
    resume: Option<EventCursor>,
    streams: Arc<EventStreamService>,
    hub: Arc<EventHub>,
    live: broadcast::Receiver<Arc<LiveEvent>>,
    closing: watch::Receiver<bool>,
) -> impl Stream<Item = Result<Bytes, actix_web::Error>> {
    let mut pending = VecDeque::new();
    pending.push_back(Bytes::from(format!("retry: {RETRY_MS}\n: connected\n\n")));
    let phase = match resume {
        Some(cursor) => Phase::CatchingUp(cursor),
        None => Phase::Live,
    };
    let state = StreamState { agent, streams, hub, live, closing, phase, pending, sent: HashMap::new(), newest_sent: None };
    futures_util::stream::unfold(state, |mut state| async move { state.next().await.map(|chunk| (Ok(chunk), state)) })
}
