//! `RuleRepository`: each agent's automation rules, up to a limit per agent, oldest first.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{RuleRepository, RuleRunRepository, StoreResult};

use crate::store::{MemoryStore, conflict, page_of};

#[async_trait]
impl RuleRepository for MemoryStore {
    async fn insert(&self, rule: &Rule, max_per_agent: u32) -> StoreResult<bool> {
        self.with(|s| {
            s.require_agent(&rule.agent_id)?;
            if s.rules.values().filter(|r| r.agent_id == rule.agent_id).count() >= max_per_agent as usize {
                return Ok(false);
            }
            if s.rules.contains_key(&rule.id) {
                return Err(conflict(format!("rule {} already stored", rule.id.as_str())));
            }
            s.rules.insert(rule.id.clone(), rule.clone());
            Ok(true)
        })
    }

    async fn get(&self, agent: &AgentId, id: &RuleId) -> StoreResult<Option<Rule>> {
        Ok(self.with(|s| s.rules.get(id).filter(|r| &r.agent_id == agent).cloned()))
    }

    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<Rule>> {
        let mut rules: Vec<Rule> = self.with(|s| s.rules.values().filter(|r| &r.agent_id == agent).cloned().collect());
        rules.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(page_of(rules, page))
    }

    async fn update(&self, rule: &Rule) -> StoreResult<bool> {
        self.with(|s| match s.rules.get_mut(&rule.id).filter(|r| r.agent_id == rule.agent_id) {
            Some(stored) => {
                *stored = Rule { created_at: stored.created_at, ..rule.clone() };
                Ok(true)
            }
            None => Ok(false),
        })
    }

    async fn delete(&self, agent: &AgentId, id: &RuleId) -> StoreResult<bool> {
        Ok(self.with(|s| {
            let owned = s.rules.get(id).is_some_and(|r| &r.agent_id == agent);
            // Its runs go with it, as the databases' cascade removes them.
            s.rule_runs.retain(|(rule, _), _| !(owned && rule == id));
            owned && s.rules.remove(id).is_some()
        }))
    }

    async fn enabled_for(&self, agent: &AgentId, on: RuleTrigger) -> StoreResult<Vec<Rule>> {
        let mut rules: Vec<Rule> =
            self.with(|s| s.rules.values().filter(|r| &r.agent_id == agent && r.on == on && r.enabled).cloned().collect());
        rules.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(rules)
    }
}

#[async_trait]
impl RuleRunRepository for MemoryStore {
    async fn claim(&self, run: &RuleRun) -> StoreResult<bool> {
        self.with(|s| {
            if !s.rules.contains_key(&run.rule_id) {
                return Err(conflict(format!("rule {} is not stored", run.rule_id.as_str())));
            }
            let key = (run.rule_id.clone(), run.event_id.clone());
            if s.rule_runs.contains_key(&key) {
                return Ok(false);
            }
            s.rule_runs.insert(key, run.clone());
            Ok(true)
        })
    }

    async fn finish<'a>(&self, rule: &RuleId, event: &EventId, outcome: RunOutcome, error: Option<&'a str>) -> StoreResult<bool> {
        Ok(self.with(|s| match s.rule_runs.get_mut(&(rule.clone(), event.clone())) {
            Some(run) => {
                run.outcome = outcome;
                run.error = error.map(str::to_string);
                true
            }
            None => false,
        }))
    }

    async fn list(&self, agent: &AgentId, rule: &RuleId, page: PageRequest) -> StoreResult<Page<RuleRun>> {
        let mut runs: Vec<RuleRun> =
            self.with(|s| s.rule_runs.values().filter(|r| &r.rule_id == rule && &r.agent_id == agent).cloned().collect());
        runs.sort_by(|a, b| (b.created_at, &b.event_id).cmp(&(a.created_at, &a.event_id)));
        Ok(page_of(runs, page))
    }

    async fn claim_events(&self, now: Timestamp, lease_until: Timestamp, limit: u32) -> StoreResult<Vec<Event>> {
        Ok(self.with(|s| {
            let mut due: Vec<(Timestamp, EventId)> =
                s.rule_queue.iter().filter(|(_, (_, due))| *due <= now).map(|(id, (created, _))| (*created, id.clone())).collect();
            due.sort();
            due.truncate(limit as usize);
            let mut claimed = Vec::with_capacity(due.len());
            for (_, id) in due {
                if let Some(entry) = s.rule_queue.get_mut(&id) {
                    entry.1 = lease_until;
                }
                claimed.extend(s.events.get(&id).cloned());
            }
            claimed
        }))
    }

    async fn rules_done(&self, events: &[EventId]) -> StoreResult<()> {
        self.with(|s| events.iter().for_each(|event| _ = s.rule_queue.remove(event)));
        Ok(())
    }

    async fn backlog(&self) -> StoreResult<u64> {
        Ok(self.with(|s| s.rule_queue.len() as u64))
    }

    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64> {
        Ok(self.with(|s| {
            let mut times: Vec<Timestamp> = s.rule_runs.values().map(|r| r.created_at).filter(|at| *at < before).collect();
            times.sort();
            let Some(last) = times.get(limit.max(1) as usize - 1).or(times.last()).copied() else { return 0 };
            let old = s.rule_runs.len();
            s.rule_runs.retain(|_, run| run.created_at > last);
            (old - s.rule_runs.len()) as u64
        }))
    }

    async fn claim_away_message(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, not_since: Timestamp) -> StoreResult<bool> {
        Ok(self.with(|s| match s.activities.get_mut(activity).filter(|a| &a.activity.agent_id == agent) {
            Some(stored) if stored.away_sent_at.is_none_or(|sent| sent <= not_since) => {
                stored.away_sent_at = Some(at);
                true
            }
            _ => false,
        }))
    }
}
