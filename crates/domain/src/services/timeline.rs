use std::sync::Arc;

use super::EventMaker;
use crate::DomainError;
use crate::model::*;
use crate::ports::{ActivityRepository, ApiObject, CartRepository, Clock, IdSource, MessageRepository, Repositories};

/// Compare-and-set attempts before a status update gives up for this pass.
pub(crate) const CAS_ATTEMPTS: usize = 3;

/// Writes an activity's timeline: inbound messages as the webhook reports them, outbound ones
/// as the platform accepts them, and the statuses it reports later. Shared by webhook
/// processing, template sends and replies, so each kind of message is recorded one way.
pub(crate) struct Timeline {
    messages: Arc<dyn MessageRepository>,
    carts: Arc<dyn CartRepository>,
    activities: Arc<dyn ActivityRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    events: EventMaker,
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
    pub(crate) fn new(repos: &Repositories, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>, events: EventMaker) -> Self {
        Self { messages: repos.messages.clone(), carts: repos.carts.clone(), activities: repos.activities.clone(), clock, ids, events }
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
    ) -> Result<bool, DomainError> {
        let agent = &line.agent_id;
        let reply_to = match &inbound.reply_to {
            Some(wamid) => self.messages.find_by_platform_id(agent, wamid).await?.filter(|m| m.activity_id == activity.id).map(|m| m.id),
            None => None,
        };
        let cart_code = match inbound.content.text().and_then(cart_code_in) {
            Some(code) => self.carts.get(agent, &code).await?.map(|_| code),
            None => None,
        };
        let message = Message {
            id: MessageId::new(self.ids.new_id(IdKind::Message)),
            agent_id: agent.clone(),
            activity_id: activity.id.clone(),
            direction: MessageDirection::Inbound,
            content: inbound.content.clone(),
            reply_to,
            platform_message_id: Some(inbound.platform_message_id.clone()),
            channel,
            line_id: Some(line.id.clone()),
            status: MessageStatus::Received,
            error_message: None,
            template_id: None,
            campaign_key: None,
            cart_code,
            referral: inbound.referral.clone(),
            created_at: inbound.at,
            sent_at: None,
            delivered_at: None,
            read_at: None,
            updated_at: self.clock.now(),
        };
        let mut events = vec![self.events.make(agent, EventType::MessageReceived, message.updated_at, ApiObject::Message(&message))];
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
            events.push(self.events.make(agent, EventType::ActivityUpdated, message.updated_at, ApiObject::Activity(&view)));
        }
        Ok(self.messages.insert(&message, &events).await?)
    }

    /// Records an outbound message the platform accepted (`sent`), and returns it.
    pub(crate) async fn record_outbound(&self, agent: &AgentId, accepted: Accepted<'_>) -> Result<Message, DomainError> {
        let now = self.clock.now();
        let message = Message {
            id: MessageId::new(self.ids.new_id(IdKind::Message)),
            agent_id: agent.clone(),
            activity_id: accepted.activity.clone(),
            direction: MessageDirection::Outbound,
            content: accepted.content,
            reply_to: accepted.reply_to,
            platform_message_id: Some(accepted.platform_message_id),
            channel: accepted.channel,
            line_id: Some(accepted.line.clone()),
            status: MessageStatus::Sent,
            error_message: None,
            template_id: accepted.template_id,
            campaign_key: accepted.campaign_key,
            cart_code: None,
            referral: None,
            created_at: now,
            sent_at: Some(now),
            delivered_at: None,
            read_at: None,
            updated_at: now,
        };
        self.messages.insert(&message, &[]).await?;
        Ok(message)
    }

    /// Moves the outbound message a status report names; duplicates, late reports and unknown
    /// messages change nothing.
    pub(crate) async fn apply_status(&self, agent: &AgentId, update: &StatusUpdate) -> Result<(), DomainError> {
        for _ in 0..CAS_ATTEMPTS {
            let Some(mut message) = self.messages.find_by_platform_id(agent, &update.message_id).await? else { return Ok(()) };
            let expected = message.status;
            if !message.apply(update, self.clock.now()) {
                return Ok(());
            }
            let updated = self.events.make(agent, EventType::MessageUpdated, message.updated_at, ApiObject::Message(&message));
            if self.messages.update_status(&message, expected, &[updated]).await? {
                return Ok(());
            }
        }
        Err(DomainError::Unavailable(format!("message {} kept changing under concurrent updates", update.message_id)))
    }
}
