//! The first-response worker: announces the conversations whose first response came due
//! unanswered (`activity.first_response_missed`), each once. Every process that processes
//! webhooks runs one; the miss's compare-and-set makes them one announcer between them.

use std::sync::Arc;
use std::time::Duration;

use parley_domain::services::MISSES_PER_PASS;
use tokio::sync::watch;

use crate::runtime::passes::run_passes;
use crate::runtime::state::AppState;

/// How often misses are looked for: a miss is announced within this of its due time.
const POLL: Duration = Duration::from_secs(1);

/// Announces misses until `stopping`.
pub async fn announce_misses(state: Arc<AppState>, stopping: watch::Receiver<bool>) {
    run_passes(stopping, POLL, "first-response misses' pass", || async {
        let announced = state.first_response.announce_misses(MISSES_PER_PASS).await?;
        if announced > 0 {
            tracing::info!(announced, "first responses missed");
        }
        Ok::<_, parley_domain::DomainError>(announced == MISSES_PER_PASS as usize)
    })
    .await;
}
