//! Background work: processing stored webhooks (and, handed over by the webhook route, those
//! arriving), reading email lines' mailboxes, the sandbox's delayed status deliveries, the periodic template sync, keeping the
//! search index in step with catalog changes, SQLite's query planner statistics fresh and its
//! write-ahead log checkpointed. It runs on a small multi-thread runtime of its own, so storage
//! work is never cancelled half-way on actix's current-thread workers, even at shutdown.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use parley_adapters_diesel::Store;

use crate::runtime::state::AppState;
use crate::runtime::{event_worker, first_response_worker, rule_worker, scheduled_worker};
use parley_adapters_whatsapp::SandboxDelivery;

/// How often stored webhooks are looked at even without a wake-up (retries come due).
const WEBHOOK_POLL: Duration = Duration::from_secs(1);
const WEBHOOK_BATCH: u32 = 100;

pub struct WorkerConfig {
    /// Process stored webhooks here (off on ingest-only instances).
    pub process_webhooks: bool,
    /// Re-sync every line's templates this often; `None` = never (besides at start).
    pub template_sync_every: Option<Duration>,
    /// Sync templates once right away.
    pub sync_at_start: bool,
    /// How often the search index looks for catalog changes made by other processes.
    pub index_refresh_every: Duration,
    /// How often email lines' mailboxes are read (on processing instances); `None` = never.
    pub mail_poll_every: Option<Duration>,
    /// The store whose stale query planner statistics are refreshed every `STATISTICS_EVERY`,
    /// and whose SQLite log is checkpointed every `CHECKPOINT_EVERY`.
    pub store: Store,
}

/// How often a server refreshes stale SQLite statistics (SQLite advises every few hours on
/// long-lived connections; a check that finds nothing stale costs a few reads).
const STATISTICS_EVERY: Duration = Duration::from_secs(3600);

/// The running background workers; stopped on drop (at once), or by [`Workers::shutdown`]
/// (webhook processing first finishes the delivery in hand).
pub struct Workers {
    runtime: Option<tokio::runtime::Runtime>,
    stop: watch::Sender<bool>,
    inbound: Option<tokio::task::JoinHandle<()>>,
    events: Option<tokio::task::JoinHandle<()>>,
    mail: Option<tokio::task::JoinHandle<()>>,
    rules: Option<tokio::task::JoinHandle<()>>,
    scheduled: Option<tokio::task::JoinHandle<()>>,
    misses: Option<tokio::task::JoinHandle<()>>,
}

impl Workers {
    pub fn start(state: Arc<AppState>, sandbox: mpsc::UnboundedReceiver<SandboxDelivery>, config: WorkerConfig) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).thread_name("parley-worker").enable_all().build()?;
        let (stop, stopping) = watch::channel(false);
        let _ = state.workers_runtime.set(runtime.handle().clone());
        let inbound = config.process_webhooks.then(|| runtime.spawn(process_inbound(state.clone(), stopping.clone())));
        let mail = match (config.process_webhooks, config.mail_poll_every) {
            (true, Some(every)) => Some(runtime.spawn(poll_mailboxes(state.clone(), stopping.clone(), every))),
            _ => None,
        };
        let rules = config.process_webhooks.then(|| runtime.spawn(rule_worker::run_rules(state.clone(), stopping.clone())));
        let scheduled = config.process_webhooks.then(|| runtime.spawn(scheduled_worker::send_scheduled(state.clone(), stopping.clone())));
        let misses =
            config.process_webhooks.then(|| runtime.spawn(first_response_worker::announce_misses(state.clone(), stopping.clone())));
        let events = config.process_webhooks.then(|| runtime.spawn(event_worker::deliver_events(state.clone(), stopping)));
        if config.process_webhooks {
            runtime.spawn(event_worker::expire_events(state.clone()));
        }
        runtime.spawn(state.event_hub.clone().run(state.event_stream.clone(), stop.subscribe()));
        runtime.spawn(deliver_sandbox_statuses(state.clone(), sandbox));
        runtime.spawn(refresh_search_index(state.clone(), config.index_refresh_every));
        runtime.spawn(checkpoint(config.store.clone()));
        runtime.spawn(keep_statistics(config.store));
        if config.sync_at_start || config.template_sync_every.is_some() {
            runtime.spawn(sync_templates(state, config.sync_at_start, config.template_sync_every));
        }
        Ok(Self { runtime: Some(runtime), stop, inbound, events, mail, rules, scheduled, misses })
    }

    /// Stops the workers: webhook processing finishes the delivery in hand and event delivery
    /// the attempts in hand (together at most `deadline`), and both stop; the other tasks stop at once (the template sync and index refresh run again
    /// at the next start; sandbox statuses not yet stored are lost). False when the deadline passed.
    pub async fn shutdown(mut self, deadline: Duration) -> bool {
        let _ = self.stop.send(true);
        let tasks: Vec<_> =
            [self.inbound.take(), self.events.take(), self.mail.take(), self.rules.take(), self.scheduled.take(), self.misses.take()]
                .into_iter()
                .flatten()
                .collect();
        tokio::time::timeout(deadline, futures_util::future::join_all(tasks)).await.is_ok()
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            // Drop may run inside an async context, where a runtime cannot block to shut down.
            rt.shutdown_background();
        }
    }
}

async fn process_inbound(state: Arc<AppState>, mut stopping: watch::Receiver<bool>) {
    let mut failures = 0u32;
    loop {
        let mut pause = WEBHOOK_POLL;
        loop {
            if *stopping.borrow() {
                return;
            }
            let stop = || *stopping.borrow();
            let pass = state.inbound.process_due_until(WEBHOOK_BATCH, &stop).await;
            if let Ok(summary) = &pass {
                state.metrics.observe_inbound_pass(summary);
            }
            match pass {
                Ok(s) if s.handled() > 0 => {
                    failures = 0;
                    continue;
                }
                Ok(_) => failures = 0,
                Err(e) => {
                    // A store that is down fails every pass at once: wait longer after each.
                    failures += 1;
                    pause = failure_pause(failures);
                    tracing::warn!(error = %e, failures, retry_in_ms = pause.as_millis() as u64, "webhook processing pass failed");
                }
            }
            break;
        }
        tokio::select! {
            _ = tokio::time::timeout(pause, state.inbound_wakeup.notified()), if failures == 0 => {}
            _ = tokio::time::sleep(pause), if failures > 0 => {}
            _ = stopping.changed() => {}
        }
        if *stopping.borrow() {
            return;
        }
    }
}

/// Reads every email line's mailbox this instance can claim, every `every`; a shutdown lets the
/// message in hand finish and stops (the mailbox's position is where its last batch ended).
async fn poll_mailboxes(state: Arc<AppState>, mut stopping: watch::Receiver<bool>, every: Duration) {
    loop {
        let stop = || *stopping.borrow();
        match state.mailboxes.poll_all(state.inbound.as_ref(), &stop).await {
            Ok(summary) if summary.messages > 0 || summary.failed > 0 => {
                tracing::info!(mailboxes = summary.mailboxes, messages = summary.messages, failed = summary.failed, "mailboxes polled");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "mailbox poll failed"),
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stopping.changed() => {}
        }
        if *stopping.borrow() {
            return;
        }
    }
}

/// The wait after `failures` passes failed in a row: the poll period doubled each time, at most
/// a minute.
fn failure_pause(failures: u32) -> Duration {
    (WEBHOOK_POLL * 2u32.saturating_pow(failures.min(16))).min(Duration::from_secs(60))
}

/// How often a server checkpoints SQLite's write-ahead log, so writers rarely do it in their
/// commits (see the storage crate's `checkpoint.rs`).
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

async fn checkpoint(store: Store) {
    let mut ticks = tokio::time::interval(CHECKPOINT_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if let Err(e) = store.checkpoint().await {
            tracing::debug!(error = %e, "checkpoint of the write-ahead log failed; writers checkpoint past its bound");
        }
    }
}

async fn keep_statistics(store: Store) {
    loop {
        tokio::time::sleep(STATISTICS_EVERY).await;
        crate::runtime::store::keep_statistics(&store).await;
    }
}

async fn deliver_sandbox_statuses(state: Arc<AppState>, mut deliveries: mpsc::UnboundedReceiver<SandboxDelivery>) {
    while let Some(delivery) = deliveries.recv().await {
        let state = state.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delivery.after).await;
            match state.inbound.receive(delivery.platform, delivery.body).await {
                Ok(_) => state.inbound_wakeup.notify_one(),
                Err(e) => tracing::warn!(error = %e, "sandbox status could not be stored"),
            }
        });
    }
}

async fn sync_templates(state: Arc<AppState>, at_start: bool, every: Option<Duration>) {
    if !at_start {
        match every {
            Some(every) => tokio::time::sleep(every).await,
            None => return,
        }
    }
    loop {
        match state.lines.sync(None).await {
            Ok(reports) => {
                for r in reports {
                    match r.result {
                        Ok(n) => tracing::info!(line = %r.line.as_str(), templates = n, "templates synced"),
                        Err(e) => tracing::warn!(line = %r.line.as_str(), error = %e, "template sync failed"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "template sync failed"),
        }
        match every {
            Some(every) => tokio::time::sleep(every).await,
            None => return,
        }
    }
}

/// Follows catalog changes made by any process (imports, reindexing, other instances), so every
/// instance's search sees them within one period.
async fn refresh_search_index(state: Arc<AppState>, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        match state.search.refresh().await {
            Ok(r) if r.agents > 0 => {
                tracing::info!(agents = r.agents, upserted = r.upserted, removed = r.removed, "search index refreshed")
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "search index refresh failed; retrying"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_passes_back_off_to_a_minute() {
        assert_eq!(failure_pause(1), Duration::from_secs(2));
        assert_eq!(failure_pause(3), Duration::from_secs(8));
        assert_eq!(failure_pause(6), Duration::from_secs(60));
        assert_eq!(failure_pause(u32::MAX), Duration::from_secs(60));
    }
}
