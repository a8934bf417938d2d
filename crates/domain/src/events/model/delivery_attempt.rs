//! What happened when Parley tried to deliver an event to an endpoint: one record per try, for
//! `GET /v1/webhook_endpoints/:id/deliveries`, and what the try changes about the delivery and
//! its endpoint.

use crate::model::{EndpointId, EventId, Timestamp};

/// Longest error text kept for an attempt: enough for a receiver's reason, never its whole page.
pub const MAX_ATTEMPT_ERROR_CHARS: usize = 500;

/// One try to deliver an event to an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryAttempt {
    /// The event it carried.
    pub event_id: EventId,
    /// The endpoint it went to.
    pub endpoint_id: EndpointId,
    /// 1 for the first try of this delivery, counting on across redeliveries.
    pub attempt: u32,
    /// When the try started.
    pub attempted_at: Timestamp,
    /// What the receiver answered; `None` when it never answered (refused, timed out, the
    /// address was refused).
    pub response_status: Option<u16>,
    /// How long the try took, in milliseconds.
    pub duration_ms: u64,
    /// Why it failed; `None` for a success.
    pub error: Option<String>,
    /// When the next try is due; `None` once delivered or given up.
    pub next_attempt_at: Option<Timestamp>,
}

impl DeliveryAttempt {
    /// Whether the try delivered the event: the receiver answered 2xx in time.
    pub fn delivered(&self) -> bool {
        self.error.is_none()
    }
}

/// What an attempt does to its endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointAfterAttempt {
    /// Nothing to write: a success of an endpoint that was not failing.
    Unchanged,
    /// A success: the endpoint is no longer failing, and its breaker is closed.
    Healthy,
    /// A failure: the endpoint is failing since its first failure after its last success.
    Failing,
    /// A failure of an endpoint already failing: its circuit breaker opens, and none of its
    /// deliveries is claimed before the given time.
    Pause(Timestamp),
    /// A failure after 3 days of nothing but failures: the endpoint is disabled (reason
    /// `failing`) and gets no more deliveries until its owner enables it again.
    Disable,
}

/// Bounds a failure's text to [`MAX_ATTEMPT_ERROR_CHARS`], on a character boundary.
pub fn attempt_error(text: &str) -> String {
    match text.char_indices().nth(MAX_ATTEMPT_ERROR_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_errors_are_cut_on_a_character_boundary() {
        assert_eq!(attempt_error("connection refused"), "connection refused");
        let long = "é".repeat(MAX_ATTEMPT_ERROR_CHARS + 10);
        let cut = attempt_error(&long);
        assert_eq!(cut.chars().count(), MAX_ATTEMPT_ERROR_CHARS + 1);
        assert!(cut.ends_with('…'));
    }
}
