//! `AgentRepository`: the tenants.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{AgentRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

#[async_trait]
impl AgentRepository for MemoryStore {
    async fn insert(&self, agent: &Agent) -> StoreResult<()> {
        self.with(|s| {
            if s.agents.contains_key(&agent.id) {
                return Err(conflict(format!("agent {} already stored", agent.id)));
            }
            s.agents.insert(agent.id.clone(), agent.clone());
            Ok(())
        })
    }

    async fn get(&self, id: &AgentId) -> StoreResult<Option<Agent>> {
        Ok(self.with(|s| s.agents.get(id).cloned()))
    }

    async fn list(&self) -> StoreResult<Vec<Agent>> {
        let mut agents: Vec<Agent> = self.with(|s| s.agents.values().cloned().collect());
        agents.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        Ok(agents)
    }
}
