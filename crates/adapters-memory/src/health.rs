//! `StorageHealth`: memory is always there.

use async_trait::async_trait;
use parley_domain::ports::{PoolStatus, StorageHealth, StoreResult};

use crate::store::MemoryStore;

#[async_trait]
impl StorageHealth for MemoryStore {
    async fn check(&self) -> StoreResult<()> {
        Ok(())
    }

    fn backend(&self) -> &'static str {
        "memory"
    }

    /// No pool: nothing to connect to, nothing ever waits for a connection.
    fn pool(&self) -> PoolStatus {
        PoolStatus::default()
    }
}
