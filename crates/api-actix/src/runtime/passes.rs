//! The loop a queue's worker runs: a pass at once after a full one (a backlog drains without
//! pauses), else after the poll interval; after failed passes, a pause doubling up to 30 s (a
//! store that is down fails every pass at once); until the process stops.

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;

/// The longest wait after failed passes.
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// Runs `pass` until `stopping`: it answers whether it was full (`Ok(true)`: run again at once),
/// or why it failed (logged as `what` failing).
pub async fn run_passes<F, Fut, E>(mut stopping: watch::Receiver<bool>, poll: Duration, what: &str, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<bool, E>>,
    E: std::fmt::Display,
{
    let mut failures = 0u32;
    loop {
        if *stopping.borrow() {
            return;
        }
        let pause = match pass().await {
            Ok(true) => {
                failures = 0;
                continue;
            }
            Ok(false) => {
                failures = 0;
                poll
            }
            Err(e) => {
                failures += 1;
                let pause = (poll * 2u32.saturating_pow(failures.min(16))).min(MAX_PAUSE);
                tracing::warn!(error = %e, failures, retry_in_ms = pause.as_millis() as u64, "{what} failed");
                pause
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopping.changed() => {}
        }
    }
}
