//! The rule worker: runs the rule engine over the events that wait for rules, a batch at a
//! time without a pause while batches come full, else every [`POLL`]: during a burst of
//! messages each pass takes many events, so its two writes (the claim, the queue's removal)
//! are shared by them rather than taken per message from the writers ingesting them. Every process that processes webhooks runs
//! one; the queue's leases and the runs' claims make them one engine between them. At shutdown
//! the batch in hand finishes; the rest wait for the next process.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::runtime::passes::run_passes;
use crate::runtime::state::AppState;

/// How often waiting events are looked for: a rule runs within this of its event.
const POLL: Duration = Duration::from_millis(200);
/// Events taken per pass.
const BATCH: u32 = 50;

/// Runs rules until `stopping`.
pub async fn run_rules(state: Arc<AppState>, stopping: watch::Receiver<bool>) {
    run_passes(stopping, POLL, "rule pass", || async {
        let pass = state.rule_engine.run_due(BATCH).await?;
        if pass.runs > 0 || pass.away_messages > 0 {
            let (events, runs, failed, away) = (pass.events, pass.runs, pass.failed, pass.away_messages);
            tracing::info!(events, runs, failed, away_messages = away, "rules ran");
        }
        Ok::<_, parley_domain::DomainError>(pass.events == BATCH as usize)
    })
    .await;
}
