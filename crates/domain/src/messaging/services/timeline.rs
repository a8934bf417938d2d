use std::sync::Arc;

use crate::DomainError;
use crate::model::*;
use crate::ports::{
    ActivityRepository, CartRepository, Clock, FileRepository, IdSource, MessageRepository, ScheduledSendRepository, StoredFile,
};
use crate::services::{EventMaker, ResponseDue};

/// Compare-and-set attempts before a status update gives up for this pass.
pub(crate) const CAS_ATTEMPTS: usize = 3;

/// Messages one read receipt moves at most: a conversation rarely holds more unread than this,
/// and a bounded write keeps one receipt from holding a processor for long.
const READ_RECEIPT_BATCH: u32 = 200;

/// The latest messages of an activity an echo is matched against: a reply being sent is among
/// the newest (it was recorded a moment before).
const ECHO_LOOKBACK: u32 = 20;

/// Writes an activity's timeline: inbound messages as the webhook reports them, outbound ones
/// as the platform accepts them, and the statuses it reports later. Shared by webhook
/// processing, template sends and replies, so each kind of message is recorded one way.
pub(crate) struct Timeline {
    messages: Arc<dyn MessageRepository>,
    carts: Arc<dyn CartRepository>,
    activities: Arc<dyn ActivityRepository>,
    files: Arc<dyn FileRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: EventMaker,
    /// When a conversation a contact opens must be answered.
    due: ResponseDue,
    /// Its sends are a rule's or the away message: they answer nobody (the first-response
    /// clock waits for the team).
    automated: bool,
}

/// The ports a timeline writes through: messages, the carts they name, their activities (moved
/// with each message) and the files inbound media are kept in.
pub(crate) struct TimelinePorts {
    pub messages: Arc<dyn MessageRepository>,
    pub carts: Arc<dyn CartRepository>,
    pub activities: Arc<dyn ActivityRepository>,
    pub files: Arc<dyn FileRepository>,
    /// The agents' first-response targets and hours.
    pub due: ResponseDue,
}

/// A reply about to be sent, to be recorded on its activity first ([`Timeline::record_sending`]).
pub(crate) struct Outgoing<'a> {
    pub activity: &'a ActivityId,
    pub channel: Channel,
    pub line: &'a LineId,
    pub content: MessageContent,
    pub reply_to: Option<MessageId>,
}

/// An outbound message the platform accepted, to be recorded on its activity.
pub(crate) struct Accepted<'a> {
    pub activity: &'a ActivityId,
    pub channel: Channel,
    pub line: &'a LineId,
    pub content: MessageContent,
    pub platform_message_id: String,
    pub reply_to: Option<MessageId>,
    pub template_id: Option<TemplateId>,
    pub campaign_key: Option<CampaignKey>,
}

impl Timeline {
    pub(crate) fn new(ports: TimelinePorts, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>, events: EventMaker) -> Self {
        let TimelinePorts { messages, carts, activities, files, due } = ports;
        Self { messages, carts, activities, files, clock, ids, events, due, automated: false }
    }

    /// The same, its changes reported as a rule's (they run no rules).
    pub(crate) fn by_rules(self) -> Self {
        Self { events: self.events.by_rules(), automated: true, ..self }
    }

    /// A new message `id` of `activity` through `line`, made at `at`: what every recorded message
    /// starts from (nothing the platform reports later, no links), each caller setting the rest.
    #[expect(clippy::too_many_arguments, reason = "every field a recorded message starts from, named at the call")]
    fn new_message(
        id: MessageId,
        agent: &AgentId,
        activity: &ActivityId,
        line: Option<&LineId>,
        channel: Channel,
        content: MessageContent,
        direction: MessageDirection,
        status: MessageStatus,
        at: Timestamp,
    ) -> Message {
        Message {
            id,
            agent_id: agent.clone(),
            activity_id: activity.clone(),
            direction,
            content,
            reply_to: None,
            platform_message_id: None,
            channel,
            line_id: line.cloned(),
            status,
            error_message: None,
            template_id: None,
            campaign_key: None,
            cart_code: None,
            referral: None,
            pricing: None,
            created_at: at,
            sent_at: None,
            send_at: None,
            delivered_at: None,
            read_at: None,
            deleted_at: None,
            updated_at: at,
        }
    }

    fn next_id(&self) -> MessageId {
        MessageId::new(self.ids.new_id(IdKind::Message))
    }

    /// Records a message the contact sent on `line`, once: `false` when it was already stored
    /// (a delivery the platform repeated, or one processed again). Storing it reopens the
    /// activity and moves its `last_inbound_at`, in the same transaction.
    /// Its `context` becomes `reply_to` when it names a message of the same activity, and a
    /// link to one of the agent's carts sets `cart_code`.
    pub(crate) async fn record_inbound(
        &self,
        line: &Line,
        activity: &Activity,
        channel: Channel,
        inbound: &InboundMessage,
        update: Option<&ChannelUpdate>,
    ) -> Result<bool, DomainError> {
        let agent = &line.agent_id;
        // The files first: a message stored is never missing one, and storing them again when
        // the delivery is processed again changes nothing.
        for file in &inbound.files {
            let stored = StoredFile {
                id: file.id.clone(),
                agent_id: agent.clone(),
                filename: file.filename.clone(),
                mime_type: file.mime_type.clone(),
                bytes: file.bytes.clone(),
                created_at: inbound.at,
            };
            self.files.put(&stored).await?;
        }
        let reply_to = self.quoted(agent, activity, inbound).await?;
        let cart_code = match inbound.content.text().and_then(cart_code_in) {
            Some(code) => self.carts.get(agent, &code).await?.map(|_| code),
            None => None,
        };
        let content = inbound.content.clone();
        let message = Message {
            reply_to,
            platform_message_id: Some(inbound.platform_message_id.clone()),
            cart_code,
            referral: inbound.referral.clone(),
            updated_at: self.clock.now(),
            ..Self::new_message(
                self.next_id(),
                agent,
                &activity.id,
                Some(&line.id),
                channel,
                content,
                MessageDirection::Inbound,
                MessageStatus::Received,
                inbound.at,
            )
        };
        let mut events = vec![self.events.make(agent, EventType::MessageReceived, message.updated_at, &message)];
        // A message reopens a closed or archived conversation: that status change is reported
        // as the activity after it, as its next read shows it.
        if activity.status != ActivityStatus::Open
            && let Some(mut view) = self.activities.get(agent, &activity.id).await?
            && view.activity.status != ActivityStatus::Open
        {
            view.activity.status = ActivityStatus::Open;
            view.activity.updated_at = view.activity.updated_at.max(message.updated_at);
            view.activity.last_inbound_at = Some(view.activity.last_inbound_at.map_or(message.created_at, |t| t.max(message.created_at)));
            let newer = view.last_message.as_ref().is_none_or(|last| (last.created_at, &last.id) < (message.created_at, &message.id));
            if newer {
                view.last_message = Some(MessageSummary::of(&message));
            }
            view.unread_count += 1;
            events.push(self.events.make(agent, EventType::ActivityUpdated, message.updated_at, &view));
        }
        let opens = ResponseMark::Opens { due: self.due.due(agent, message.created_at).await? };
        Ok(self.messages.insert_marked(&message, update, opens, &events).await?)
    }

    /// What the business's message marks on the first-response clock: the team's answer,
    /// unless a rule or a campaign sent it.
    fn answer_mark(&self, campaign: Option<&CampaignKey>) -> ResponseMark {
        if self.automated { ResponseMark::Nothing } else { ResponseMark::team_message(campaign) }
    }

    /// Records the platform's notice about the user (a changed number or user id) in their
    /// activity's timeline, once per platform id, with `message.received`: `internal`, as a
    /// note is, so it leaves the conversation's status, unread count and messaging window as
    /// they are (the user wrote nothing). `false` when it was already stored.
    pub(crate) async fn record_notice(
        &self,
        line: &Line,
        activity: &Activity,
        channel: Channel,
        notice: &InboundMessage,
        update: Option<&ChannelUpdate>,
    ) -> Result<bool, DomainError> {
        let agent = &line.agent_id;
        let message = Message {
            platform_message_id: Some(notice.platform_message_id.clone()),
            updated_at: self.clock.now(),
            ..Self::new_message(
                self.next_id(),
                agent,
                &activity.id,
                Some(&line.id),
                channel,
                notice.content.clone(),
                MessageDirection::Internal,
                MessageStatus::Received,
                notice.at,
            )
        };
        let received = self.events.make(agent, EventType::MessageReceived, message.updated_at, &message);
        Ok(self.messages.insert_marked(&message, update, ResponseMark::Nothing, &[received]).await?)
    }

    /// Records a message the business sent from the platform's own app (an echo), once: outbound,
    /// `sent` at the platform's time. `false` when it was already stored (Parley sent it, or the
    /// platform repeated the delivery).
    pub(crate) async fn record_echo(
        &self,
        line: &Line,
        activity: &Activity,
        channel: Channel,
        echo: &InboundMessage,
    ) -> Result<bool, DomainError> {
        let agent = &line.agent_id;
        // The echo of a reply Parley is sending, come before the platform's answer to the send:
        // it is that reply (which takes its id and moves to `sent`), not a message of its own.
        if let Some(reply) = self.sending_like(agent, activity, line, &echo.content).await? {
            return match self.confirm_sent(reply, echo.platform_message_id.clone()).await {
                Err(DomainError::Conflict { .. }) => Ok(false),
                other => other.map(|_| true),
            };
        }
        let reply_to = self.quoted(agent, activity, echo).await?;
        let content = echo.content.clone();
        let message = Message {
            reply_to,
            platform_message_id: Some(echo.platform_message_id.clone()),
            sent_at: Some(echo.at),
            send_at: None,
            updated_at: self.clock.now(),
            ..Self::new_message(
                self.next_id(),
                agent,
                &activity.id,
                Some(&line.id),
                channel,
                content,
                MessageDirection::Outbound,
                MessageStatus::Sent,
                echo.at,
            )
        };
        let sent = self.events.make(agent, EventType::MessageSent, message.updated_at, &message);
        Ok(self.messages.insert_marked(&message, None, self.answer_mark(None), &[sent]).await?)
    }

    /// Our id of the message `message` answers or quotes, when the platform's id it names is a
    /// message of the same activity.
    async fn quoted(&self, agent: &AgentId, activity: &Activity, message: &InboundMessage) -> Result<Option<MessageId>, DomainError> {
        let Some(platform_id) = &message.reply_to else { return Ok(None) };
        let found = self.messages.find_by_platform_id(agent, platform_id).await?;
        Ok(found.filter(|m| m.activity_id == activity.id).map(|m| m.id))
    }

    /// The activity's newest reply on `line` still `sending` with exactly `content`, among its
    /// latest messages: what an echo that beat its send's answer is the echo of.
    async fn sending_like(
        &self,
        agent: &AgentId,
        activity: &Activity,
        line: &Line,
        content: &MessageContent,
    ) -> Result<Option<Message>, DomainError> {
        let latest = self.messages.list(agent, &activity.id, MessageFilter::default(), PageRequest::new(ECHO_LOOKBACK, 0)).await?;
        Ok(latest
            .items
            .into_iter()
            .find(|m| m.status == MessageStatus::Sending && m.line_id.as_ref() == Some(&line.id) && &m.content == content))
    }

    /// Marks the agent's message that the platform reports deleted, once (`message.updated`);
    /// an unknown or already deleted one changes nothing.
    pub(crate) async fn mark_deleted(&self, agent: &AgentId, deletion: &Deletion) -> Result<(), DomainError> {
        let Some(mut message) = self.messages.find_by_platform_id(agent, &deletion.platform_message_id).await? else { return Ok(()) };
        if message.deleted_at.is_some() {
            return Ok(());
        }
        message.deleted_at = Some(deletion.at);
        message.updated_at = self.clock.now().max(message.updated_at);
        let updated = self.events.make(agent, EventType::MessageUpdated, message.updated_at, &message);
        self.messages.mark_deleted(&message, &[updated]).await?;
        Ok(())
    }

    /// Records an outbound message the platform accepted (`sent`), and returns it.
    pub(crate) async fn record_outbound(&self, agent: &AgentId, accepted: Accepted<'_>) -> Result<Message, DomainError> {
        let now = self.clock.now();
        let (direction, status) = (MessageDirection::Outbound, MessageStatus::Sent);
        let message = Message {
            reply_to: accepted.reply_to,
            platform_message_id: Some(accepted.platform_message_id),
            template_id: accepted.template_id,
            campaign_key: accepted.campaign_key,
            sent_at: Some(now),
            send_at: None,
            ..Self::new_message(
                self.next_id(),
                agent,
                accepted.activity,
                Some(accepted.line),
                accepted.channel,
                accepted.content,
                direction,
                status,
                now,
            )
        };
        let sent = self.events.make(agent, EventType::MessageSent, message.updated_at, &message);
        let mark = self.answer_mark(message.campaign_key.as_ref());
        self.messages.insert_marked(&message, None, mark, &[sent]).await?;
        Ok(message)
    }

    /// Records a private note of the team in `activity`'s timeline (on `channel`, where the
    /// conversation is), with `note.created`: no line, never sent anywhere.
    pub(crate) async fn record_note(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        channel: Channel,
        note: Note,
    ) -> Result<Message, DomainError> {
        let now = self.clock.now();
        let content = MessageContent::Note(note);
        let (direction, status) = (MessageDirection::Internal, MessageStatus::Recorded);
        let message = Self::new_message(self.next_id(), agent, activity, None, channel, content, direction, status, now);
        let created = self.events.make(agent, EventType::NoteCreated, message.updated_at, &message);
        self.messages.insert(&message, &[created]).await?;
        Ok(message)
    }

    /// Records a reply before the platform is asked to send it: `sending`, without a platform
    /// id, under the id `id` (already attached to the request's idempotency key, when it has
    /// one). It joins the timeline as any message does.
    pub(crate) async fn record_sending(&self, agent: &AgentId, id: MessageId, reply: Outgoing<'_>) -> Result<Message, DomainError> {
        let now = self.clock.now();
        let (direction, status) = (MessageDirection::Outbound, MessageStatus::Sending);
        let message = Message {
            reply_to: reply.reply_to,
            ..Self::new_message(id, agent, reply.activity, Some(reply.line), reply.channel, reply.content, direction, status, now)
        };
        self.messages.insert_marked(&message, None, self.answer_mark(None), &[]).await?;
        Ok(message)
    }

    /// The platform accepted a `sending` reply: it becomes `sent` with its platform id, sent
    /// when it was recorded (the request went out then). When a status report got there first
    /// (it names the reply by its callback data), the reply as that report left it.
    pub(crate) async fn confirm_sent(&self, mut message: Message, platform_message_id: String) -> Result<Message, DomainError> {
        let expected = message.status;
        message.platform_message_id = Some(platform_message_id);
        message.status = MessageStatus::Sent;
        // A reply went out when it was recorded; a scheduled message when its worker started it.
        message.sent_at = Some(if message.send_at.is_some() { message.updated_at } else { message.created_at });
        message.updated_at = self.clock.now().max(message.updated_at);
        // The reply joins the sent messages now (its `sending` record emitted nothing); when a
        // status report got there first, that report's move emitted it.
        let sent = self.events.make(&message.agent_id, EventType::MessageSent, message.updated_at, &message);
        if self.messages.update_status(&message, expected, &[sent]).await? {
            return Ok(message);
        }
        self.messages
            .find_by_id(&message.agent_id, &message.id)
            .await?
            .ok_or_else(|| DomainError::Internal(format!("reply {} vanished while it was being sent", message.id).into()))
    }

    /// Records a message to go out at `send_at` in `scheduled`: `scheduled`, placed in the
    /// timeline at that time (its `created_at`), with what sending it needs. Nothing is
    /// announced until it goes out (`message.sent`) or fails (`message.updated`).
    pub(crate) async fn record_scheduled(
        &self,
        scheduled: &dyn ScheduledSendRepository,
        agent: &AgentId,
        id: MessageId,
        outgoing: Outgoing<'_>,
        send_at: SendAt,
        request: ScheduledRequest,
    ) -> Result<Message, DomainError> {
        let (direction, status) = (MessageDirection::Outbound, MessageStatus::Scheduled);
        let (template_id, campaign_key) = match &request {
            ScheduledRequest::Template { template_id, campaign, .. } => {
                (Some(template_id.clone()), campaign.as_ref().map(|(k, _)| k.clone()))
            }
            ScheduledRequest::Reply { .. } => (None, None),
        };
        let message = Message {
            reply_to: outgoing.reply_to,
            template_id,
            campaign_key,
            send_at: Some(send_at.at()),
            updated_at: self.clock.now(),
            ..Self::new_message(
                id,
                agent,
                outgoing.activity,
                Some(outgoing.line),
                outgoing.channel,
                outgoing.content,
                direction,
                status,
                send_at.at(),
            )
        };
        let send = ScheduledSend {
            message_id: message.id.clone(),
            agent_id: agent.clone(),
            activity_id: message.activity_id.clone(),
            line_id: outgoing.line.clone(),
            send_at: send_at.at(),
            request,
        };
        scheduled.schedule(&message, &send).await?;
        Ok(message)
    }

    /// A `sending` message that will not go out (a scheduled one whose window closed, or that
    /// the platform refused): `failed` with `reason`, announced as `message.updated`.
    pub(crate) async fn fail_sending(&self, mut message: Message, reason: String) -> Result<Message, DomainError> {
        let expected = message.status;
        message.status = MessageStatus::Failed;
        message.error_message = Some(reason);
        message.updated_at = self.clock.now().max(message.updated_at);
        let events = [self.events.make(&message.agent_id, EventType::MessageUpdated, message.updated_at, &message)];
        self.messages.update_status(&message, expected, &events).await?;
        Ok(message)
    }

    /// The platform refused a `sending` reply outright: it leaves the timeline, and the activity
    /// is as it was (`activity_updated_at`: its `updated_at` before the reply was recorded).
    pub(crate) async fn forget_sending(&self, message: &Message, activity_updated_at: Timestamp) -> Result<(), DomainError> {
        self.messages.remove_sending(message, activity_updated_at).await?;
        Ok(())
    }

    /// The message a status report is about: by its platform id, else a reply still `sending`
    /// that the report's callback data names (its platform id was never learned: the process
    /// died before the platform's answer, or the answer was lost).
    async fn reported(&self, agent: &AgentId, update: &StatusUpdate) -> Result<Option<Message>, DomainError> {
        if let Some(message) = self.messages.find_by_platform_id(agent, &update.message_id).await? {
            return Ok(Some(message));
        }
        let Some(named) = update.callback_data.as_deref().filter(|d| d.starts_with("msg_")) else { return Ok(None) };
        let found = self.messages.find_by_id(agent, &MessageId::new(named)).await?;
        Ok(found.filter(|m| m.direction == MessageDirection::Outbound && m.status == MessageStatus::Sending).map(|mut m| {
            m.platform_message_id = Some(update.message_id.clone());
            m.sent_at.get_or_insert(m.created_at);
            m
        }))
    }

    /// The activity's messages on `line` that a read receipt up to `up_to` moves to `read`: at
    /// most a page of them, the oldest first (a receipt reads what the contact saw, and the
    /// next receipt takes the rest).
    pub(crate) async fn unread_outbound(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        line: &LineId,
        up_to: Timestamp,
    ) -> Result<Vec<Message>, DomainError> {
        Ok(self.messages.unread_outbound(agent, activity, line, up_to, READ_RECEIPT_BATCH).await?)
    }

    /// Moves the outbound message a status report names; duplicates, late reports and unknown
    /// messages change nothing. A reply still `sending` is found by the report's callback data
    /// and gets the platform id with the reported status.
    pub(crate) async fn apply_status(&self, agent: &AgentId, update: &StatusUpdate) -> Result<(), DomainError> {
        for _ in 0..CAS_ATTEMPTS {
            let Some(mut message) = self.reported(agent, update).await? else { return Ok(()) };
            let expected = message.status;
            if !message.apply(update, self.clock.now()) {
                return Ok(());
            }
            let mut events = vec![self.events.make(agent, EventType::MessageUpdated, message.updated_at, &message)];
            // A reply whose send answer was lost is sent from the report that names it on.
            if expected == MessageStatus::Sending && message.status != MessageStatus::Failed {
                events.insert(0, self.events.make(agent, EventType::MessageSent, message.updated_at, &message));
            }
            if self.messages.update_status(&message, expected, &events).await? {
                return Ok(());
            }
        }
        Err(DomainError::Unavailable(format!("message {} kept changing under concurrent updates", update.message_id).into()))
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeDelta, TimeZone, Utc};

    use super::*;
    use crate::ports::*;

    fn t(s: i64) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap() + TimeDelta::seconds(s)
    }

    fn sending() -> Message {
        Message {
            id: MessageId::new("msg_reply"),
            agent_id: AgentId::new("agt_1"),
            activity_id: ActivityId::new("act_1"),
            direction: MessageDirection::Outbound,
            content: MessageContent::Text { body: "On its way".into() },
            reply_to: None,
            platform_message_id: None,
            channel: Channel::new(ChannelType::Whatsapp, "14155550100").unwrap(),
            line_id: Some(LineId::new("chn_1")),
            status: MessageStatus::Sending,
            error_message: None,
            template_id: None,
            campaign_key: None,
            cart_code: None,
            referral: None,
            pricing: None,
            created_at: t(0),
            sent_at: None,
            send_at: None,
            delivered_at: None,
            read_at: None,
            deleted_at: None,
            updated_at: t(0),
        }
    }

    fn timeline(messages: MockMessageRepository) -> Timeline {
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| t(100));
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_new", k.prefix()));
        let ports = TimelinePorts {
            messages: Arc::new(messages),
            carts: Arc::new(MockCartRepository::new()),
            activities: Arc::new(MockActivityRepository::new()),
            files: Arc::new(MockFileRepository::new()),
            due: ResponseDue::no_targets(),
        };
        let ids: Arc<dyn IdSource> = Arc::new(ids);
        let events = EventMaker::new(ids.clone());
        Timeline::new(ports, Arc::new(clock), ids, events)
    }

    fn report(status: ExecutionStatus, callback_data: Option<&str>) -> StatusUpdate {
        StatusUpdate {
            message_id: "pm.lost".into(),
            status,
            at: t(50),
            error: None,
            callback_data: callback_data.map(String::from),
            pricing: None,
        }
    }

    #[tokio::test]
    async fn a_report_naming_a_sending_reply_gives_it_the_platform_id_and_the_status() {
        let mut messages = MockMessageRepository::new();
        messages.expect_find_by_platform_id().returning(|_, _| Ok(None));
        messages
            .expect_find_by_id()
            .withf(|a, id| a.as_str() == "agt_1" && id.as_str() == "msg_reply")
            .returning(|_, _| Ok(Some(sending())));
        messages
            .expect_update_status()
            .withf(|m, expected, events| {
                *expected == MessageStatus::Sending
                    && m.status == MessageStatus::Delivered
                    && m.platform_message_id.as_deref() == Some("pm.lost")
                    && (m.sent_at, m.delivered_at, m.updated_at) == (Some(t(0)), Some(t(50)), t(100))
                    && events.iter().map(|e| e.event_type).collect::<Vec<_>>() == [EventType::MessageSent, EventType::MessageUpdated]
            })
            .times(1)
            .returning(|_, _, _| Ok(true));
        let update = report(ExecutionStatus::Delivered, Some("msg_reply"));
        timeline(messages).apply_status(&AgentId::new("agt_1"), &update).await.unwrap();
    }

    #[tokio::test]
    async fn callback_data_moves_only_a_sending_reply_and_only_without_a_platform_match() {
        // Named, but no longer sending (already settled by its platform id), or not outbound.
        for named in [
            Message { status: MessageStatus::Sent, platform_message_id: Some("pm.other".into()), ..sending() },
            Message { direction: MessageDirection::Inbound, status: MessageStatus::Received, ..sending() },
        ] {
            let mut messages = MockMessageRepository::new();
            messages.expect_find_by_platform_id().returning(|_, _| Ok(None));
            messages.expect_find_by_id().returning(move |_, _| Ok(Some(named.clone())));
            messages.expect_update_status().never();
            timeline(messages).apply_status(&AgentId::new("agt_1"), &report(ExecutionStatus::Read, Some("msg_reply"))).await.unwrap();
        }
        // Callback data that is no message id of Parley's, or none at all: not looked up.
        for data in [Some("campaign-42"), None] {
            let mut messages = MockMessageRepository::new();
            messages.expect_find_by_platform_id().returning(|_, _| Ok(None));
            messages.expect_find_by_id().never();
            messages.expect_update_status().never();
            timeline(messages).apply_status(&AgentId::new("agt_1"), &report(ExecutionStatus::Read, data)).await.unwrap();
        }
        // The platform id matches a message: that one moves, whatever the callback data says.
        let mut messages = MockMessageRepository::new();
        let known = Message { status: MessageStatus::Sent, platform_message_id: Some("pm.lost".into()), sent_at: Some(t(0)), ..sending() };
        messages.expect_find_by_platform_id().returning(move |_, _| Ok(Some(known.clone())));
        messages.expect_find_by_id().never();
        messages
            .expect_update_status()
            .withf(|m, expected, _| *expected == MessageStatus::Sent && m.status == MessageStatus::Read)
            .times(1)
            .returning(|_, _, _| Ok(true));
        timeline(messages).apply_status(&AgentId::new("agt_1"), &report(ExecutionStatus::Read, Some("msg_other"))).await.unwrap();
    }
}
