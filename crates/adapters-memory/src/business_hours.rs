//! Each agent's business hours: one set per agent.

use async_trait::async_trait;
use parley_domain::model::{AgentId, BusinessHours, Timestamp};
use parley_domain::ports::{BusinessHoursRepository, StoreResult};

use crate::store::MemoryStore;

#[async_trait]
impl BusinessHoursRepository for MemoryStore {
    async fn get(&self, agent: &AgentId) -> StoreResult<Option<BusinessHours>> {
        Ok(self.with(|s| s.business_hours.get(agent).cloned()))
    }

    async fn put<'a>(&self, agent: &AgentId, hours: Option<&'a BusinessHours>, _at: Timestamp) -> StoreResult<()> {
        self.with(|s| match hours {
            Some(hours) => s.business_hours.insert(agent.clone(), hours.clone()),
            None => s.business_hours.remove(agent),
        });
        Ok(())
    }
}
