//! Opening the store: migrations applied and logged, planner statistics kept fresh.

use parley_adapters_diesel::{PoolOptions, Store};

use crate::runtime::redact::redact_url;

/// The store at `url`, migrated.
pub async fn open_store(url: &str, options: PoolOptions) -> Result<Store, Box<dyn std::error::Error>> {
    let store = Store::open(url, options)?;
    let applied = store.migrate().await.map_err(|e| format!("cannot prepare the database at {}: {e}", redact_url(url)))?;
    for name in applied {
        tracing::info!(migration = %name, "applied migration");
    }
    keep_statistics(&store).await;
    Ok(store)
}

/// [`Store::keep_statistics`], logged; a failure costs only plan quality, so it never fails a command.
pub async fn keep_statistics(store: &Store) {
    if let Err(e) = store.keep_statistics().await {
        tracing::warn!(error = %e, "could not refresh the query planner's statistics");
    }
}
