//! `ExecutionRepository`: the record of each template send of a campaign, moved by status
//! reports through compare-and-set updates.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ExecutionRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

#[async_trait]
impl ExecutionRepository for MemoryStore {
    async fn insert(&self, execution: &Execution) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&execution.agent_id)?;
            if s.executions.contains_key(&execution.id) {
                return Err(conflict(format!("execution {} already stored", execution.id)));
            }
            // A platform message id names one send of the agent; refused sends have none.
            if let Some(message_id) = &execution.message_id
                && s.executions.values().any(|e| e.agent_id == execution.agent_id && e.message_id.as_ref() == Some(message_id))
            {
                return Err(conflict(format!("the agent has an execution of message {message_id}")));
            }
            s.executions.insert(execution.id.clone(), execution.clone());
            Ok(())
        })
    }

    async fn find_by_message(&self, agent: &AgentId, message_id: &str) -> StoreResult<Option<Execution>> {
        Ok(self.with(|s| s.executions.values().find(|e| &e.agent_id == agent && e.message_id.as_deref() == Some(message_id)).cloned()))
    }

    async fn update(&self, execution: &Execution, expected: ExecutionStatus, events: &[Event]) -> StoreResult<bool> {
        self.with(|s| {
            let current = s.executions.get(&execution.id).filter(|e| e.agent_id == execution.agent_id && e.status == expected);
            if current.is_none() {
                return Ok(false);
            }
            s.check_events(events)?;
            let Some(stored) = s.executions.get_mut(&execution.id) else { return Ok(false) };
            // What the platform reports changes; what the record is (key, recipient, template,
            // message) never does.
            stored.status = execution.status;
            stored.error_message = execution.error_message.clone();
            stored.sent_at = execution.sent_at;
            stored.delivered_at = execution.delivered_at;
            stored.read_at = execution.read_at;
            stored.updated_at = execution.updated_at;
            s.emit_all(events);
            Ok(true)
        })
    }

    async fn list(&self, agent: &AgentId, key: &CampaignKey, since: Option<Timestamp>, limit: u32) -> StoreResult<Vec<Execution>> {
        let mut changed: Vec<Execution> = self.with(|s| {
            s.executions
                .values()
                .filter(|e| &e.agent_id == agent && &e.campaign_key == key && since.is_none_or(|since| e.updated_at > since))
                .cloned()
                .collect()
        });
        changed.sort_by(|x, y| (x.updated_at, &x.id).cmp(&(y.updated_at, &y.id)));
        changed.truncate(limit as usize);
        Ok(changed)
    }

    async fn key_exists(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<bool> {
        Ok(self.with(|s| s.executions.values().any(|e| &e.agent_id == agent && &e.campaign_key == key)))
    }
}
