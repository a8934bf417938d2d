use std::sync::Arc;

use chrono::TimeDelta;
use futures_util::StreamExt;

use crate::model::*;
use crate::ports::*;
use crate::services::conversations::Conversations;
use crate::services::timeline::{CAS_ATTEMPTS, Timeline, TimelinePorts};
use crate::{DomainError, FieldError};

/// Webhook deliveries: stored as received (so a crash loses nothing), then processed; failures
/// are retried with backoff, a bounded number of times, and then kept as failed for an operator
/// (`parley inbound failed`, `parley inbound retry`).
pub struct InboundService {
    decoders: Decoders,
    /// For the names of contacts whose messages carry none.
    platform: Arc<dyn MessagingPlatform>,
    events: Arc<dyn InboundDeliveryRepository>,
    lines: Arc<dyn LineRepository>,
    executions: Arc<dyn ExecutionRepository>,
    conversations: Conversations,
    timeline: Timeline,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    maker: crate::services::EventMaker,
    template_notices: crate::services::template_notices::TemplateNotices,
}

/// The decoder of each platform whose webhooks Parley receives, by the channel type of its lines.
#[derive(Clone, Default)]
pub struct Decoders(Vec<(ChannelType, Arc<dyn InboundDecoder>)>);

impl Decoders {
    /// These decoders and `decoder` for `platform`'s webhooks.
    pub fn with(mut self, platform: ChannelType, decoder: Arc<dyn InboundDecoder>) -> Self {
        self.0.retain(|(p, _)| *p != platform);
        self.0.push((platform, decoder));
        self
    }

    fn get(&self, platform: ChannelType) -> Option<&dyn InboundDecoder> {
        self.0.iter().find(|(p, _)| *p == platform).map(|(_, d)| d.as_ref())
    }

    /// What `body`, received from `platform`, tells; `Err` when no decoder reads it.
    fn decode(&self, platform: ChannelType, body: &str) -> Result<Vec<LineNews>, String> {
        let decoder = self.get(platform).ok_or_else(|| format!("no decoder for {} webhooks", platform.as_str()))?;
        decoder.decode(body)
    }
}

/// What one processing pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessSummary {
    /// Processed: stored, with whatever Parley's rules or storage refused set aside.
    pub processed: usize,
    /// Failed, to be tried again later.
    pub failed: usize,
    /// Failed for the last time: given up, kept for an operator.
    pub gave_up: usize,
}

impl ProcessSummary {
    /// How many deliveries the pass handled, whatever the outcome.
    pub fn handled(&self) -> usize {
        self.processed + self.failed + self.gave_up
    }

    /// Counts one more delivery.
    pub fn add(&mut self, outcome: DeliveryOutcome) {
        match outcome {
            DeliveryOutcome::Processed => self.processed += 1,
            DeliveryOutcome::Retrying => self.failed += 1,
            DeliveryOutcome::GaveUp => self.gave_up += 1,
        }
    }
}

/// A delivery that failed, with the lines it names when its body can be read (an unreadable
/// body names none): what an operator needs to find the tenant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedDelivery {
    /// The delivery as stored: its body, attempts and last error.
    pub event: InboundDelivery,
    /// Each line the body names, once, in the order named.
    pub lines: Vec<DeliveryLine>,
}

/// A line named in a delivery, by its platform's account id, and the stored line when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryLine {
    /// The platform's id of the account the delivery is for.
    pub account_id: String,
    /// The line with that account, of whichever agent; `None` when no line has it.
    pub line: Option<Line>,
}

/// Attempts at a delivery whose failures may pass (the database unavailable or contended)
/// before Parley gives up on it. With a wait doubling between them (2 s, 4 s, … 2,048 s) the
/// attempts span about 68 minutes: longer than a database failover or restart, short enough
/// that an operator hears of a stuck delivery the same hour (`parley_inbound_failed`).
pub const MAX_ATTEMPTS: u32 = 12;

/// How long a claimed delivery belongs to the process that claimed it: far longer than
/// processing one takes (milliseconds), so a live process never loses one it works on; a
/// process that dies holding one leaves it due again after this.
const CLAIM_LEASE: TimeDelta = TimeDelta::minutes(2);

/// 2^attempts seconds, at most an hour.
fn backoff(attempts: u32) -> TimeDelta {
    TimeDelta::seconds(1i64 << attempts.min(12)).min(TimeDelta::hours(1))
}

/// Deliveries one process works on at once (see [`InboundService::process_due_until`]).
pub const PARALLEL_DELIVERIES: usize = 8;

/// What became of one delivery's attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryOutcome {
    /// Done: what it carried is stored, but for what Parley's rules or storage refused (set
    /// aside).
    Processed,
    /// Failed; tried again later.
    Retrying,
    /// Failed for the last time (or can never pass): kept for an operator.
    GaveUp,
}

/// How a failed attempt ends, with the error to keep.
enum Verdict {
    /// Tried again at `at`.
    Retry { error: String, at: Timestamp },
    /// Never again, until an operator retries it.
    GiveUp { error: String },
}

/// Why processing a delivery failed: whether another attempt could go differently.
enum Failure {
    /// The body is not a webhook payload. It is stored exactly as signed and the parser is
    /// deterministic, so every attempt would fail the same way: one attempt is enough. (After
    /// an upgrade that reads it, `parley inbound retry` processes it again.)
    Permanent(String),
    /// Anything else (storage unavailable, an execution contended, …): may pass, so it is
    /// retried, up to [`MAX_ATTEMPTS`].
    Transient(DomainError),
}

impl From<DomainError> for Failure {
    fn from(e: DomainError) -> Self {
        Failure::Transient(e)
    }
}

impl From<crate::StoreError> for Failure {
    fn from(e: crate::StoreError) -> Self {
        Failure::Transient(e.into())
    }
}

/// What became of a delivery's parts so far: those set aside, and the first failure that may
/// pass (the delivery is then retried, once its other parts were tried).
#[derive(Default)]
struct Outcomes {
    set_aside: Vec<SetAside>,
    retry: Option<DomainError>,
}

impl Outcomes {
    /// Records one part's result. Invalid (Parley's rules or storage refused it: the same on
    /// every attempt) is set aside with its reason; storage unavailable fails the delivery at
    /// once, as every later part would fail too; any other failure is kept for the retry.
    fn record(&mut self, result: Result<(), DomainError>, aside: impl FnOnce(String) -> SetAside) -> Result<(), Failure> {
        match result {
            Ok(()) => Ok(()),
            Err(DomainError::Validation(errors)) => {
                let reason = errors.iter().map(|e| format!("{}: {}", e.field, e.issue)).collect::<Vec<_>>().join("; ");
                self.set_aside.push(aside(reason));
                Ok(())
            }
            Err(e @ DomainError::Unavailable(_)) => Err(Failure::Transient(e)),
            Err(e) => {
                self.retry.get_or_insert(e);
                Ok(())
            }
        }
    }
}

/// The ports [`InboundService`] uses, and nothing more.
#[derive(Clone)]
pub struct InboundPorts {
    /// The platforms' deliveries, stored as received and claimed for processing.
    pub deliveries: Arc<dyn InboundDeliveryRepository>,
    /// The lines deliveries are addressed to.
    pub lines: Arc<dyn LineRepository>,
    /// Campaign outcomes, moved by delivery statuses.
    pub executions: Arc<dyn ExecutionRepository>,
    /// The contacts who write (someone new becomes one).
    pub contacts: Arc<dyn ContactRepository>,
    /// Their activities, moved by each message.
    pub activities: Arc<dyn ActivityRepository>,
    /// The timelines inbound messages and statuses land on.
    pub messages: Arc<dyn MessageRepository>,
    /// The carts messages name.
    pub carts: Arc<dyn CartRepository>,
    /// Media contacts sent, kept once.
    pub files: Arc<dyn FileRepository>,
    /// The templates the platform's notices change.
    pub templates: Arc<dyn TemplateRepository>,
    /// When conversations contacts open must be answered.
    pub due: crate::services::ResponseDue,
}

impl From<&Repositories> for InboundPorts {
    fn from(r: &Repositories) -> Self {
        Self {
            deliveries: r.inbound.clone(),
            lines: r.lines.clone(),
            executions: r.executions.clone(),
            contacts: r.contacts.clone(),
            activities: r.activities.clone(),
            messages: r.messages.clone(),
            carts: r.carts.clone(),
            files: r.files.clone(),
            templates: r.templates.clone(),
            due: crate::services::ResponseDue::new(r.first_response.clone(), r.business_hours.clone()),
        }
    }
}

impl InboundService {
    /// Reads each platform's deliveries with its decoder in `decoders`; `platform` looks up the
    /// names of contacts whose messages carry none; `objects` shows what the events it records
    /// report.
    pub fn new(
        ports: InboundPorts,
        decoders: Decoders,
        platform: Arc<dyn MessagingPlatform>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        let maker = crate::services::EventMaker::new(ids.clone());
        let InboundPorts { deliveries, lines, executions, contacts, activities, messages, carts, files, templates, due } = ports;
        let template_notices =
            crate::services::template_notices::TemplateNotices::new(lines.clone(), templates, clock.clone(), maker.clone());
        Self {
            template_notices,
            decoders,
            platform,
            events: deliveries,
            lines,
            executions,
            conversations: Conversations::new(contacts, activities.clone(), clock.clone(), ids.clone(), maker.clone()),
            timeline: Timeline::new(TimelinePorts { messages, carts, activities, files, due }, clock.clone(), ids.clone(), maker.clone()),
            maker,
            clock,
            ids,
        }
    }

    /// Stores a delivery from `platform` (already authenticated), due at once for the
    /// processors. Returns the event id.
    pub async fn receive(&self, platform: ChannelType, body: String) -> Result<String, DomainError> {
        let event = self.received(platform, body)?;
        self.events.insert(&event).await?;
        Ok(event.id)
    }

    /// Processes a delivery (already authenticated by its signature) as it arrives, then
    /// stores it with the outcome: processed, to be retried (a failure that may pass, left to
    /// the processors), or given up. Returns the event id and the outcome.
    ///
    /// The platform is answered after this returns, so a message is visible when its delivery
    /// is acknowledged, and a burst is processed at the pace it is received instead of piling
    /// up as a backlog. Nothing is lost in between: until the answer, the platform holds the
    /// delivery and sends it again if this fails or the process dies (processing it twice
    /// changes nothing, see [`process_due_until`](Self::process_due_until)). Storing it after
    /// processing rather than before saves a write per delivery.
    pub async fn receive_and_process(&self, platform: ChannelType, body: String) -> Result<(String, DeliveryOutcome), DomainError> {
        let mut event = self.received(platform, body)?;
        let result = self.process(&event).await;
        event.next_attempt_at = None;
        let outcome = match result {
            Ok(set_aside) => {
                event.processed_at = Some(self.clock.now());
                event.set_aside = set_aside;
                DeliveryOutcome::Processed
            }
            Err(failure) => {
                event.attempts = 1;
                match self.verdict(&event.id, event.attempts, failure) {
                    Verdict::GiveUp { error } => {
                        (event.last_error, event.failed_at) = (Some(error), Some(self.clock.now()));
                        DeliveryOutcome::GaveUp
                    }
                    Verdict::Retry { error, at } => {
                        (event.last_error, event.next_attempt_at) = (Some(error), Some(at));
                        DeliveryOutcome::Retrying
                    }
                }
            }
        };
        self.events.insert(&event).await?;
        Ok((event.id, outcome))
    }

    /// A delivery as received: not attempted yet, due now.
    fn received(&self, platform: ChannelType, body: String) -> Result<InboundDelivery, DomainError> {
        // JSON has no raw NUL (it is escaped as \u0000), and PostgreSQL's text cannot hold one:
        // refused here, identically on both backends, rather than failing to store.
        if body.contains('\0') {
            return Err(FieldError::new("body", "must be JSON text; it holds a NUL byte").into());
        }
        let now = self.clock.now();
        Ok(InboundDelivery {
            id: self.ids.new_id(IdKind::Webhook),
            platform,
            body,
            received_at: now,
            attempts: 0,
            last_error: None,
            next_attempt_at: Some(now),
            processed_at: None,
            failed_at: None,
            set_aside: Vec::new(),
        })
    }

    /// Processes stored deliveries that are due, oldest first.
    pub async fn process_due(&self, limit: u32) -> Result<ProcessSummary, DomainError> {
        self.process_due_until(limit, &|| false).await
    }

    /// Like [`process_due`](Self::process_due), but asks `stop` before each delivery and
    /// returns early when it says so: a shutdown finishes the deliveries in hand, never cuts
    /// one, and hands the claimed ones it did not start back to be due at once.
    ///
    /// The due deliveries are claimed in one write, and marked processed in batches as they
    /// finish (whatever finished while the last mark was being written): each write is a disk
    /// flush on PostgreSQL and a turn of the single writer on SQLite, so one claim and one mark
    /// per delivery were half of ingestion's writes.
    ///
    /// Up to [`PARALLEL_DELIVERIES`] deliveries are processed at once: each waits on the
    /// database most of its time, so one at a time would leave the platform's bursts queueing.
    /// Deliveries of one contact may then run together: every write they share is idempotent
    /// or only moves forward (one message per platform id, `last_inbound_at` raised in the
    /// message's insert, statuses compare-and-set).
    pub async fn process_due_until(&self, limit: u32, stop: &(dyn Fn() -> bool + Sync)) -> Result<ProcessSummary, DomainError> {
        let now = self.clock.now();
        let until = now + CLAIM_LEASE;
        let claimed = self.events.claim_due(now, until, limit).await?;
        let claimed_ids: Vec<String> = claimed.iter().map(|e| e.id.clone()).collect();
        // The stream takes deliveries in order, so those started are a prefix of the claim.
        let mut started = 0;
        let (done, finished) = futures_channel::mpsc::unbounded::<String>();
        let work = async {
            let outcomes: Vec<Result<DeliveryOutcome, DomainError>> = futures_util::stream::iter(claimed)
                .take_while(|_| std::future::ready(!stop()))
                .map(|event| {
                    started += 1;
                    self.handle(event, &done)
                })
                .buffer_unordered(PARALLEL_DELIVERIES)
                .collect()
                .await;
            drop(done);
            outcomes
        };
        let (outcomes, marked) = futures_util::join!(work, self.mark_as_they_finish(finished));
        self.events.release(&claimed_ids[started..], until, self.clock.now()).await?;
        marked?;
        let mut summary = ProcessSummary::default();
        for outcome in outcomes {
            summary.add(outcome?);
        }
        Ok(summary)
    }

    /// Marks deliveries processed as their ids arrive, each write taking every id that arrived
    /// meanwhile. A failed mark leaves its deliveries claimed: due again when the lease ends,
    /// and processing them again changes nothing (every write is idempotent).
    async fn mark_as_they_finish(&self, mut finished: futures_channel::mpsc::UnboundedReceiver<String>) -> Result<(), DomainError> {
        let mut result = Ok(());
        while let Some(first) = finished.next().await {
            let mut batch = vec![first];
            while let Ok(id) = finished.try_recv() {
                batch.push(id);
            }
            if let Err(e) = self.events.mark_processed(&batch, self.clock.now()).await {
                tracing::warn!(deliveries = batch.len(), error = %e, "processed webhook deliveries could not be marked; they will be processed again");
                result = Err(e.into());
            }
        }
        result
    }

    /// Processes one claimed delivery and records a failure; a success is sent to `done`, to
    /// be marked with others.
    async fn handle(
        &self,
        event: InboundDelivery,
        done: &futures_channel::mpsc::UnboundedSender<String>,
    ) -> Result<DeliveryOutcome, DomainError> {
        let result = self.process(&event).await;
        Ok(match result {
            Ok(set_aside) if set_aside.is_empty() => {
                // The receiver lives until every delivery is handled.
                let _ = done.unbounded_send(event.id);
                DeliveryOutcome::Processed
            }
            Ok(set_aside) => {
                // Rare: written on its own, with what was set aside.
                self.events.mark_set_aside(&event.id, &set_aside, self.clock.now()).await?;
                DeliveryOutcome::Processed
            }
            Err(failure) => match self.verdict(&event.id, event.attempts + 1, failure) {
                Verdict::GiveUp { error } => {
                    self.events.give_up(&event.id, &error, self.clock.now()).await?;
                    DeliveryOutcome::GaveUp
                }
                Verdict::Retry { error, at } => {
                    self.events.mark_failed(&event.id, &error, at).await?;
                    DeliveryOutcome::Retrying
                }
            },
        })
    }

    /// How failed attempt number `attempt` of a delivery ends, logged: the one rule for
    /// deliveries processed on receipt and from storage.
    fn verdict(&self, event: &str, attempt: u32, failure: Failure) -> Verdict {
        match failure {
            Failure::Permanent(error) => {
                tracing::warn!(event, error = %error, "webhook body can never be processed; given up (parley inbound failed)");
                Verdict::GiveUp { error }
            }
            Failure::Transient(e) if attempt >= MAX_ATTEMPTS => {
                tracing::warn!(event, attempts = attempt, error = %e, "webhook processing failed too often; given up (parley inbound failed)");
                Verdict::GiveUp { error: e.to_string() }
            }
            Failure::Transient(e) => {
                let at = self.clock.now() + backoff(attempt);
                tracing::warn!(event, attempts = attempt, error = %e, "webhook processing failed; will retry");
                Verdict::Retry { error: e.to_string(), at }
            }
        }
    }

    /// How many deliveries are stored and not processed yet (given-up ones excluded).
    pub async fn backlog(&self) -> Result<u64, DomainError> {
        Ok(self.events.backlog().await?)
    }

    /// How many deliveries were given up on and wait for an operator.
    pub async fn given_up(&self) -> Result<u64, DomainError> {
        Ok(self.events.given_up().await?)
    }

    /// Deliveries that failed at least once and are not processed (being retried, or given
    /// up), oldest first, with the lines their bodies name.
    pub async fn failed(&self, limit: u32) -> Result<Vec<FailedDelivery>, DomainError> {
        let mut failed = Vec::new();
        for event in self.events.failed(limit).await? {
            let mut lines = Vec::new();
            for news in self.decoders.decode(event.platform, &event.body).unwrap_or_default() {
                if lines.iter().any(|l: &DeliveryLine| l.account_id == news.account_id) {
                    continue;
                }
                let line = self.lines.find_by_account(event.platform, &news.account_id).await?;
                lines.push(DeliveryLine { account_id: news.account_id, line });
            }
            failed.push(FailedDelivery { event, lines });
        }
        Ok(failed)
    }

    /// Puts a given-up delivery, or one processed with messages set aside, back to be
    /// processed now, with a fresh count of attempts: what was stored is stored once, what was
    /// set aside is tried again. `NotFound` unless `id` is such a delivery.
    pub async fn retry(&self, id: &str) -> Result<(), DomainError> {
        if self.events.retry(id, self.clock.now()).await? {
            Ok(())
        } else {
            Err(DomainError::NotFound { resource: "given-up or set-aside webhook delivery", ids: vec![id.to_string()] })
        }
    }

    /// Puts every given-up delivery back to be processed now; returns how many.
    pub async fn retry_all(&self) -> Result<u64, DomainError> {
        Ok(self.events.retry_all(self.clock.now()).await?)
    }

    /// Processes a delivery: each status and message is applied or stored on its own, so one
    /// that cannot be never costs the others. Returns what was set aside (refused as invalid,
    /// by Parley's rules or by storage: trying again would not change that). A failure that may
    /// pass fails the delivery, to be retried: at once when storage is unavailable (the rest
    /// would fail too), otherwise after the rest of the delivery was tried.
    async fn process(&self, event: &InboundDelivery) -> Result<Vec<SetAside>, Failure> {
        let mut news = self.decoders.decode(event.platform, &event.body).map_err(Failure::Permanent)?;
        // A platform time far ahead of the receipt is the receipt's (docs/messages.md).
        news.iter_mut().flat_map(|n| n.inbound.iter_mut()).for_each(|m| m.at = crate::model::platform_time(m.at, event.received_at));
        let mut outcome = Outcomes::default();
        let mut status_position = 0u32;
        for line_news in news {
            if !line_news.template_notices.is_empty() {
                let applied = self.template_notices.apply(&line_news.account_id, &line_news.template_notices).await;
                let aside = |reason| SetAside {
                    kind: SetAsideKind::Status,
                    position: 0,
                    platform_id: line_news.template_notices.first().map(|n| n.template_id.as_str().to_string()),
                    from: None,
                    reason,
                };
                outcome.record(applied, aside)?;
                continue;
            }
            let first_status = status_position;
            status_position = status_position.saturating_add(u32::try_from(line_news.statuses.len()).unwrap_or(u32::MAX));
            let Some(line) = self.lines.find_by_account(event.platform, &line_news.account_id).await? else {
                tracing::info!(platform = event.platform.as_str(), account_id = %line_news.account_id, "webhook for an unknown line ignored");
                continue;
            };
            outcome.set_aside.extend(line_news.set_aside.iter().cloned());
            for (n, update) in (1u32..).zip(&line_news.statuses) {
                let applied = async {
                    self.apply_status(&line.agent_id, update).await?;
                    self.timeline.apply_status(&line.agent_id, update).await
                };
                let aside = |reason| SetAside {
                    kind: SetAsideKind::Status,
                    position: first_status.saturating_add(n),
                    platform_id: Some(update.message_id.clone()),
                    from: None,
                    reason,
                };
                outcome.record(applied.await, aside)?;
            }
            for message in &line_news.inbound {
                let aside = |reason| SetAside {
                    kind: SetAsideKind::Message,
                    position: message.position,
                    platform_id: Some(message.platform_message_id.clone()),
                    from: Some(message.from.clone()),
                    reason,
                };
                let channel = match message.channel(line.channel_type()) {
                    Ok(channel) => channel,
                    Err(reason) => {
                        outcome.set_aside.push(aside(reason));
                        continue;
                    }
                };
                let stored = async {
                    if message.echo {
                        let activity = self.conversations.outbound(&line.agent_id, &channel).await?;
                        return self.timeline.record_echo(&line, &activity, channel.address(), message).await;
                    }
                    if let MessageContent::System(_) = message.content {
                        let (activity, update) =
                            self.conversations.identity_notice(&line.agent_id, &channel, message.identity.as_ref()).await?;
                        return self.timeline.record_notice(&line, &activity, channel.address(), message, update.as_ref()).await;
                    }
                    let looked_up = match message.profile_name {
                        Some(_) => None,
                        None => self.profile_name(&line, &channel).await?,
                    };
                    let name = message.profile_name.as_deref().or(looked_up.as_deref());
                    let (activity, update) =
                        self.conversations.inbound(&line.agent_id, &channel, name, message.at, message.identity.as_ref()).await?;
                    self.timeline.record_inbound(&line, &activity, channel.address(), message, update.as_ref()).await
                };
                outcome.record(stored.await.map(drop), aside)?;
            }
            for receipt in &line_news.reads {
                let aside = |reason| SetAside {
                    kind: SetAsideKind::Status,
                    position: 0,
                    platform_id: None,
                    from: Some(receipt.contact.clone()),
                    reason,
                };
                outcome.record(self.apply_read(&line, receipt).await, aside)?;
            }
            for deletion in &line_news.deletions {
                let aside = |reason| SetAside {
                    kind: SetAsideKind::Message,
                    position: 0,
                    platform_id: Some(deletion.platform_message_id.clone()),
                    from: None,
                    reason,
                };
                outcome.record(self.timeline.mark_deleted(&line.agent_id, deletion).await, aside)?;
            }
        }
        for aside in &outcome.set_aside {
            tracing::warn!(event = %event.id, kind = aside.kind.as_str(), position = aside.position, reason = %aside.reason,
                "part of a webhook delivery set aside (parley inbound failed)");
        }
        match outcome.retry {
            Some(e) => Err(Failure::Transient(e)),
            None => Ok(outcome.set_aside),
        }
    }

    /// The name the platform shows for a contact Parley does not know yet; `None` for a known
    /// one (their name is kept), or when the look-up fails: the contact is then named by their
    /// id, and a later message can name them.
    async fn profile_name(&self, line: &Line, channel: &Channel) -> Result<Option<String>, DomainError> {
        if self.conversations.knows(&line.agent_id, channel).await? {
            return Ok(None);
        }
        match self.platform.profile_name(line, channel.channel_id()).await {
            Ok(name) => Ok(name),
            Err(e) => {
                tracing::warn!(line = %line.id.as_str(), error = %e, "a contact's profile could not be looked up; named by their id");
                Ok(None)
            }
        }
    }

    /// The contact read the conversation: the business's messages to them on the line, sent up
    /// to the receipt, become `read` (as a status report would move each).
    async fn apply_read(&self, line: &Line, receipt: &ReadReceipt) -> Result<(), DomainError> {
        let channel = Channel::new(line.channel_type(), &receipt.contact).map_err(DomainError::from)?;
        let Some(activity) = self.conversations.activity_of(&line.agent_id, &channel).await? else { return Ok(()) };
        let unread = self.timeline.unread_outbound(&line.agent_id, &activity.id, &line.id, receipt.up_to).await?;
        for message in unread {
            let Some(platform_id) = message.platform_message_id else { continue };
            let update = StatusUpdate {
                message_id: platform_id,
                status: ExecutionStatus::Read,
                at: receipt.at,
                error: None,
                callback_data: None,
                pricing: None,
            };
            self.timeline.apply_status(&line.agent_id, &update).await?;
        }
        Ok(())
    }

    /// Moves an execution forward; duplicates, late reports and messages sent outside a
    /// campaign change nothing. Its message moves by the same report ([`Timeline::apply_status`]).
    async fn apply_status(&self, agent: &AgentId, update: &StatusUpdate) -> Result<(), DomainError> {
        for _ in 0..CAS_ATTEMPTS {
            let Some(mut execution) = self.executions.find_by_message(agent, &update.message_id).await? else { return Ok(()) };
            let expected = execution.status;
            if !execution.apply(update, self.clock.now()) {
                return Ok(());
            }
            let updated = self.maker.make(agent, EventType::ExecutionUpdated, execution.updated_at, &execution);
            if self.executions.update(&execution, expected, &[updated]).await? {
                return Ok(());
            }
        }
        Err(DomainError::Unavailable(format!("execution of {} kept changing under concurrent updates", update.message_id).into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockExecutionRepository, MockIdSource, MockInboundDeliveryRepository, MockLineRepository};

    /// Events whose claims return `claimed`, and whose unstarted deliveries are handed back.
    fn claiming(claimed: Vec<InboundDelivery>) -> MockInboundDeliveryRepository {
        let mut events = MockInboundDeliveryRepository::new();
        events.expect_claim_due().times(1).returning(move |_, _, _| Ok(claimed.clone()));
        events
    }

    fn releasing_none(events: &mut MockInboundDeliveryRepository) {
        events.expect_release().withf(|ids, _, _| ids.is_empty()).returning(|_, _, _| Ok(()));
    }

    fn repos(events: MockInboundDeliveryRepository, lines: MockLineRepository, executions: MockExecutionRepository) -> InboundPorts {
        use crate::ports::*;
        InboundPorts {
            deliveries: Arc::new(events),
            lines: Arc::new(lines),
            executions: Arc::new(executions),
            contacts: Arc::new(MockContactRepository::new()),
            activities: Arc::new(MockActivityRepository::new()),
            messages: Arc::new(MockMessageRepository::new()),
            carts: Arc::new(MockCartRepository::new()),
            files: Arc::new(MockFileRepository::new()),
            templates: Arc::new(MockTemplateRepository::new()),
            due: crate::services::ResponseDue::no_targets(),
        }
    }

    fn service(r: InboundPorts) -> InboundService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        let decoders = Decoders::default().with(ChannelType::Whatsapp, Arc::new(TestDecoder));
        let platform = Arc::new(crate::ports::MockMessagingPlatform::new());
        InboundService::new(r, decoders, platform, Arc::new(clock), Arc::new(ids))
    }

    /// Reads the tests' bodies, a part per line: `status ACCOUNT ID STATUS`, `aside ACCOUNT FROM
    /// ID` (a message the platform's decoder set aside), `line ACCOUNT` (a line named with nothing
    /// for it). Anything else is not a body.
    struct TestDecoder;

    impl InboundDecoder for TestDecoder {
        fn decode(&self, body: &str) -> Result<Vec<LineNews>, String> {
            let mut news: Vec<LineNews> = Vec::new();
            for (n, part) in (1u32..).zip(body.lines().map(str::trim).filter(|l| !l.is_empty())) {
                let words: Vec<&str> = part.split(' ').collect();
                let account = *words.get(1).ok_or_else(|| format!("not a test body: {part}"))?;
                let at = match news.iter().position(|x| x.account_id == account) {
                    Some(at) => at,
                    None => {
                        news.push(LineNews { account_id: account.into(), ..LineNews::default() });
                        news.len() - 1
                    }
                };
                match words[..] {
                    ["status", _, id, status] => news[at].statuses.push(StatusUpdate {
                        message_id: id.into(),
                        status: ExecutionStatus::parse(status).ok_or("not a status")?,
                        at: chrono::DateTime::from_timestamp(1, 0).unwrap(),
                        error: None,
                        callback_data: None,
                        pricing: None,
                    }),
                    ["aside", _, from, id] => news[at].set_aside.push(SetAside {
                        kind: SetAsideKind::Message,
                        position: n,
                        platform_id: Some(id.into()),
                        from: Some(from.into()),
                        reason: "unreadable".into(),
                    }),
                    ["line", _] => {}
                    _ => return Err(format!("not a test body: {part}")),
                }
            }
            Ok(news)
        }
    }

    fn event(body: &str) -> InboundDelivery {
        InboundDelivery {
            id: "whk_1".into(),
            platform: ChannelType::Whatsapp,
            body: body.into(),
            received_at: chrono::Utc::now(),
            attempts: 2,
            last_error: None,
            next_attempt_at: Some(chrono::Utc::now()),
            processed_at: None,
            failed_at: None,
            set_aside: Vec::new(),
        }
    }

    const STATUS_BODY: &str = "status 106540352242922 pm.1 read";

    fn known_line() -> MockLineRepository {
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_account().returning(|_, phone| {
            Ok(Some(Line {
                id: LineId::new("chn_1"),
                agent_id: AgentId::new("agt_1"),
                account: LineAccount::Whatsapp { phone_number_id: PhoneNumberId::new(phone).unwrap(), waba_id: WabaId::new("2").unwrap() },
                access: LineAccess::Sandbox,
                created_at: chrono::Utc::now(),
                pace: Default::default(),
            }))
        });
        lines
    }

    /// Executions whose storage is unavailable: a failure that may pass.
    fn unavailable_executions() -> MockExecutionRepository {
        let mut executions = MockExecutionRepository::new();
        executions.expect_find_by_message().returning(|_, _| Err(crate::StoreError::Unavailable("pool timed out".into())));
        executions
    }

    #[tokio::test]
    async fn an_unparseable_body_is_given_up_at_its_first_attempt() {
        let mut events = claiming(vec![InboundDelivery { attempts: 0, ..event("garbage") }]);
        releasing_none(&mut events);
        // It can never parse: no retry is scheduled, it waits for an operator.
        events.expect_mark_failed().never();
        events.expect_give_up().withf(|id, err, _| id == "whk_1" && err.contains("not a test body")).times(1).returning(|_, _, _| Ok(()));
        let summary = service(repos(events, MockLineRepository::new(), MockExecutionRepository::new())).process_due(10).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 0, failed: 0, gave_up: 1 });
    }

    #[tokio::test]
    async fn a_delivery_is_read_by_its_platforms_decoder_and_one_without_is_given_up() {
        let from_instagram = InboundDelivery { attempts: 0, platform: ChannelType::Instagram, ..event(STATUS_BODY) };
        let mut events = claiming(vec![from_instagram]);
        releasing_none(&mut events);
        events.expect_mark_failed().never();
        events.expect_give_up().withf(|_, err, _| err == "no decoder for instagram webhooks").times(1).returning(|_, _, _| Ok(()));
        let summary = service(repos(events, MockLineRepository::new(), MockExecutionRepository::new())).process_due(10).await.unwrap();
        assert_eq!(summary.gave_up, 1, "the WhatsApp decoder never reads another platform's body");
    }

    #[tokio::test]
    async fn a_failure_that_may_pass_is_retried_with_backoff_below_the_bound() {
        // Two attempts failed before: the third fails too and is retried after 2^3 s.
        let mut events = claiming(vec![event(STATUS_BODY)]);
        releasing_none(&mut events);
        events
            .expect_mark_failed()
            .withf(|id, err, at| id == "whk_1" && err.contains("pool timed out") && *at > chrono::Utc::now() + TimeDelta::seconds(7))
            .times(1)
            .returning(|_, _, _| Ok(()));
        events.expect_give_up().never();
        let summary = service(repos(events, known_line(), unavailable_executions())).process_due(10).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 0, failed: 1, gave_up: 0 });
    }

    #[tokio::test]
    async fn the_last_allowed_attempt_that_fails_gives_up_with_its_error() {
        let mut events = claiming(vec![InboundDelivery { attempts: MAX_ATTEMPTS - 1, ..event(STATUS_BODY) }]);
        releasing_none(&mut events);
        events.expect_mark_failed().never();
        events.expect_give_up().withf(|id, err, _| id == "whk_1" && err.contains("pool timed out")).times(1).returning(|_, _, _| Ok(()));
        let summary = service(repos(events, known_line(), unavailable_executions())).process_due(10).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 0, failed: 0, gave_up: 1 });
    }

    #[tokio::test]
    async fn every_attempt_before_the_bound_is_retried_and_the_bound_is_reached_in_about_an_hour() {
        // The whole schedule: MAX_ATTEMPTS - 1 retries, then the give-up.
        let waits: Vec<TimeDelta> = (1..MAX_ATTEMPTS).map(backoff).collect();
        let total = waits.iter().copied().sum::<TimeDelta>();
        assert!(total > TimeDelta::minutes(30) && total < TimeDelta::hours(2), "{total}");
        for attempts in 0..MAX_ATTEMPTS {
            let mut events = claiming(vec![InboundDelivery { attempts, ..event(STATUS_BODY) }]);
            releasing_none(&mut events);
            let last = attempts + 1 == MAX_ATTEMPTS;
            events.expect_mark_failed().times(usize::from(!last)).returning(|_, _, _| Ok(()));
            events.expect_give_up().times(usize::from(last)).returning(|_, _, _| Ok(()));
            service(repos(events, known_line(), unavailable_executions())).process_due(10).await.unwrap();
        }
    }

    #[tokio::test]
    async fn failed_deliveries_name_their_lines_when_the_body_reads() {
        let mut events = MockInboundDeliveryRepository::new();
        events.expect_failed().returning(|_| Ok(vec![InboundDelivery { id: "whk_bad".into(), ..event("garbage") }, event(STATUS_BODY)]));
        let failed = service(repos(events, known_line(), MockExecutionRepository::new())).failed(10).await.unwrap();
        assert!(failed[0].lines.is_empty(), "an unreadable body names no line");
        assert_eq!(failed[1].lines.len(), 1);
        assert_eq!(failed[1].lines[0].account_id, "106540352242922");
        assert_eq!(failed[1].lines[0].line.as_ref().map(|l| l.agent_id.as_str()), Some("agt_1"));
    }

    #[tokio::test]
    async fn retrying_something_not_given_up_is_not_found() {
        let mut events = MockInboundDeliveryRepository::new();
        events.expect_retry().withf(|id, _| id == "whk_1").returning(|_, _| Ok(true));
        events.expect_retry().returning(|_, _| Ok(false));
        let service = service(repos(events, MockLineRepository::new(), MockExecutionRepository::new()));
        service.retry("whk_1").await.unwrap();
        assert!(matches!(service.retry("whk_2").await, Err(DomainError::NotFound { .. })));
    }

    /// A body for a line Parley does not know: processed without touching anything else.
    const UNKNOWN_LINE_BODY: &str = "line 999";

    fn unknown_lines() -> MockLineRepository {
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_account().returning(|_, _| Ok(None));
        lines
    }

    #[tokio::test]
    async fn a_claim_holds_the_deliveries_for_the_lease() {
        let mut events = MockInboundDeliveryRepository::new();
        events
            .expect_claim_due()
            .withf(|now, until, limit| *until == *now + CLAIM_LEASE && *limit == 10)
            .times(1)
            .returning(|_, _, _| Ok(vec![event(UNKNOWN_LINE_BODY)]));
        events.expect_mark_processed().times(1).returning(|_, _| Ok(()));
        releasing_none(&mut events);
        let summary = service(repos(events, unknown_lines(), MockExecutionRepository::new())).process_due(10).await.unwrap();
        assert_eq!(summary.processed, 1);
    }

    #[tokio::test]
    async fn deliveries_that_finish_together_are_marked_processed_in_one_write() {
        let claimed = (1..=3).map(|n| InboundDelivery { id: format!("whk_{n}"), ..event(UNKNOWN_LINE_BODY) }).collect();
        let mut events = claiming(claimed);
        events
            .expect_mark_processed()
            .withf(|ids, _| {
                let mut ids = ids.to_vec();
                ids.sort();
                ids == ["whk_1", "whk_2", "whk_3"]
            })
            .times(1)
            .returning(|_, _| Ok(()));
        releasing_none(&mut events);
        let summary = service(repos(events, unknown_lines(), MockExecutionRepository::new())).process_due(10).await.unwrap();
        assert_eq!(summary.processed, 3);
    }

    #[tokio::test]
    async fn a_failed_mark_fails_the_pass_and_leaves_the_deliveries_claimed() {
        let mut events = claiming(vec![event(UNKNOWN_LINE_BODY)]);
        events.expect_mark_processed().times(1).returning(|_, _| Err(crate::StoreError::Unavailable("pool timed out".into())));
        // Not handed back: it was processed, and processing it again after the lease changes nothing.
        releasing_none(&mut events);
        let result = service(repos(events, unknown_lines(), MockExecutionRepository::new())).process_due(10).await;
        assert!(matches!(result, Err(DomainError::Unavailable(_))), "{result:?}");
    }

    #[tokio::test]
    async fn unknown_lines_are_ignored_and_the_event_completes() {
        let body = "status 999 w read";
        let mut events = claiming(vec![event(body)]);
        events.expect_mark_processed().times(1).returning(|_, _| Ok(()));
        releasing_none(&mut events);
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_account().returning(|_, _| Ok(None));
        let mut executions = MockExecutionRepository::new();
        executions.expect_find_by_message().never();
        let summary = service(repos(events, lines, executions)).process_due(10).await.unwrap();
        assert_eq!(summary.processed, 1);
    }

    #[tokio::test]
    async fn a_stop_request_ends_processing_between_deliveries_never_inside_one() {
        let body = "status 999 w read";
        let mut events = claiming((1..=3).map(|n| InboundDelivery { id: format!("whk_{n}"), ..event(body) }).collect());
        // The first delivery is in hand when the stop arrives: it completes; the others are
        // handed back, due at once for whichever process runs next.
        events.expect_mark_processed().withf(|ids, _| ids == ["whk_1"]).times(1).returning(|_, _| Ok(()));
        events.expect_release().withf(|ids, _, _| ids == ["whk_2", "whk_3"]).times(1).returning(|_, _, _| Ok(()));
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_account().returning(|_, _| Ok(None));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let service = service(repos(events, lines, MockExecutionRepository::new()));
        // "Go" when asked before the first delivery, "stop" from then on.
        let stop_after_first = || stop.swap(true, std::sync::atomic::Ordering::SeqCst);
        let summary = service.process_due_until(10, &stop_after_first).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 1, failed: 0, gave_up: 0 });
    }

    #[tokio::test]
    async fn a_delivery_processed_on_receipt_is_stored_processed() {
        let mut events = MockInboundDeliveryRepository::new();
        events
            .expect_insert()
            .withf(|e| e.processed_at.is_some() && e.next_attempt_at.is_none() && e.attempts == 0 && e.body == UNKNOWN_LINE_BODY)
            .times(1)
            .returning(|_| Ok(()));
        let service = service(repos(events, unknown_lines(), MockExecutionRepository::new()));
        let (id, outcome) = service.receive_and_process(ChannelType::Whatsapp, UNKNOWN_LINE_BODY.into()).await.unwrap();
        assert_eq!((id.as_str(), outcome), ("whk_1", DeliveryOutcome::Processed));
    }

    #[tokio::test]
    async fn a_delivery_that_fails_on_receipt_is_stored_for_the_processors_to_retry() {
        let mut events = MockInboundDeliveryRepository::new();
        events
            .expect_insert()
            .withf(|e| {
                let retry_at = e.next_attempt_at.is_some_and(|at| at >= e.received_at + backoff(1));
                e.processed_at.is_none()
                    && e.failed_at.is_none()
                    && e.attempts == 1
                    && retry_at
                    && e.last_error.as_deref().is_some_and(|err| err.contains("pool timed out"))
            })
            .times(1)
            .returning(|_| Ok(()));
        let service = service(repos(events, known_line(), unavailable_executions()));
        assert_eq!(service.receive_and_process(ChannelType::Whatsapp, STATUS_BODY.into()).await.unwrap().1, DeliveryOutcome::Retrying);
    }

    #[tokio::test]
    async fn an_unreadable_delivery_on_receipt_is_stored_given_up() {
        let mut events = MockInboundDeliveryRepository::new();
        events
            .expect_insert()
            .withf(|e| e.failed_at.is_some() && e.next_attempt_at.is_none() && e.attempts == 1 && e.processed_at.is_none())
            .times(1)
            .returning(|_| Ok(()));
        let service = service(repos(events, MockLineRepository::new(), MockExecutionRepository::new()));
        assert_eq!(service.receive_and_process(ChannelType::Whatsapp, "garbage".into()).await.unwrap().1, DeliveryOutcome::GaveUp);
    }

    /// Three read reports for the line, of pm.1, pm.2 and pm.3.
    const THREE_STATUSES: &str = "status 106540352242922 pm.1 read\nstatus 106540352242922 pm.2 read\nstatus 106540352242922 pm.3 read";

    /// Executions failing `pm.2` with `error`, finding nothing for the others; messages
    /// asked for exactly `asked` (none found).
    fn failing_the_middle(events: MockInboundDeliveryRepository, error: crate::StoreError, asked: &'static [&'static str]) -> InboundPorts {
        let mut executions = MockExecutionRepository::new();
        executions.expect_find_by_message().returning(move |_, id| if id == "pm.2" { Err(error.clone()) } else { Ok(None) });
        let mut messages = crate::ports::MockMessageRepository::new();
        messages.expect_find_by_platform_id().withf(move |_, id| asked.contains(&id)).times(asked.len()).returning(|_, _| Ok(None));
        let mut r = repos(events, known_line(), executions);
        r.messages = Arc::new(messages);
        r
    }

    #[tokio::test]
    async fn a_part_storage_refuses_is_set_aside_and_the_rest_of_the_delivery_goes_through() {
        let mut events = claiming(vec![event(THREE_STATUSES)]);
        releasing_none(&mut events);
        events.expect_mark_processed().never();
        events.expect_mark_failed().never();
        events
            .expect_mark_set_aside()
            .withf(|id, aside, _| {
                id == "whk_1"
                    && aside.len() == 1
                    && (aside[0].kind, aside[0].position, aside[0].platform_id.as_deref()) == (SetAsideKind::Status, 2, Some("pm.2"))
                    && aside[0].reason.contains("cannot be stored: invalid byte sequence")
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let refused = crate::StoreError::Refused("invalid byte sequence for encoding \"UTF8\": 0x00".into());
        let r = failing_the_middle(events, refused, &["pm.1", "pm.3"]);
        let summary = service(r).process_due(10).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 1, failed: 0, gave_up: 0 }, "completed, not retried");
    }

    #[tokio::test]
    async fn a_failure_that_may_pass_lets_the_rest_through_then_retries_the_delivery() {
        let mut events = claiming(vec![event(THREE_STATUSES)]);
        releasing_none(&mut events);
        events.expect_mark_set_aside().never();
        events.expect_mark_failed().withf(|_, err, _| err.contains("a bug")).times(1).returning(|_, _, _| Ok(()));
        let r = failing_the_middle(events, crate::StoreError::Internal("a bug".into()), &["pm.1", "pm.3"]);
        assert_eq!(service(r).process_due(10).await.unwrap().failed, 1);
    }

    #[tokio::test]
    async fn storage_unavailable_fails_the_delivery_at_once() {
        let mut events = claiming(vec![event(THREE_STATUSES)]);
        releasing_none(&mut events);
        events.expect_mark_set_aside().never();
        events.expect_mark_failed().times(1).returning(|_, _, _| Ok(()));
        let r = failing_the_middle(events, crate::StoreError::Unavailable("pool timed out".into()), &["pm.1"]);
        assert_eq!(service(r).process_due(10).await.unwrap().failed, 1);
    }

    #[tokio::test]
    async fn a_message_its_decoder_set_aside_is_stored_set_aside_on_receipt() {
        let body = "aside 106540352242922 14155550100 pm.unreadable";
        let mut events = MockInboundDeliveryRepository::new();
        events
            .expect_insert()
            .withf(|e| {
                e.processed_at.is_some()
                    && e.failed_at.is_none()
                    && e.set_aside.len() == 1
                    && e.set_aside[0].from.as_deref() == Some("14155550100")
                    && e.set_aside[0].platform_id.as_deref() == Some("pm.unreadable")
            })
            .times(1)
            .returning(|_| Ok(()));
        let service = service(repos(events, known_line(), MockExecutionRepository::new()));
        assert_eq!(service.receive_and_process(ChannelType::Whatsapp, body.into()).await.unwrap().1, DeliveryOutcome::Processed);
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        assert_eq!(backoff(1), TimeDelta::seconds(2));
        assert_eq!(backoff(3), TimeDelta::seconds(8));
        assert_eq!(backoff(40), TimeDelta::hours(1));
    }
}
