//! Webhook events as stored (raw, before processing) and idempotency records of sends.

use crate::model::{ChannelType, Timestamp};

/// A webhook delivery exactly as received: stored before it is answered, processed after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboundDelivery {
    /// `whk_…`
    pub id: String,
    /// The platform it came from: the decoder that reads its body.
    pub platform: ChannelType,
    /// The raw request body, as the platform signed it.
    pub body: String,
    /// When Parley received it.
    pub received_at: Timestamp,
    /// Processing attempts that failed so far.
    pub attempts: u32,
    /// The last processing error, when an attempt failed.
    pub last_error: Option<String>,
    /// When it may be tried again (`None` once processed, or once Parley gave up on it).
    pub next_attempt_at: Option<Timestamp>,
    /// When it was processed (with or without parts set aside); `None` until then.
    pub processed_at: Option<Timestamp>,
    /// When Parley gave up on it (a body that can never be processed, or too many failed
    /// attempts): it waits for an operator (`parley inbound retry`).
    pub failed_at: Option<Timestamp>,
    /// What its last processing set aside: messages and statuses that could not be stored
    /// while the rest of the delivery was (empty when everything was).
    pub set_aside: Vec<SetAside>,
}

/// One message or status of a delivery that was not stored, and why: set aside so that it
/// costs the delivery's other messages nothing, and shown to an operator (`parley webhooks
/// failed`); `parley inbound retry` tries it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// A message or a status report.
    pub kind: SetAsideKind,
    /// Its place in the delivery, from 1: among the delivery's `messages` (every object, in
    /// order), or for a status among the statuses Parley read.
    pub position: u32,
    /// The platform's id of the message (or of the message a status reports on), made storable.
    pub platform_id: Option<String>,
    /// Who sent it (the sender's identifier on the channel), when known.
    pub from: Option<String>,
    /// Why it could not be stored.
    pub reason: String,
}

/// What was set aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetAsideKind {
    /// A message (`message`).
    Message,
    /// A status report (`status`).
    Status,
}

impl SetAsideKind {
    /// Its name as stored (lowercase).
    pub fn as_str(self) -> &'static str {
        match self {
            SetAsideKind::Message => "message",
            SetAsideKind::Status => "status",
        }
    }

    /// The kind named exactly `raw`; `None` otherwise.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "message" => Some(SetAsideKind::Message),
            "status" => Some(SetAsideKind::Status),
            _ => None,
        }
    }
}

/// The stored answer of a request made with an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotentResponse {
    /// The HTTP status that was answered.
    pub status: u16,
    /// The JSON body that was answered.
    pub body: String,
}

/// What claiming an idempotency key found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// The key was free (or its previous use expired): this request goes ahead.
    Claimed,
    /// The key was used before within its lifetime, with this request fingerprint, claimed at
    /// `claimed_at`; `response` is `None` while the first request is still running (or if it was
    /// cut before it answered).
    Existing {
        /// The fingerprint of the request that claimed the key: a retry must bring the same.
        fingerprint: String,
        /// Its answer, once it answered.
        response: Option<IdempotentResponse>,
        /// When the key was claimed.
        claimed_at: Timestamp,
    },
}
