//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// Each agent's business hours: one set per agent, or none (always open).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait BusinessHoursRepository: Send + Sync {
    /// The agent's hours, `None` when it has set none.
    async fn get(&self, agent: &AgentId) -> StoreResult<Option<BusinessHours>>;
    /// Replaces the agent's hours (`Some`), or removes them (`None`); `at` is when.
    async fn put<'a>(&self, agent: &AgentId, hours: Option<&'a BusinessHours>, at: Timestamp) -> StoreResult<()>;
}

/// Each agent's automation rules.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RuleRepository: Send + Sync {
    /// Stores a new rule unless its agent already has `max_per_agent` (`false`, nothing
    /// written). The count and the insert are one step: concurrent creations never pass it.
    async fn insert(&self, rule: &Rule, max_per_agent: u32) -> StoreResult<bool>;
    /// The agent's rule `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &RuleId) -> StoreResult<Option<Rule>>;
    /// Oldest first (`created_at`, then id), with the agent's total.
    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<Rule>>;
    /// Replaces name, `enabled`, the event, conditions, actions and `updated_at`; `false` when
    /// the agent has no such rule.
    async fn update(&self, rule: &Rule) -> StoreResult<bool>;
    /// `false` when the agent has no such rule.
    async fn delete(&self, agent: &AgentId, id: &RuleId) -> StoreResult<bool>;
    /// The agent's enabled rules that run on `on`, oldest first: what the engine judges an
    /// event against.
    async fn enabled_for(&self, agent: &AgentId, on: RuleTrigger) -> StoreResult<Vec<Rule>>;
}

/// What round robin weighs: each member's load and turn.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RoutingRepository: Send + Sync {
    /// Every member of the agent with its `max_open`, its open conversations and when round
    /// robin last gave it one, oldest member first.
    async fn loads(&self, agent: &AgentId) -> StoreResult<Vec<MemberLoad>>;
    /// Round robin gave the member a conversation at `at`: its turn moves to the back.
    async fn mark_assigned(&self, agent: &AgentId, member: &MemberId, at: Timestamp) -> StoreResult<()>;
}

/// The runs of each rule: claimed once per (rule, event), then finished with their outcome.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait RuleRunRepository: Send + Sync {
    /// Stores `run` (`Running`) unless the rule already has a run for its event: `true` when
    /// this call made it, `false` when another claimant (another worker, another process, an
    /// earlier pass) had it. One statement: two claimants never both win.
    async fn claim(&self, run: &RuleRun) -> StoreResult<bool>;
    /// Records how the claimed run ended (`Ok` or `Failed`, with why); `false` when there is no
    /// such run (its rule was deleted meanwhile).
    async fn finish<'a>(&self, rule: &RuleId, event: &EventId, outcome: RunOutcome, error: Option<&'a str>) -> StoreResult<bool>;
    /// The agent's rule's runs, newest first (`created_at` desc, then event id desc), with their
    /// total; another agent's rule has none.
    async fn list(&self, agent: &AgentId, rule: &RuleId, page: PageRequest) -> StoreResult<Page<RuleRun>>;
    /// Takes up to `limit` of the events waiting for rules and due by `now`, oldest first, and
    /// holds them until `lease_until`: another claimant takes an event only once its lease has
    /// ended (its worker stopped before [`rules_done`](Self::rules_done)). The outbox queues
    /// an event for rules as it stores it: one rules run on ([`RuleTrigger::of_event`]), while
    /// its agent has an enabled rule for it.
    async fn claim_events(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<Event>>;
    /// The events' rules have run: they leave the queue (one write for a pass's events).
    async fn rules_done(&self, events: &[EventId]) -> StoreResult<()>;
    /// How many events wait for rules.
    async fn backlog(&self) -> StoreResult<u64>;
    /// Deletes runs made before `before`, the oldest first: about `limit` of them (all of
    /// those made at the same instant as the last one go with it). How many it deleted.
    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64>;
    /// Takes the turn to send the agent's away message to the activity's contact at `at`:
    /// `true` when none was sent to it after `not_since` (then `at` is recorded), `false` when
    /// one was, or the activity is not the agent's. One statement: of racing claimants one wins.
    async fn claim_away_message(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, not_since: Timestamp) -> StoreResult<bool>;
}

/// Each agent's first-response target, and the conversations that missed theirs.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait FirstResponseRepository: Send + Sync {
    /// The agent's target, `None` when it has set none.
    async fn target(&self, agent: &AgentId) -> StoreResult<Option<ResponseTarget>>;
    /// Sets the agent's target (`Some`) or removes it (`None`) at `at`. Conversations already
    /// waiting keep the due time they were given.
    async fn set_target(&self, agent: &AgentId, target: Option<ResponseTarget>, at: Timestamp) -> StoreResult<()>;
    /// Up to `limit` activities, of every agent, that missed their first response by `now` and
    /// were not announced ([`FirstResponse::missed_by`]), the earliest due first.
    async fn overdue(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<(AgentId, ActivityId)>>;
    /// Records that the agent's activity's miss was announced at `at`, with `events`, if it is
    /// still one by `at`; `false`, writing nothing, when it is not (answered, closed, announced
    /// by another worker meanwhile). One statement decides: of racing callers one wins.
    async fn mark_missed(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, events: &[Event]) -> StoreResult<bool>;
}
