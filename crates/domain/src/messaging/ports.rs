//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// The messages of activities' timelines: inbound, outbound and internal notes.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MessageRepository: Send + Sync {
    /// Stores a message on its activity, in one transaction that also moves the activity's
    /// `updated_at` to the message's `updated_at` and makes the message the activity's
    /// `last_message` when it is the newest (by `created_at`, then id). An inbound message also
    /// reopens the activity (status `open`) and raises its `last_inbound_at` to the message's
    /// `created_at` when later, never lowering it. Returns `false`, storing
    /// nothing, when the agent already has a message with the same platform message id (the
    /// platform retries webhooks). MUST return `NotFound` when the activity is not the agent's.
    async fn insert(&self, message: &Message, events: &[Event]) -> StoreResult<bool>;
    /// [`insert`](Self::insert), with `update` of the message's contact made in the same
    /// transaction, first: the message and what it taught of its contact are stored together
    /// or not at all. The update is [`ContactRepository::update_channel`](crate::ports::ContactRepository::update_channel)'s compare-and-set: when
    /// the channel changed since it was read, or its new phone or user id is another contact's,
    /// the contact is left as it is (`update.events` not emitted) and the message is stored all
    /// the same. MUST return `NotFound`, storing nothing, when the activity is not the agent's.
    async fn insert_learning(&self, message: &Message, update: &ChannelUpdate, events: &[Event]) -> StoreResult<bool>;
    /// [`insert_learning`](Self::insert_learning) with `update`, [`insert`](Self::insert)
    /// without, and in the same transaction the activity's first-response clock moved as `mark`
    /// says ([`ResponseMark::apply`], judged on the activity as its lock finds it: of two
    /// messages racing to open a conversation, one starts the clock). Nothing moves when the
    /// message was already stored.
    async fn insert_marked<'a>(
        &self,
        message: &Message,
        update: Option<&'a ChannelUpdate>,
        mark: ResponseMark,
        events: &[Event],
    ) -> StoreResult<bool>;
    /// The message `id` of the agent's activity `activity`; `None` when it is on another activity
    /// or another agent's.
    async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> StoreResult<Option<Message>>;
    /// The activity's messages, newest first (`created_at` desc, then id desc). With
    /// `filter.since`, only those whose `updated_at` is after it; `total` counts under the same
    /// filter. MUST return `NotFound` when the activity is not the agent's (the caller reads
    /// nothing else to answer 404).
    async fn list(&self, agent: &AgentId, activity: &ActivityId, filter: MessageFilter, page: PageRequest) -> StoreResult<Page<Message>>;
    /// The agent's message with this platform message id (`pm.…`), on any activity.
    async fn find_by_platform_id(&self, agent: &AgentId, platform_message_id: &str) -> StoreResult<Option<Message>>;
    /// Writes status, times, error, platform message id and `updated_at` only if the stored
    /// status is still `expected` (compare-and-set, as for executions); `false` otherwise. A
    /// `sending` reply gets its platform message id this way, when the platform accepts it or a
    /// status report names it; `Conflict` if the agent already has a message with that id.
    async fn update_status(&self, message: &Message, expected: MessageStatus, events: &[Event]) -> StoreResult<bool>;
    /// The agent's message with this id, on any activity: a status report's
    /// `biz_opaque_callback_data` names a reply this way.
    async fn find_by_id(&self, agent: &AgentId, id: &MessageId) -> StoreResult<Option<Message>>;
    /// Removes a message still `sending` (the platform refused it outright), in one transaction
    /// that undoes what its insert changed on the activity: `message_count` less one, and when it
    /// was the activity's `last_message`, the newest remaining message (or none) instead. The
    /// activity's `updated_at` (and its mirrors) go back to `activity_updated_at`, unless
    /// something moved them since the message's insert (they are no longer its `updated_at`).
    /// `false`, changing nothing, when the message is not the agent's or no longer `sending`.
    async fn remove_sending(&self, message: &Message, activity_updated_at: Timestamp) -> StoreResult<bool>;
    /// The activity's newest inbound message: the line a reply goes out through.
    async fn last_inbound(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Option<Message>>;
    /// The activity's outbound messages on `line` still `sent` or `delivered` and created at or
    /// before `up_to`, oldest first (`created_at`, then id), at most `limit`: what a contact's
    /// read receipt moves to `read`.
    async fn unread_outbound(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        line: &LineId,
        up_to: Timestamp,
        limit: u32,
    ) -> StoreResult<Vec<Message>>;
    /// Writes `deleted_at` and `updated_at` of the agent's message `message.id`, with `events`,
    /// only if it was not deleted yet; `false` (changing nothing) otherwise. Its content stays.
    async fn mark_deleted(&self, message: &Message, events: &[Event]) -> StoreResult<bool>;
    /// The agent's carts that the activity's messages carry, each once, newest cart first
    /// (`created_at` desc, then code desc); codes of no cart of the agent are left out.
    async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Vec<CartMention>>;
    /// How many of the agent's messages sent under campaign `key` carry each pricing, in any
    /// order, each pricing once; messages not priced yet are left out. Read by the campaign's
    /// summary, which sums the billed ones per category.
    async fn pricing_counts(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<Vec<(Pricing, u64)>>;
}

/// Scheduled messages: each one's timeline entry (`status: scheduled`) and what sending it needs
/// ([`ScheduledSend`]), written together, claimed by the workers in due order.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ScheduledSendRepository: Send + Sync {
    /// Stores `message` (`scheduled`) as [`MessageRepository::insert`] does, but never as its
    /// activity's `last_message` (it has not gone out), with `send` in the same transaction.
    /// MUST return `NotFound` when the activity is not the agent's, storing nothing.
    async fn schedule(&self, message: &Message, send: &ScheduledSend) -> StoreResult<()>;
    /// Claims up to `limit` sends due by `now` whose lease (if any) ran out, the earliest
    /// `send_at` first (then message id), leasing them until `lease_until`. Two claimants at
    /// once never get the same send while its lease holds (PostgreSQL: rows another claimant is
    /// taking are skipped, not waited for).
    async fn claim_due(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<ScheduledSend>>;
    /// Moves the agent's scheduled message to `sending` at `at` and drops its send, in one
    /// transaction: the activity's `updated_at` moves to `at`, and the message becomes its
    /// `last_message` when it is the newest (by `created_at`, then id). Returns the message as
    /// stored, or `None` when it is not scheduled any more (cancelled, or started by another
    /// worker): only the one caller that gets it may send it. A message of no campaign is the
    /// team's answer as it goes out: it moves the first-response clock
    /// ([`ResponseMark::Answers`] at `at`).
    async fn start(&self, agent: &AgentId, message: &MessageId, at: Timestamp) -> StoreResult<Option<Message>>;
    /// Removes the agent's message on `activity` while it is scheduled, with its send:
    /// `message_count` less one. `false`, changing nothing, when there is no such scheduled
    /// message (never was, another agent's, or already started).
    async fn cancel(&self, agent: &AgentId, activity: &ActivityId, message: &MessageId) -> StoreResult<bool>;
    /// How many scheduled messages wait, due or not.
    async fn pending(&self) -> StoreResult<u64>;
}

/// Why the messaging platform did not take a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The platform refused it (a 4xx other than authentication), e.g. 131026 undeliverable or
    /// 132000 parameter count mismatch: `code` and `message` as the platform gave them,
    /// `details` from its `error_data.details`.
    #[error("the platform refused the message ({code:?}): {message}")]
    Rejected {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's `error_data.details`, when given.
        details: Option<String>,
    },
    /// The platform refused a free-form message because the customer service window is closed
    /// on its side: the same refusal as Parley's own check. Its code and words as given.
    #[error("the platform's messaging window is closed ({code:?}): {message}")]
    WindowClosed {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's details, when given.
        details: Option<String>,
    },
    /// The platform cannot deliver this message to this recipient (an authentication template
    /// to someone known only by a business-scoped user id). Its code and words as given.
    #[error("the platform cannot deliver this message to the recipient ({code:?}): {message}")]
    RecipientUnsupported {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's details, when given.
        details: Option<String>,
    },
    /// The line's token is invalid or expired (HTTP 401, error code 190).
    #[error("the platform refused the line's credentials: {message}")]
    Unauthorized {
        /// The platform's explanation, as given.
        message: String,
    },
    /// The platform failed or could not be reached (5xx, timeout, connection). For a send, the
    /// message may or may not have gone out.
    #[error("the platform is unavailable: {message}")]
    Unavailable {
        /// What failed: the status, the time-out or the connection error.
        message: String,
    },
}

impl PlatformError {
    /// Whether the platform refused (rather than failed or refused the credentials): the
    /// same request would be refused again.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::Rejected { .. } | Self::WindowClosed { .. } | Self::RecipientUnsupported { .. })
    }

    /// Whether the platform refused for throughput (WhatsApp's 130429: the number sent more
    /// messages a second than it may): worth holding the line and trying again.
    pub fn is_throughput_limit(&self) -> bool {
        matches!(self, PlatformError::Rejected { code: Some(130429), .. })
    }

    /// One line for records and logs: `131026: Message undeliverable (details)`, the shape the
    /// webhook path records too.
    pub fn reason(&self) -> String {
        match self {
            PlatformError::Rejected { code, message, details }
            | PlatformError::WindowClosed { code, message, details }
            | PlatformError::RecipientUnsupported { code, message, details } => {
                let code = code.map(|c| format!("{c}: ")).unwrap_or_default();
                let details = details.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
                format!("{code}{message}{details}")
            }
            PlatformError::Unauthorized { message } => format!("190: {message}"),
            PlatformError::Unavailable { message } => message.clone(),
        }
    }
}

/// The platform's receipt for an accepted message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMessage {
    /// `pm.…`: every status webhook of the message names it.
    pub message_id: String,
    /// The recipient's WhatsApp id, when the platform reports it.
    pub wa_id: Option<String>,
}

/// A messaging platform (WhatsApp, Instagram, email) as seen from one line: each platform's
/// adapter implements it, and the app routes a line to its own.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MessagingPlatform: Send + Sync {
    /// Every template of the line's business account, following the platform's paging.
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError>;
    /// Sends a template message from the line. `callback_data` (the campaign key) is echoed in
    /// every status webhook of the message. MUST NOT retry a request that may have reached the
    /// platform: a duplicate message is worse than a reported failure.
    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError>;
    /// Sends a free-form message (a reply inside the 24-hour window) from the line. The same
    /// rule as for templates: never retried once it may have reached the platform.
    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError>;
    /// An inbound media file by the platform's media id: its URL looked up, then the file
    /// fetched with the line's token, streamed.
    async fn media(&self, line: &Line, media_id: &str) -> Result<MediaFile, PlatformError>;
    /// The name a contact shows on the line's platform, for a contact whose messages carry
    /// none (Instagram's): `None` when the platform has no such look-up or no name.
    async fn profile_name(&self, line: &Line, contact: &str) -> Result<Option<String>, PlatformError> {
        let _ = (line, contact);
        Ok(None)
    }
    /// Tells the contact the business read their messages (and, with `typing`, is writing),
    /// where the platform shows it: nothing on a platform without read receipts (email).
    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        let _ = (line, mark);
        Ok(())
    }
}

/// A file Parley keeps for a message (an email's attachment), served by the media endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// `att_…`, derived from the message it came in (see [`InboundFile`]).
    pub id: String,
    /// The agent whose file it is: ids are unique per agent, not across agents.
    pub agent_id: AgentId,
    /// The name the file came with, when it had one.
    pub filename: Option<String>,
    /// Its media type, as the message gave it (`application/pdf`).
    pub mime_type: String,
    /// The whole content, possibly empty.
    pub bytes: Vec<u8>,
    /// When the message that brought it was received.
    pub created_at: Timestamp,
}

impl std::fmt::Debug for StoredFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredFile")
            .field("id", &self.id)
            .field("agent_id", &self.agent_id)
            .field("filename", &self.filename)
            .field("mime_type", &self.mime_type)
            .field("size", &self.bytes.len())
            .finish()
    }
}

/// The files Parley keeps: written once, never changed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait FileRepository: Send + Sync {
    /// Keeps `file` once: MUST do nothing when the agent already has a file with its id (a
    /// delivery processed again).
    async fn put(&self, file: &StoredFile) -> StoreResult<()>;
    /// The agent's file `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &str) -> StoreResult<Option<StoredFile>>;
}

/// The mailboxes of email lines, read in bounded batches after a position.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MailboxReader: Send + Sync {
    /// The line's new mail after `after` (all of it when `None`, or when the mailbox's epoch
    /// changed), at most `limit` messages. `Unavailable` for what may pass (the server down),
    /// `Unauthorized` for a refused login, `Rejected` for a line it cannot read.
    async fn read_after(&self, line: &Line, after: Option<MailboxPosition>, limit: u32) -> Result<MailBatch, PlatformError>;
}

/// Where each polled mailbox's reader is, and which instance reads it now: one reader per
/// mailbox across instances, by a lease its holder renews as it advances.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MailboxCursorRepository: Send + Sync {
    /// Takes the line's mailbox for `holder` until `until` when no one holds it, the lease ran
    /// out (`now`), or `holder` already does; returns its position (the default for one never
    /// read), or `None` when another holder has it.
    async fn claim(&self, line: &LineId, holder: &str, now: Timestamp, until: Timestamp) -> StoreResult<Option<MailboxPosition>>;
    /// Moves the position and renews the lease, only while `holder` holds it; `false` when it
    /// does not (the lease ran out and another took it).
    async fn advance(&self, line: &LineId, holder: &str, to: MailboxPosition, until: Timestamp) -> StoreResult<bool>;
    /// Lets the mailbox go, if `holder` holds it.
    async fn release(&self, line: &LineId, holder: &str) -> StoreResult<()>;
}

/// Reads one platform's webhook bodies into Parley's terms: the platform's wire format stays in
/// its adapter. Pure (no I/O), deterministic, and lenient: a part of unexpected shape is skipped
/// or set aside with why, never an error for the rest.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait InboundDecoder: Send + Sync {
    /// What `body` tells about each line it names. `Err` only when it is not a body of the
    /// platform's webhook at all (then no attempt could ever read it).
    fn decode(&self, body: &str) -> Result<Vec<LineNews>, String>;
}

/// How a platform proves that a delivery to its webhook comes from it, checked on the raw
/// request before anything of it is kept; and the handshake by which it confirms a webhook's
/// address answers for this server. A platform that signs its webhooks implements it in its
/// adapter; the scheme (headers, algorithm, parameter names) stays there.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait InboundVerifier: Send + Sync {
    /// The request header (lower case) that carries a delivery's proof.
    fn proof_header(&self) -> &'static str;
    /// Whether `proof` (that header's value, when the request had one) proves `body`, the
    /// exact bytes received, came from the platform.
    #[expect(clippy::needless_lifetimes, reason = "mockall cannot mock an elided lifetime in an Option")]
    fn verify<'a>(&self, proof: Option<&'a str>, body: &[u8]) -> Result<(), InboundRefusal>;
    /// The text to answer the platform's subscription handshake with, given the request's
    /// query parameters by name.
    fn handshake(&self, query: &std::collections::HashMap<String, String>) -> Result<String, InboundRefusal>;
}

/// Why a webhook request was refused; its text says what was wrong, for the caller to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InboundRefusal {
    /// The proof is missing or does not match the body (or this server holds no secret to
    /// check it with, which a caller is not told apart).
    #[error("{0}")]
    Unproven(String),
    /// The subscription handshake was refused.
    #[error("{0}")]
    Handshake(String),
}

/// A media file as the platform serves it.
pub struct MediaFile {
    /// Always usable as a `Content-Type`: an unusable type from the platform is
    /// `application/octet-stream`.
    pub mime_type: crate::model::MediaType,
    /// In bytes, when the platform says.
    pub length: Option<u64>,
    /// The file's bytes, in chunks as they arrive; an `Err` ends the stream (the download failed
    /// part way).
    pub body: futures_util::stream::BoxStream<'static, Result<Vec<u8>, PlatformError>>,
}

impl std::fmt::Debug for MediaFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaFile").field("mime_type", &self.mime_type).field("length", &self.length).finish_non_exhaustive()
    }
}

/// The messaging platforms' webhook deliveries, stored as received and processed afterwards,
/// with retries, so none is lost. Not scoped by agent: a delivery names lines, not agents.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait InboundDeliveryRepository: Send + Sync {
    /// Stores an event as received, to be processed (`next_attempt_at = received_at`).
    async fn insert(&self, event: &InboundDelivery) -> StoreResult<()>;
    /// Unprocessed events due by `now`, oldest first, at most `limit`.
    async fn due(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Takes up to `limit` events due by `now`, oldest first, for one processor until `until`
    /// (their next attempt moves there), in one write, and returns them as they are now.
    /// Several `parley serve` processes share the table and each event must be processed by
    /// one: events another processor holds (claimed, or being claimed at this moment) are
    /// skipped, never waited for. A processor that crashes leaves its events due again at `until`.
    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Hands back events claimed until `until` and not started: due again at `at`. Events no
    /// longer held by that claim (processed, or claimed again after it ran out) are left alone.
    async fn release(&self, ids: &[String], until: Timestamp, at: Timestamp) -> StoreResult<()>;
    /// Marks events processed, in one write, with nothing set aside (clearing what an earlier
    /// processing set aside).
    async fn mark_processed(&self, ids: &[String], at: Timestamp) -> StoreResult<()>;
    /// Marks one event processed with the parts it set aside (`set_aside`, kept whole and in
    /// order, replacing any earlier list): listed by [`failed`](Self::failed) and put back by
    /// [`retry`](Self::retry) until a processing sets nothing aside.
    async fn mark_set_aside(&self, id: &str, set_aside: &[SetAside], at: Timestamp) -> StoreResult<()>;
    /// Records a failed attempt and when to try again.
    async fn mark_failed(&self, id: &str, error: &str, next_attempt_at: Timestamp) -> StoreResult<()>;
    /// Records a failed attempt as the last one: the event gets `failed_at = at`, no next
    /// attempt (never due again, out of the backlog) until [`retry`](Self::retry) puts it back.
    async fn give_up(&self, id: &str, error: &str, at: Timestamp) -> StoreResult<()>;
    /// Unprocessed events that failed at least once (waiting for a retry, or given up), and
    /// events with parts set aside, oldest first: for operators.
    async fn failed(&self, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Puts a given-up event, or a processed one with parts set aside, back to be processed:
    /// due at `now`, attempts counted from zero again, `failed_at` and `processed_at` cleared
    /// (`last_error` and `set_aside` kept until the next processing). False when `id` is
    /// neither (unknown, processed whole, or still being retried).
    async fn retry(&self, id: &str, now: Timestamp) -> StoreResult<bool>;
    /// [`retry`](Self::retry) for every given-up event; returns how many.
    async fn retry_all(&self, now: Timestamp) -> StoreResult<u64>;
    /// How many events are stored and not processed yet (due now, waiting for a retry, or
    /// stored while processing is off): the backlog, for metrics. Given-up events are not in it.
    async fn backlog(&self) -> StoreResult<u64>;
    /// How many events were given up on and wait for an operator: for metrics.
    async fn given_up(&self) -> StoreResult<u64>;
}
