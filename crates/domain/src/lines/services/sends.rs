use std::sync::Arc;

use crate::error::Violations;
use crate::model::*;
use crate::ports::*;
use crate::services::conversations::Conversations;
use crate::services::messages::platform_failure;
use crate::services::pacing::{Turn, paced};
use crate::services::required;
use crate::services::timeline::{Accepted, Outgoing, Timeline, TimelinePorts};
use crate::{DomainError, FieldError};

/// The campaign a send belongs to, as received: the send's outcome is recorded as an execution
/// under its key, which [`CampaignService::executions`] polls.
#[derive(Debug, Clone, Default)]
pub struct CampaignInput {
    /// Required: 1–64 characters of `A-Z a-z 0-9 _ . : -`, taken exactly as sent.
    pub key: Option<String>,
    /// Required: a name for people, 1–128 characters once trimmed, kept on each execution.
    pub name: Option<String>,
}

/// A send as received.
#[derive(Debug, Clone, Default)]
pub struct SendInput {
    /// Required: the recipient's phone number, 7–15 digits with country code once `+`, spaces
    /// and dashes are removed.
    pub to: Option<String>,
    /// Values for the template's header, body and button placeholders, checked against the
    /// template; absent is none.
    pub components: Option<Vec<ComponentInput>>,
    /// The campaign the send belongs to, if any.
    pub campaign: Option<CampaignInput>,
}

/// The platform accepted the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendReceipt {
    /// The platform's id of the message: what its status reports and the execution name it by.
    pub message_id: String,
    /// The header, body and footer texts with their placeholders filled, joined by a blank line.
    pub parsed_message: String,
}

/// Sends approved templates: the only messages that may reach a contact outside the 24-hour
/// window, or someone who never wrote.
pub struct SendService {
    lines: Arc<dyn LineRepository>,
    templates: Arc<dyn TemplateRepository>,
    platform: Arc<dyn MessagingPlatform>,
    /// Spaces sends to each line's pace.
    pacer: Arc<dyn SendPacer>,
    executions: Arc<dyn ExecutionRepository>,
    scheduled: Arc<dyn ScheduledSendRepository>,
    conversations: Conversations,
    timeline: Timeline,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// The ports [`SendService`] uses, and nothing more.
#[derive(Clone)]
pub struct SendPorts {
    /// The lines templates belong to and sends go out through.
    pub lines: Arc<dyn LineRepository>,
    /// The templates sent.
    pub templates: Arc<dyn TemplateRepository>,
    /// Campaign outcomes, one per send under a campaign key.
    pub executions: Arc<dyn ExecutionRepository>,
    /// Template sends waiting for their time.
    pub scheduled: Arc<dyn ScheduledSendRepository>,
    /// The contacts sent to (someone new becomes one).
    pub contacts: Arc<dyn ContactRepository>,
    /// Their activities, moved by each send.
    pub activities: Arc<dyn ActivityRepository>,
    /// The timelines sends are recorded on.
    pub messages: Arc<dyn MessageRepository>,
    /// The carts messages name.
    pub carts: Arc<dyn CartRepository>,
    /// Files messages keep.
    pub files: Arc<dyn FileRepository>,
    /// When conversations contacts open must be answered.
    pub due: crate::services::ResponseDue,
}

impl From<&Repositories> for SendPorts {
    fn from(r: &Repositories) -> Self {
        Self {
            lines: r.lines.clone(),
            templates: r.templates.clone(),
            executions: r.executions.clone(),
            scheduled: r.scheduled.clone(),
            contacts: r.contacts.clone(),
            activities: r.activities.clone(),
            messages: r.messages.clone(),
            carts: r.carts.clone(),
            files: r.files.clone(),
            due: crate::services::ResponseDue::new(r.first_response.clone(), r.business_hours.clone()),
        }
    }
}

impl SendService {
    /// Sends templates through `platform`; `objects` shows what the events it records report.
    pub fn new(ports: SendPorts, platform: Arc<dyn MessagingPlatform>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        let events = crate::services::EventMaker::new(ids.clone());
        let SendPorts { lines, templates, executions, scheduled, contacts, activities, messages, carts, files, due } = ports;
        Self {
            lines,
            templates,
            platform,
            pacer: Arc::new(crate::services::Unpaced),
            executions,
            scheduled,
            conversations: Conversations::new(contacts, activities.clone(), clock.clone(), ids.clone(), events.clone()),
            timeline: Timeline::new(TimelinePorts { messages, carts, activities, files, due }, clock.clone(), ids.clone(), events),
            clock,
            ids,
        }
    }

    /// Sends go out at their line's pace, as `pacer` spaces them (default: unpaced).
    pub fn with_pacer(mut self, pacer: Arc<dyn SendPacer>) -> Self {
        self.pacer = pacer;
        self
    }

    /// The same service for a rule's actions: its changes are reported as a rule's, and run no
    /// rules.
    pub fn by_rules(self) -> Self {
        Self { conversations: self.conversations.by_rules(), timeline: self.timeline.by_rules(), ..self }
    }

    /// Sends an approved template through the line it belongs to. Under a campaign key the
    /// outcome is recorded as an execution (`sent`, or `failed` with the platform's reason).
    /// Someone new gets a WhatsApp contact and a pending activity. An accepted send is a
    /// `template` message on the contact's timeline.
    ///
    /// Errors, in the order they are checked: `NotFound` (`template`) for a template the agent
    /// does not have; `TemplateNotApproved` unless it is approved; `TemplateUnsupported` when it
    /// holds a part Parley cannot check yet; `Validation` naming every bad field of `input`;
    /// `NotFound` (`channel`) when its line is gone; `RecipientUnsupported` for an
    /// authentication template to a user id whose phone Parley does not know (the platform
    /// refuses those; a user id whose contact has a phone goes to the phone). Then the platform: a refusal is
    /// `MessageRejected`, an outage or timeout `Upstream` (nothing recorded: it may have been
    /// sent). Records `message.sent`, after `contact.created` and `activity.created` for
    /// someone new.
    pub async fn send(&self, agent: &AgentId, template: &TemplateId, input: SendInput) -> Result<SendReceipt, DomainError> {
        let Prepared { template, message, campaign, line, .. } = self.prepare(agent, template, input, None).await?;
        let key = campaign.as_ref().map(|(k, _)| k.as_str());
        let outcome = paced(&*self.pacer, &line, Turn::Wait, || self.platform.send_template(&line, &message, key)).await;
        self.record_execution(agent, campaign.as_ref(), &message.to, &template, &outcome).await?;
        let sent = outcome.map_err(platform_failure)?;
        let channel = Channel::new(ChannelType::Whatsapp, &message.to).map_err(DomainError::from)?;
        let (_, activity) = self.conversations.ensure(agent, &channel, None, ActivityStatus::Pending, None).await?;
        let accepted = Accepted {
            activity: &activity.id,
            channel,
            line: &line.id,
            content: template_content(&template, &message),
            platform_message_id: sent.message_id.clone(),
            reply_to: None,
            template_id: Some(template.definition.id.clone()),
            campaign_key: campaign.map(|(key, _)| key),
        };
        self.timeline.record_outbound(agent, accepted).await?;
        Ok(SendReceipt { message_id: sent.message_id, parsed_message: message.parsed_message })
    }

    /// [`send`](Self::send) at `send_at` (RFC 3339, future, at most 30 days ahead; else
    /// `Validation` on `send_at`, with the body's other faults): checked as a send now is, then
    /// stored on the contact's timeline as a `scheduled` template message (someone new gets
    /// their contact and activity now), which the workers send at that time
    /// ([`send_scheduled`](Self::send_scheduled)).
    pub async fn schedule(&self, agent: &AgentId, template: &TemplateId, input: SendInput, send_at: &str) -> Result<Message, DomainError> {
        let (to, components) = (input.to.clone().unwrap_or_default(), input.components.clone());
        let Prepared { template, message, campaign, line, send_at } = self.prepare(agent, template, input, Some(send_at)).await?;
        let channel = Channel::new(ChannelType::Whatsapp, &message.to).map_err(DomainError::from)?;
        let (_, activity) = self.conversations.ensure(agent, &channel, None, ActivityStatus::Pending, None).await?;
        let id = MessageId::new(self.ids.new_id(IdKind::Message));
        let outgoing =
            Outgoing { activity: &activity.id, channel, line: &line.id, content: template_content(&template, &message), reply_to: None };
        let request = ScheduledRequest::Template { template_id: template.definition.id.clone(), to, components, campaign };
        let send_at = send_at.expect("asked for");
        self.timeline.record_scheduled(&*self.scheduled, agent, id, outgoing, send_at, request).await
    }

    /// Sends a scheduled template message its worker started (`sending`), checked again
    /// against the template as it is now. `failed` with why when the template is gone, no
    /// longer approved or no longer fits what was asked, the line is gone, or the platform
    /// refuses it or does not answer (a template send has no callback data a later status
    /// report could settle it by). Under a campaign, the outcome is recorded as an execution.
    pub async fn send_scheduled(
        &self,
        message: Message,
        template_id: &TemplateId,
        to: &str,
        components: Option<Vec<ComponentInput>>,
        campaign: Option<(CampaignKey, String)>,
    ) -> Result<Message, DomainError> {
        let agent = message.agent_id.clone();
        let input = SendInput { to: Some(to.to_string()), components, campaign: None };
        let prepared = match self.prepare(&agent, template_id, input, None).await {
            Ok(prepared) => prepared,
            Err(e) => return self.timeline.fail_sending(message, format!("it could not be sent at its time: {}", e.in_words())).await,
        };
        let Prepared { template, message: built, line, .. } = prepared;
        // Its line's turn was taken before it was started.
        let key = campaign.as_ref().map(|(k, _)| k.as_str());
        let outcome = paced(&*self.pacer, &line, Turn::Taken, || self.platform.send_template(&line, &built, key)).await;
        self.record_execution(&agent, campaign.as_ref(), &built.to, &template, &outcome).await?;
        match outcome {
            Ok(sent) => self.timeline.confirm_sent(message, sent.message_id).await,
            Err(e) => self.timeline.fail_sending(message, e.reason()).await,
        }
    }

    /// Everything [`send`](Self::send) checks before the platform, in its order, with `send_at`
    /// read among the body's fields when given.
    async fn prepare(
        &self,
        agent: &AgentId,
        template: &TemplateId,
        input: SendInput,
        send_at: Option<&str>,
    ) -> Result<Prepared, DomainError> {
        let template = self.templates.get(agent, template).await?.ok_or(DomainError::not_found("template"))?;
        if !template.is_approved() {
            return Err(DomainError::TemplateNotApproved(template.definition.status.clone()));
        }
        let mut v = Violations::default();
        let message = match TemplateMessage::build(&template, input.to.as_deref(), input.components) {
            Ok(message) => Some(message),
            Err(SendRefusal::Unsupported(part)) => return Err(DomainError::TemplateUnsupported(part)),
            Err(SendRefusal::Invalid(errors)) => v.check_all::<TemplateMessage>(Err(errors)),
        };
        let campaign = input.campaign.map(|c| {
            let key = v.check(required("campaign.key", c.key).and_then(|k| CampaignKey::new(&k)));
            let name = v.check(required("campaign.name", c.name).and_then(|n| crate::model::text::bounded("campaign.name", &n, 1, 128)));
            (key, name)
        });
        let send_at = send_at.map(|raw| v.check(SendAt::parse(raw, self.clock.now())));
        v.finish()?;
        let mut message = message.expect("validated");
        let campaign = campaign.map(|(k, n)| (k.expect("validated"), n.expect("validated")));
        let line = self.lines.get(agent, &template.line_id).await?.ok_or(DomainError::not_found("channel"))?;
        if BusinessUserId::is_user_id(&message.to) {
            // The phone while one is known: a user id only reaches a user who hides theirs.
            let addressed = Channel::new(ChannelType::Whatsapp, &message.to).map_err(DomainError::from)?;
            if let Some(phone) = self.conversations.phone_of(agent, &addressed).await? {
                message.to = phone;
            } else if template.definition.category.eq_ignore_ascii_case("AUTHENTICATION") {
                return Err(DomainError::RecipientUnsupported(
                    "an authentication template cannot go to a user known only by their business-scoped user id; \
                     send it to their phone number"
                        .into(),
                ));
            }
        }
        Ok(Prepared { template, message, campaign, line, send_at: send_at.flatten() })
    }

    /// Under a campaign, records what the platform did with its send; an outage leaves the
    /// outcome unknown, so nothing is recorded (the caller gets 502).
    async fn record_execution(
        &self,
        agent: &AgentId,
        campaign: Option<&(CampaignKey, String)>,
        to: &str,
        template: &Template,
        outcome: &Result<SentMessage, PlatformError>,
    ) -> Result<(), DomainError> {
        let record = match outcome {
            Ok(sent) => Some((Some(sent.message_id.clone()), ExecutionStatus::Sent, None)),
            Err(PlatformError::Unavailable { .. }) => None,
            Err(refused) => Some((None, ExecutionStatus::Failed, Some(refused.reason()))),
        };
        let (Some((key, name)), Some((message_id, status, error_message))) = (campaign, record) else { return Ok(()) };
        let now = self.clock.now();
        let execution = Execution {
            id: self.ids.new_id(IdKind::Execution),
            agent_id: agent.clone(),
            campaign_key: key.clone(),
            campaign_name: name.clone(),
            to: to.to_string(),
            template_id: template.definition.id.clone(),
            message_id,
            status,
            error_message,
            sent_at: (status == ExecutionStatus::Sent).then_some(now),
            delivered_at: None,
            read_at: None,
            updated_at: now,
        };
        self.executions.insert(&execution).await?;
        Ok(())
    }
}

/// A send checked and ready for the platform.
struct Prepared {
    template: Template,
    message: TemplateMessage,
    campaign: Option<(CampaignKey, String)>,
    line: Line,
    send_at: Option<SendAt>,
}

/// What a template send shows on the timeline.
fn template_content(template: &Template, message: &TemplateMessage) -> MessageContent {
    MessageContent::Template {
        name: template.definition.name.clone(),
        language: template.definition.language.clone(),
        parsed_message: message.parsed_message.clone(),
    }
}

/// Delivery records polled by campaign key, and what a campaign's messages are billed.
pub struct CampaignService {
    executions: Arc<dyn ExecutionRepository>,
    messages: Arc<dyn MessageRepository>,
}

/// What a campaign's sends add up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CampaignSummary {
    /// The campaign key.
    pub key: CampaignKey,
    /// The campaign's billed messages per pricing category, as the platform priced them
    /// ([`billed_per_category`]); categories with none are left out.
    pub billable: std::collections::BTreeMap<String, u64>,
}

impl CampaignService {
    /// A service over the stored executions and the messages they sent.
    pub fn new(executions: Arc<dyn ExecutionRepository>, messages: Arc<dyn MessageRepository>) -> Self {
        Self { executions, messages }
    }

    /// The campaign `key`'s summary. `Validation` (on `key`) for a malformed key; `NotFound`
    /// (`campaign`) when the agent has no execution under the key.
    pub async fn summary(&self, agent: &AgentId, key: &str) -> Result<CampaignSummary, DomainError> {
        let key = CampaignKey::new(key).map_err(|e| FieldError::new("key", e.issue))?;
        if !self.executions.key_exists(agent, &key).await? {
            return Err(DomainError::not_found("campaign"));
        }
        let counts = self.messages.pricing_counts(agent, &key).await?;
        let billable = billed_per_category(counts.iter().map(|(pricing, n)| (pricing, *n)));
        Ok(CampaignSummary { key, billable })
    }

    /// Records changed after `since` (RFC 3339), oldest change first; `limit` 1–1000, default 100.
    /// Bad `key`, `since` or `limit` values are reported together in `Validation`; `NotFound`
    /// (`campaign`) when the agent has no execution under the key.
    pub async fn executions(
        &self,
        agent: &AgentId,
        key: &str,
        since: Option<&str>,
        limit: Option<&str>,
    ) -> Result<Vec<Execution>, DomainError> {
        let mut v = Violations::default();
        let key = v.check(CampaignKey::new(key).map_err(|e| FieldError::new("key", e.issue)));
        let since = since.map(|s| v.check(parse_timestamp("since", s)));
        let limit = match limit {
            None => Some(100),
            Some(raw) => v.check(
                raw.trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| FieldError::new("limit", "must be an integer from 1 to 1000")),
            ),
        };
        v.finish()?;
        let key = key.expect("validated");
        if !self.executions.key_exists(agent, &key).await? {
            return Err(DomainError::not_found("campaign"));
        }
        Ok(self.executions.list(agent, &key, since.flatten(), limit.expect("validated")).await?)
    }
}
