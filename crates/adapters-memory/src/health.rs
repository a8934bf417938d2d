//! `StorageHealth`: memory is always there. `ChangeProbe`: not kept, so nothing derived from it is.

use async_trait::async_trait;
use parley_domain::ports::{ChangeProbe, PoolStatus, StorageHealth, StoreResult};

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

/// No version is kept: a change would have to be counted in every write of every repository,
/// for a backend that serves tests and a demo. Readers keep nothing of it.
#[async_trait]
impl ChangeProbe for MemoryStore {
    async fn version(&self) -> StoreResult<Option<u64>> {
        Ok(None)
    }
}
