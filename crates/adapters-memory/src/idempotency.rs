//! `IdempotencyRepository`: idempotency keys, claimed once per agent until their record expires,
//! with the answer and the recovery point of the request that claimed them.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{IdempotencyRepository, StoreResult};

use crate::store::{IdempotencyRecord, MemoryStore};

#[async_trait]
impl IdempotencyRepository for MemoryStore {
    async fn claim(
        &self,
        agent: &AgentId,
        key: &str,
        fingerprint: &str,
        at: Timestamp,
        expired_before: Timestamp,
    ) -> StoreResult<IdempotencyClaim> {
        self.with(|s| {
            s.require_agent(agent)?;
            let id = (agent.clone(), key.to_string());
            // An expired record is forgotten first: the key is free again.
            if s.idempotency.get(&id).is_some_and(|record| record.claimed_at < expired_before) {
                s.idempotency.remove(&id);
            }
            if let Some(record) = s.idempotency.get(&id) {
                return Ok(IdempotencyClaim::Existing {
                    fingerprint: record.fingerprint.clone(),
                    response: record.response.clone(),
                    claimed_at: record.claimed_at,
                });
            }
            let record = IdempotencyRecord { fingerprint: fingerprint.to_string(), response: None, claimed_at: at, recovery_point: None };
            s.idempotency.insert(id, record);
            Ok(IdempotencyClaim::Claimed)
        })
    }

    async fn complete(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> StoreResult<()> {
        self.with(|s| {
            if let Some(record) = s.idempotency.get_mut(&(agent.clone(), key.to_string())) {
                record.response = Some(response.clone());
            }
        });
        Ok(())
    }

    async fn set_recovery_point(&self, agent: &AgentId, key: &str, resource: &str) -> StoreResult<()> {
        self.with(|s| {
            if let Some(record) = s.idempotency.get_mut(&(agent.clone(), key.to_string())) {
                record.recovery_point = Some(resource.to_string());
            }
        });
        Ok(())
    }

    async fn recovery_point(&self, agent: &AgentId, key: &str) -> StoreResult<Option<String>> {
        Ok(self.with(|s| s.idempotency.get(&(agent.clone(), key.to_string())).and_then(|record| record.recovery_point.clone())))
    }
}
