//! Each agent's first-response target, and the misses of the clocks activities carry.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{FirstResponseRepository, StoreResult};

use crate::store::MemoryStore;

#[async_trait]
impl FirstResponseRepository for MemoryStore {
    async fn target(&self, agent: &AgentId) -> StoreResult<Option<ResponseTarget>> {
        Ok(self.with(|s| s.first_response_targets.get(agent).copied()))
    }

    async fn set_target(&self, agent: &AgentId, target: Option<ResponseTarget>, _at: Timestamp) -> StoreResult<()> {
        self.with(|s| match target {
            Some(target) => s.first_response_targets.insert(agent.clone(), target),
            None => s.first_response_targets.remove(agent),
        });
        Ok(())
    }

    async fn overdue(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<(AgentId, ActivityId)>> {
        let mut due: Vec<(Timestamp, AgentId, ActivityId)> = self.with(|s| {
            s.activities
                .values()
                .map(|stored| &stored.activity)
                .filter(|a| a.first_response.missed_by(now, a.status == ActivityStatus::Open))
                .filter_map(|a| a.first_response.due_at.map(|due| (due, a.agent_id.clone(), a.id.clone())))
                .collect()
        });
        due.sort_by(|x, y| (x.0, &x.2).cmp(&(y.0, &y.2)));
        Ok(due.into_iter().take(limit as usize).map(|(_, agent, id)| (agent, id)).collect())
    }

    async fn mark_missed(&self, agent: &AgentId, activity: &ActivityId, at: Timestamp, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            let missed = s.activity_of(agent, activity).is_some_and(|stored| {
                let a = &stored.activity;
                a.first_response.missed_by(at, a.status == ActivityStatus::Open)
            });
            if !missed {
                return Ok(false);
            }
            s.check_events(events)?;
            if let Some(stored) = s.activity_of_mut(agent, activity) {
                stored.activity.first_response.missed_at = Some(at);
            }
            s.emit_all(events);
            Ok(true)
        })
    }
}
