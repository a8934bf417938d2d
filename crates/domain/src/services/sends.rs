use std::sync::Arc;

use chrono::TimeDelta;

use super::conversations::Conversations;
use super::messages::platform_failure;
use super::required;
use super::timeline::{Accepted, Timeline, TimelinePorts};
use crate::error::Violations;
use crate::model::*;
use crate::ports::*;
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
    executions: Arc<dyn ExecutionRepository>,
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
}

impl From<&Repositories> for SendPorts {
    fn from(r: &Repositories) -> Self {
        Self {
            lines: r.lines.clone(),
            templates: r.templates.clone(),
            executions: r.executions.clone(),
            contacts: r.contacts.clone(),
            activities: r.activities.clone(),
            messages: r.messages.clone(),
            carts: r.carts.clone(),
            files: r.files.clone(),
        }
    }
}

impl SendService {
    /// Sends templates through `platform`; `objects` shows what the events it records report.
    pub fn new(ports: SendPorts, platform: Arc<dyn MessagingPlatform>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        let events = super::EventMaker::new(ids.clone());
        let SendPorts { lines, templates, executions, contacts, activities, messages, carts, files } = ports;
        Self {
            lines,
            templates,
            platform,
            executions,
            conversations: Conversations::new(contacts, activities.clone(), clock.clone(), ids.clone(), events.clone()),
            timeline: Timeline::new(TimelinePorts { messages, carts, activities, files }, clock.clone(), ids.clone(), events),
            clock,
            ids,
        }
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

        let outcome = self.platform.send_template(&line, &message, campaign.as_ref().map(|(k, _)| k.as_str())).await;
        let now = self.clock.now();
        // Under a campaign, record what happened; an outage leaves the outcome unknown, so
        // nothing is recorded and the caller gets 502.
        let record = match &outcome {
            Ok(sent) => Some((Some(sent.message_id.clone()), ExecutionStatus::Sent, None)),
            Err(PlatformError::Unavailable { .. }) => None,
            Err(refused) => Some((None, ExecutionStatus::Failed, Some(refused.reason()))),
        };
        if let (Some((key, name)), Some((message_id, status, error_message))) = (&campaign, record) {
            let execution = Execution {
                id: self.ids.new_id(IdKind::Execution),
                agent_id: agent.clone(),
                campaign_key: key.clone(),
                campaign_name: name.clone(),
                to: message.to.clone(),
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
        }
        let sent = outcome.map_err(platform_failure)?;
        let channel = Channel::new(ChannelType::Whatsapp, &message.to).map_err(DomainError::from)?;
        let (_, activity) = self.conversations.ensure(agent, &channel, None, ActivityStatus::Pending, None).await?;
        let content = MessageContent::Template {
            name: template.definition.name.clone(),
            language: template.definition.language.clone(),
            parsed_message: message.parsed_message.clone(),
        };
        let accepted = Accepted {
            activity: &activity.id,
            channel,
            line: &line.id,
            content,
            platform_message_id: sent.message_id.clone(),
            reply_to: None,
            template_id: Some(template.definition.id.clone()),
            campaign_key: campaign.map(|(key, _)| key),
        };
        self.timeline.record_outbound(agent, accepted).await?;
        Ok(SendReceipt { message_id: sent.message_id, parsed_message: message.parsed_message })
    }
}

/// What to do with a request that carries an `Idempotency-Key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdempotencyBegin {
    /// First use: run the request, then [`IdempotencyService::finish`] with its answer.
    Proceed,
    /// A retry of a finished request: answer this again, do nothing else.
    Replay(IdempotentResponse),
    /// The first request held the key past [`IdempotencyService::LEASE`] without answering: it
    /// was cut (the process crashed, or shut down past its deadline). Without a recovery point it
    /// may or may not have had its effect: do not run it again, answer that. With one (what the
    /// request recorded before acting, e.g. a reply's message id), answer what it names as it is
    /// now, or run the request when it names nothing stored (it was cut before recording it).
    /// Either way, [`IdempotencyService::finish`] with the answer so later retries replay it.
    Interrupted {
        /// What the first request recorded before acting (e.g. a reply's message id); `None`
        /// when it recorded nothing.
        recovery_point: Option<String>,
    },
}

/// Makes retries safe: the same key and request within 24 hours answer the first response again.
pub struct IdempotencyService {
    repo: Arc<dyn IdempotencyRepository>,
    clock: Arc<dyn Clock>,
}

impl IdempotencyService {
    /// How long a key is remembered: once its first use is older, the key is free again, for
    /// any request.
    pub const WINDOW: TimeDelta = TimeDelta::hours(24);
    /// How long a request may hold its key without answering. Far above the longest a send
    /// runs (its platform call, database waits, a shutdown's grace period), so a claim older than
    /// this is one whose request was cut, not one still running.
    pub const LEASE: TimeDelta = TimeDelta::minutes(5);

    /// A service over `repo`, timing keys by `clock`.
    pub fn new(repo: Arc<dyn IdempotencyRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { repo, clock }
    }

    /// Claims `key` for a request, or says what the earlier request with it left.
    /// `fingerprint` identifies the request (e.g. a hash of its target and body). `Validation`
    /// (on `Idempotency-Key`) unless the key is 1–255 visible ASCII characters;
    /// `IdempotencyConflict` when the key was used with another fingerprint, or its first
    /// request is still running (unanswered, within [`LEASE`](Self::LEASE)).
    pub async fn begin(&self, agent: &AgentId, key: &str, fingerprint: &str) -> Result<IdempotencyBegin, DomainError> {
        if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(FieldError::new("Idempotency-Key", "must be 1 to 255 visible ASCII characters").into());
        }
        let now = self.clock.now();
        match self.repo.claim(agent, key, fingerprint, now, now - Self::WINDOW).await? {
            IdempotencyClaim::Claimed => Ok(IdempotencyBegin::Proceed),
            IdempotencyClaim::Existing { fingerprint: first, response, claimed_at } if first == fingerprint => match response {
                Some(r) => Ok(IdempotencyBegin::Replay(r)),
                None if now - claimed_at > Self::LEASE => {
                    Ok(IdempotencyBegin::Interrupted { recovery_point: self.repo.recovery_point(agent, key).await? })
                }
                None => Err(DomainError::IdempotencyConflict("a request with this Idempotency-Key is still being processed".into())),
            },
            IdempotencyClaim::Existing { .. } => {
                Err(DomainError::IdempotencyConflict("this Idempotency-Key was used with a different request".into()))
            }
        }
    }

    /// Stores the answer of the request that claimed `key`: retries within the
    /// [`WINDOW`](Self::WINDOW) replay it.
    pub async fn finish(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> Result<(), DomainError> {
        Ok(self.repo.complete(agent, key, response).await?)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockIdempotencyRepository};

    const NOW_MS: i64 = 1_764_000_000_000;

    fn service(existing: IdempotencyClaim) -> IdempotencyService {
        service_recovering(existing, None)
    }

    fn service_recovering(existing: IdempotencyClaim, recovery_point: Option<&'static str>) -> IdempotencyService {
        let mut repo = MockIdempotencyRepository::new();
        repo.expect_claim().returning(move |_, _, _, _, _| Ok(existing.clone()));
        repo.expect_recovery_point().returning(move |_, _| Ok(recovery_point.map(String::from)));
        let mut clock = MockClock::new();
        clock.expect_now().returning(|| Timestamp::from_timestamp_millis(NOW_MS).unwrap());
        IdempotencyService::new(Arc::new(repo), Arc::new(clock))
    }

    fn unanswered(age: TimeDelta) -> IdempotencyClaim {
        let claimed_at = Timestamp::from_timestamp_millis(NOW_MS).unwrap() - age;
        IdempotencyClaim::Existing { fingerprint: "fp".into(), response: None, claimed_at }
    }

    #[tokio::test]
    async fn an_unanswered_claim_is_running_within_its_lease_and_cut_after_it() {
        let agent = AgentId::new("agt_1");
        let running = service(unanswered(IdempotencyService::LEASE)).begin(&agent, "k", "fp").await;
        assert!(matches!(running, Err(DomainError::IdempotencyConflict(m)) if m.contains("still being processed")));
        let cut = service(unanswered(IdempotencyService::LEASE + TimeDelta::milliseconds(1))).begin(&agent, "k", "fp").await;
        assert_eq!(cut.unwrap(), IdempotencyBegin::Interrupted { recovery_point: None });
        let other = service(unanswered(TimeDelta::hours(1))).begin(&agent, "k", "another body").await;
        assert!(matches!(other, Err(DomainError::IdempotencyConflict(m)) if m.contains("different request")), "a cut claim keeps its body");
    }

    #[tokio::test]
    async fn a_cut_claim_carries_its_recovery_point() {
        let cut = unanswered(IdempotencyService::LEASE + TimeDelta::seconds(1));
        let begun = service_recovering(cut, Some("msg_1")).begin(&AgentId::new("agt_1"), "k", "fp").await.unwrap();
        assert_eq!(begun, IdempotencyBegin::Interrupted { recovery_point: Some("msg_1".into()) });
        let running = service_recovering(unanswered(TimeDelta::seconds(1)), Some("msg_1")).begin(&AgentId::new("agt_1"), "k", "fp").await;
        assert!(matches!(running, Err(DomainError::IdempotencyConflict(_))), "within its lease a claim is running, recovery point or not");
    }

    #[tokio::test]
    async fn an_answered_claim_replays_however_old() {
        let answer = IdempotentResponse { status: 200, body: "{}".into() };
        let claimed_at = Timestamp::from_timestamp_millis(NOW_MS).unwrap() - TimeDelta::hours(23);
        let done = IdempotencyClaim::Existing { fingerprint: "fp".into(), response: Some(answer.clone()), claimed_at };
        assert_eq!(service(done).begin(&AgentId::new("agt_1"), "k", "fp").await.unwrap(), IdempotencyBegin::Replay(answer));
    }
}
