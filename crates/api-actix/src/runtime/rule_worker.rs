//! The rule worker: runs the rule engine over the events that wait for rules, a batch at a
//! time without a pause while batches come full, else every [`POLL`]: during a burst of
//! messages each pass takes many events, so its two writes (the claim, the queue's removal)
//! are shared by them rather than taken per message from the writers ingesting them. Every process that processes webhooks runs
//! one; the queue's leases and the runs' claims make them one engine between them. At shutdown
//! the batch in hand finishes; the rest wait for the next process.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::runtime::state::AppState;

/// How often waiting events are looked for: a rule runs within this of its event.
const POLL: Duration = Duration::from_millis(200);
/// Events taken per pass.
const BATCH: u32 = 50;
/// The longest wait after failed passes (a store that is down fails every pass at once).
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// Runs rules until `stopping`.
pub async fn run_rules(state: Arc<AppState>, mut stopping: watch::Receiver<bool>) {
    let mut failures = 0u32;
    loop {
        if *stopping.borrow() {
            return;
        }
        let pause = match state.rule_engine.run_due(BATCH).await {
            Ok(pass) => {
                failures = 0;
                if pass.runs > 0 || pass.away_messages > 0 {
                    let (events, runs, failed, away) = (pass.events, pass.runs, pass.failed, pass.away_messages);
                    tracing::info!(events, runs, failed, away_messages = away, "rules ran");
                }
                if pass.events == BATCH as usize {
                    continue;
                }
                POLL
            }
            Err(e) => {
                failures += 1;
                let pause = (POLL * 2u32.saturating_pow(failures.min(16))).min(MAX_PAUSE);
                tracing::warn!(error = %e, failures, retry_in_ms = pause.as_millis() as u64, "rule pass failed");
                pause
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopping.changed() => {}
        }
    }
}
