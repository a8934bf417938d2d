//! `parley analyze`: the query planner's statistics (`parley migrate` needs no code: opening the
//! store migrates it).

use parley_adapters_diesel::Store;

use super::Failure;

pub(super) async fn analyze(store: &Store) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    store.analyze().await?;
    tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "statistics refreshed");
    Ok(())
}
