//! `ApiKeyRepository`: agents' API keys, found by the hash of the key presented.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ApiKeyRepository, StoreResult};

use crate::store::{MemoryStore, conflict};

#[async_trait]
impl ApiKeyRepository for MemoryStore {
    async fn insert(&self, key: &ApiKey) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&key.agent_id)?;
            if s.keys.contains_key(&key.id) || s.keys.values().any(|k| k.hash == key.hash) {
                return Err(conflict("api key already stored (id or hash)"));
            }
            s.keys.insert(key.id.clone(), key.clone());
            Ok(())
        })
    }

    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>> {
        Ok(self.with(|s| s.keys.values().find(|k| &k.hash == hash).cloned()))
    }

    async fn list_for_agent(&self, agent: &AgentId) -> StoreResult<Vec<ApiKey>> {
        let mut keys: Vec<ApiKey> = self.with(|s| s.keys.values().filter(|k| &k.agent_id == agent).cloned().collect());
        keys.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        Ok(keys)
    }

    async fn revoke(&self, id: &ApiKeyId, at: Timestamp) -> StoreResult<Option<ApiKey>> {
        Ok(self.with(|s| {
            let key = s.keys.get_mut(id)?;
            // The first revocation's time stays.
            key.revoked_at.get_or_insert(at);
            Some(key.clone())
        }))
    }
}
