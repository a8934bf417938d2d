//! The rule engine: takes the events waiting for rules from the outbox's queue, judges each
//! against its agent's enabled rules for its type, and runs every matching rule once: the run is
//! claimed first (`(rule, event)`, whoever claims first runs it), its actions are done in order
//! through the same services the API uses, built to report their changes as a rule's (which run
//! no rules), and the run is finished `ok`, or `failed` with why the first action that could not
//! act failed. An event leaves the queue once its rules have run; an engine that stops half-way
//! leaves it to be claimed again when its lease ends, and the runs already claimed are not run
//! again (at most once: a reply sent twice is worse than a tag not added).

use std::sync::Arc;

use crate::DomainError;
use crate::model::*;
use crate::ports::{
    ActivityRepository, BusinessHoursRepository, CannedResponseRepository, Clock, ContactRepository, RuleRepository, RuleRunRepository,
};
use crate::services::{ActivityPatchInput, ActivityService, MessageService, Patch, SendInput, SendService};

use super::round_robin::RoundRobin;
use super::rules::find_canned;

/// How long a claimed event is held before another engine may take it: far longer than its
/// rules take (a few writes and at most a platform call each).
pub const RULE_LEASE: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

/// A `send_template` action's components (stored as the API took them) as a send takes them:
/// the outer layer owns that representation and hands the reader in when it wires the engine.
pub type TemplateComponents = fn(&serde_json::Value) -> Result<Vec<ComponentInput>, String>;

/// What the engine reads to judge an event.
pub struct RuleReads {
    /// The conversation as it is when the rules run.
    pub activities: Arc<dyn ActivityRepository>,
    /// Its contact's attributes.
    pub contacts: Arc<dyn ContactRepository>,
    /// Whether the agent is open (`business_hours` conditions).
    pub hours: Arc<dyn BusinessHoursRepository>,
    /// Canned replies, read when the rule runs.
    pub canned_responses: Arc<dyn CannedResponseRepository>,
}

/// The services a rule acts through, each built [`by_rules`](ActivityService::by_rules).
pub struct RuleActors {
    /// Assignment, tags and status.
    pub activities: ActivityService,
    /// Replies and notes.
    pub messages: MessageService,
    /// Template sends.
    pub sends: SendService,
    /// Who takes the next conversation (`assign` to `round_robin`).
    pub round_robin: RoundRobin,
}

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EnginePass {
    /// Events taken from the queue and done.
    pub events: usize,
    /// Rules run (claimed by this pass).
    pub runs: usize,
    /// Of those, the ones that could not act.
    pub failed: usize,
    /// Away messages sent.
    pub away_messages: usize,
}

/// Runs rules on the events that wait for them.
pub struct RuleEngine {
    rules: Arc<dyn RuleRepository>,
    runs: Arc<dyn RuleRunRepository>,
    reads: RuleReads,
    actors: RuleActors,
    components: TemplateComponents,
    clock: Arc<dyn Clock>,
}

impl RuleEngine {
    /// An engine over these ports and services.
    pub fn new(
        rules: Arc<dyn RuleRepository>,
        runs: Arc<dyn RuleRunRepository>,
        reads: RuleReads,
        actors: RuleActors,
        components: TemplateComponents,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { rules, runs, reads, actors, components, clock }
    }

    /// Takes up to `limit` waiting events and runs their rules. A storage failure stops the
    /// pass: the events not done wait for their lease to end and are taken again.
    pub async fn run_due(&self, limit: u32) -> Result<EnginePass, DomainError> {
        let now = self.clock.now();
        let events = self.runs.claim_events(now, now + RULE_LEASE, limit).await?;
        let mut pass = EnginePass::default();
        // An agent's rules and hours are read once a pass: a burst of one shop's messages is
        // judged against one read of them (docs/performance.md, "Rules").
        let mut rules = ReadInPass::default();
        let mut done = Vec::with_capacity(events.len());
        for event in events {
            let ran = match self.run_event(&event, &mut rules).await {
                Ok(ran) => ran,
                Err(e) => {
                    // The events done so far leave the queue; the rest wait for their lease.
                    self.runs.rules_done(&done).await?;
                    return Err(e);
                }
            };
            done.push(event.id);
            pass.events += 1;
            pass.runs += ran.runs;
            pass.failed += ran.failed;
            pass.away_messages += ran.away_messages;
        }
        self.runs.rules_done(&done).await?;
        Ok(pass)
    }

    /// How many events wait for rules.
    pub async fn backlog(&self) -> Result<u64, DomainError> {
        Ok(self.runs.backlog().await?)
    }

    /// Sends the away message `event` calls for, then runs the matching rules on it.
    async fn run_event(&self, event: &Event, read: &mut ReadInPass) -> Result<EnginePass, DomainError> {
        let mut done = EnginePass::default();
        let Some(on) = RuleTrigger::of_event(event) else { return Ok(done) };
        let agent = &event.agent_id;
        // An erased or removed conversation has nothing left to act on.
        let Some(activity) = activity_of(&event.object) else { return Ok(done) };
        let rules = match read.rules.get(&(agent.clone(), on)) {
            Some(rules) => rules.clone(),
            None => {
                let rules = Arc::new(self.rules.enabled_for(agent, on).await?);
                read.rules.insert((agent.clone(), on), rules.clone());
                rules
            }
        };
        let hours = match read.hours.get(agent) {
            Some(hours) => hours.clone(),
            None => {
                let hours = self.reads.hours.get(agent).await?.map(Arc::new);
                read.hours.insert(agent.clone(), hours.clone());
                hours
            }
        };
        // Judged when the event happened: a message that came in at 3 a.m. came in out of hours.
        let open = hours.as_ref().is_none_or(|hours| hours.is_open(event.created_at));
        let away = hours.as_deref().and_then(BusinessHours::away_message).filter(|_| on == RuleTrigger::MessageReceived && !open);
        let told = EventFacts {
            text: match &event.object {
                EventObject::Message(message) => message.text(),
                _ => None,
            },
            business_hours_open: open,
        };
        // Rules whose conditions on the text or the hours already fail cost no read.
        let candidates: Vec<&Rule> = rules.iter().filter(|rule| rule.may_match(told)).collect();
        if candidates.is_empty() && away.is_none() {
            return Ok(done);
        }
        let Some(view) = self.reads.activities.get(agent, &activity).await? else { return Ok(done) };
        if let Some(text) = away {
            done.away_messages = usize::from(self.send_away(agent, &view, text).await?);
        }
        // Queued for the away message alone, or no rule left: nothing to judge.
        if candidates.is_empty() {
            return Ok(done);
        }
        let contact = self.reads.contacts.get(agent, &view.activity.contact_id).await?;
        let tags: Vec<TagId> = view.tags.iter().map(|t| t.id.clone()).collect();
        let no_attributes = CustomAttributes::default();
        let facts = RuleFacts {
            event: told,
            channel_type: view.channels.first().map_or(ChannelType::Whatsapp, Channel::channel_type),
            status: view.activity.status,
            assigned_to: view.activity.assigned_to.as_ref(),
            tags: &tags,
            contact: contact.as_ref().map_or(&no_attributes, |c| &c.custom_attributes),
        };
        for rule in candidates.into_iter().filter(|rule| rule.matches(&facts)) {
            let run = RuleRun {
                rule_id: rule.id.clone(),
                agent_id: agent.clone(),
                event_id: event.id.clone(),
                outcome: RunOutcome::Running,
                error: None,
                created_at: self.clock.now(),
            };
            if !self.runs.claim(&run).await? {
                continue;
            }
            done.runs += 1;
            let (outcome, error) = match self.act(rule, &view, contact.as_ref()).await {
                Ok(()) => (RunOutcome::Ok, None),
                Err(why) => {
                    done.failed += 1;
                    (RunOutcome::Failed, Some(why))
                }
            };
            self.runs.finish(&rule.id, &event.id, outcome, error.as_deref()).await?;
        }
        Ok(done)
    }

    /// Sends the away message to the conversation's contact unless one went to them in the last
    /// [`AWAY_EVERY`]: the turn is claimed first, so of any number of engines one sends it, and
    /// a send that fails is not tried again (logged) until the next turn.
    async fn send_away(&self, agent: &AgentId, view: &ActivityView, text: &str) -> Result<bool, DomainError> {
        let now = self.clock.now();
        if !self.runs.claim_away_message(agent, &view.activity.id, now, now - AWAY_EVERY).await? {
            return Ok(false);
        }
        let reply = ReplyInput { kind: Some("text".into()), body: Some(text.to_string()), ..Default::default() };
        match self.actors.messages.reply(agent, &view.activity.id, reply).await {
            Ok(_) => Ok(true),
            Err(e) => {
                tracing::warn!(agent = %agent, activity = %view.activity.id, error = %e.in_words(), "the away message could not be sent");
                Ok(false)
            }
        }
    }

    /// Does the rule's actions in order; the first that cannot act ends the run, named by its
    /// place and type with why (`actions[1] (reply): the 24-hour messaging window is closed`).
    async fn act(&self, rule: &Rule, view: &ActivityView, contact: Option<&Contact>) -> Result<(), String> {
        for (i, action) in rule.actions.iter().enumerate() {
            self.act_once(rule, action, view, contact).await.map_err(|why| format!("actions[{i}] ({}): {why}", action.type_name()))?;
        }
        Ok(())
    }

    async fn act_once(&self, rule: &Rule, action: &RuleAction, view: &ActivityView, contact: Option<&Contact>) -> Result<(), String> {
        let agent = &rule.agent_id;
        let id = &view.activity.id;
        let a = &self.actors;
        match action {
            RuleAction::Assign(target) => {
                let member = match target {
                    AssignTarget::Member(member) => member.clone(),
                    AssignTarget::RoundRobin => a.round_robin.next(agent).await.map_err(|e| e.in_words())?.ok_or(NOBODY_FREE)?,
                };
                let patch = ActivityPatchInput { assigned_to: Patch::Set(member.as_str().to_string()), ..Default::default() };
                a.activities.update(agent, id, patch).await.map_err(|e| e.in_words())?;
            }
            RuleAction::AddTags(tags) => {
                let ids = tags.iter().map(|t| t.as_str().to_string()).collect();
                a.activities.attach_tags(agent, id, Some(ids)).await.map_err(|e| e.in_words())?;
            }
            RuleAction::RemoveTags(tags) => {
                for tag in tags {
                    a.activities.detach_tag(agent, id, Some(tag.as_str().to_string())).await.map_err(|e| e.in_words())?;
                }
            }
            RuleAction::SetStatus(status) => {
                let patch = ActivityPatchInput { status: Patch::Set(status.as_str().to_string()), ..Default::default() };
                a.activities.update(agent, id, patch).await.map_err(|e| e.in_words())?;
            }
            RuleAction::Reply(text) => {
                let body = match text {
                    ReplyText::Text(text) => text.clone(),
                    ReplyText::Canned(code) => {
                        let canned = find_canned(self.reads.canned_responses.as_ref(), agent, code).await.map_err(|e| e.in_words())?;
                        canned.ok_or_else(|| format!("the canned response {code:?} no longer exists"))?.text.as_str().to_string()
                    }
                };
                let reply = ReplyInput { kind: Some("text".into()), body: Some(body), ..Default::default() };
                a.messages.reply(agent, id, reply).await.map_err(|e| e.in_words())?;
            }
            RuleAction::SendTemplate { template_id, components } => {
                let to = contact
                    .and_then(|c| c.channels.iter().find(|ch| ch.channel_type() == ChannelType::Whatsapp))
                    .ok_or("the contact has no WhatsApp channel to send a template to")?;
                let components = components.as_ref().map(self.components).transpose()?;
                let input = SendInput { to: Some(to.channel_id().to_string()), components, campaign: None };
                a.sends.send(agent, template_id, input).await.map_err(|e| e.in_words())?;
            }
            RuleAction::Note(text) => {
                let author = format!("Rule: {}", rule.name.as_str());
                a.messages.add_note(agent, id, Some(text.clone()), Some(author)).await.map_err(|e| e.in_words())?;
            }
        }
        Ok(())
    }
}

/// What one pass read once: each agent's enabled rules by trigger, and its hours.
#[derive(Default)]
struct ReadInPass {
    rules: std::collections::HashMap<(AgentId, RuleTrigger), Arc<Vec<Rule>>>,
    hours: std::collections::HashMap<AgentId, Option<Arc<BusinessHours>>>,
}

/// How often a contact may be sent the away message: once per 12 hours out of hours.
pub const AWAY_EVERY: chrono::TimeDelta = chrono::TimeDelta::hours(12);

/// Why round robin found nobody.
const NOBODY_FREE: &str = "no member can take it (every member is at their max_open, or the agent has none)";

/// The conversation an event is about: its own id for `activity.*`, its activity's for a message.
fn activity_of(object: &EventObject) -> Option<ActivityId> {
    match object {
        EventObject::Activity(view) => Some(view.activity.id.clone()),
        EventObject::Message(message) => Some(message.activity_id.clone()),
        _ => None,
    }
}
