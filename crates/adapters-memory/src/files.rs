//! `FileRepository`: files kept for messages (email attachments), written once per agent and id.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{FileRepository, StoreResult, StoredFile};

use crate::store::MemoryStore;

#[async_trait]
impl FileRepository for MemoryStore {
    async fn put(&self, file: &StoredFile) -> StoreResult<()> {
        self.with(|s| {
            s.require_agent(&file.agent_id)?;
            // A delivery processed again keeps the first copy.
            s.files.entry((file.agent_id.clone(), file.id.clone())).or_insert_with(|| file.clone());
            Ok(())
        })
    }

    async fn get(&self, agent: &AgentId, id: &str) -> StoreResult<Option<StoredFile>> {
        Ok(self.with(|s| s.files.get(&(agent.clone(), id.to_string())).cloned()))
    }
}
