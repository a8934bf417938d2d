//! The event delivery worker: claims due deliveries and sends each on a task of its own, at most
//! [`MAX_IN_FLIGHT`] at once and [`MAX_PER_ENDPOINT`] per endpoint, so a slow or dead receiver
//! holds a few slots for at most its 10-second limit each, never the API or other endpoints.
//! A claimed delivery whose endpoint is busy is handed back for a moment. At shutdown no new
//! claims are made and the attempts in hand finish; the rest stay due for the next process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parley_domain::model::{DueDelivery, EndpointId};
use parley_domain::services::{AttemptOutcome, AttemptReport, EVENT_RETENTION};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::runtime::state::AppState;

/// Attempts in flight in this process, across endpoints.
pub const MAX_IN_FLIGHT: usize = 64;
/// Attempts in flight to one endpoint.
pub const MAX_PER_ENDPOINT: usize = 8;
/// How often due deliveries are looked for without a wake-up (retries come due, other
/// processes commit events).
const POLL: Duration = Duration::from_millis(200);
/// How long a delivery handed back because its endpoint is busy waits.
const BUSY_RETRY: chrono::TimeDelta = chrono::TimeDelta::milliseconds(500);
/// How often events past their 30 days are deleted.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);
const RETENTION_BATCH: u32 = 1000;

/// Attempts in flight per endpoint.
#[derive(Default)]
struct Busy(Mutex<HashMap<EndpointId, usize>>);

impl Busy {
    /// Takes a slot for the endpoint, unless all of its slots are taken.
    fn take(&self, endpoint: &EndpointId) -> bool {
        let mut busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let n = busy.entry(endpoint.clone()).or_default();
        if *n >= MAX_PER_ENDPOINT {
            return false;
        }
        *n += 1;
        true
    }

    fn give_back(&self, endpoint: &EndpointId) {
        let mut busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = busy.get_mut(endpoint) {
            *n -= 1;
            if *n == 0 {
                busy.remove(endpoint);
            }
        }
    }
}

pub async fn deliver_events(state: Arc<AppState>, mut stopping: watch::Receiver<bool>) {
    let slots = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let busy = Arc::new(Busy::default());
    let mut in_hand = JoinSet::new();
    let mut failures = 0u32;
    loop {
        while in_hand.try_join_next().is_some() {}
        if *stopping.borrow() {
            break;
        }
        let free = slots.available_permits();
        let mut full_batch = false;
        if free > 0 {
            match state.deliveries.claim(free as u32).await {
                Ok(claimed) => {
                    failures = 0;
                    full_batch = claimed.deliveries.len() == free;
                    for due in claimed.deliveries {
                        if !busy.take(&due.endpoint.id) {
                            if let Err(e) = state.deliveries.release(&due, claimed.until, BUSY_RETRY).await {
                                tracing::debug!(error = %e, "a busy endpoint's delivery could not be handed back; due when its claim ends");
                            }
                            continue;
                        }
                        let permit = slots.clone().try_acquire_owned().expect("claimed no more than the free slots");
                        let (state, busy) = (state.clone(), busy.clone());
                        in_hand.spawn(async move {
                            attempt(&state, &due, claimed.until).await;
                            busy.give_back(&due.endpoint.id);
                            drop(permit);
                        });
                    }
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(error = %e, failures, "claiming event deliveries failed; retrying");
                }
            }
        }
        if full_batch {
            continue;
        }
        let pause = if failures > 0 { (POLL * 2u32.saturating_pow(failures.min(8))).min(Duration::from_secs(30)) } else { POLL };
        tokio::select! {
            _ = tokio::time::timeout(pause, state.event_wakeup.notified()), if failures == 0 => {}
            _ = tokio::time::sleep(pause), if failures > 0 => {}
            Some(_) = in_hand.join_next(), if free == 0 => {}
            _ = stopping.changed() => {}
        }
    }
    let finishing = in_hand.len();
    if finishing > 0 {
        tracing::info!(attempts = finishing, "finishing the event deliveries in hand");
    }
    while in_hand.join_next().await.is_some() {}
}

async fn attempt(state: &AppState, due: &DueDelivery, until: parley_domain::model::Timestamp) {
    match state.deliveries.deliver(due, until).await {
        Ok(report) => {
            let a = &report.attempt;
            let answered = a.attempted_at + chrono::TimeDelta::milliseconds(i64::try_from(a.duration_ms).unwrap_or(i64::MAX));
            let since_commit = (answered - due.event.created_at).to_std().ok();
            state.metrics.observe_event_attempt(&report, since_commit);
            log_attempt(due, &report);
        }
        Err(e) => {
            // The attempt may have reached the receiver; its claim ends and it goes again
            // (at least once).
            tracing::warn!(event = %due.event.id.as_str(), endpoint = %due.endpoint.id.as_str(), error = %e, "an event delivery could not be recorded; it will be tried again");
        }
    }
}

fn log_attempt(due: &DueDelivery, report: &AttemptReport) {
    let (event, endpoint) = (due.event.id.as_str(), due.endpoint.id.as_str());
    let a = &report.attempt;
    match report.outcome {
        AttemptOutcome::Delivered => {
            tracing::debug!(event, endpoint, attempt = a.attempt, status = a.response_status, ms = a.duration_ms, "event delivered")
        }
        AttemptOutcome::Retrying => tracing::info!(
            event, endpoint, attempt = a.attempt, status = a.response_status, error = a.error.as_deref(),
            next_attempt_at = ?a.next_attempt_at, "event delivery failed; it will be tried again"
        ),
        AttemptOutcome::GivenUp => tracing::warn!(
            event,
            endpoint,
            attempt = a.attempt,
            status = a.response_status,
            error = a.error.as_deref(),
            "event delivery given up after 3 days of failures"
        ),
        AttemptOutcome::Superseded => {
            tracing::info!(event, endpoint, "event delivery took longer than its claim; another worker holds it now")
        }
    }
    if report.disabled_endpoint {
        tracing::warn!(
            endpoint,
            url = due.endpoint.url.as_str(),
            "webhook endpoint disabled: its deliveries did nothing but fail for 3 days (PATCH enabled: true to resume)"
        );
    }
}

/// Deletes events older than their 30 days, hourly.
pub async fn expire_events(state: Arc<AppState>) {
    loop {
        match state.deliveries.expire_events(RETENTION_BATCH).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, days = EVENT_RETENTION.num_days(), "expired events deleted"),
            Err(e) => tracing::warn!(error = %e, "expired events could not be deleted; trying again later"),
        }
        tokio::time::sleep(RETENTION_EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endpoint_holds_at_most_its_share_of_slots() {
        let busy = Busy::default();
        let id = EndpointId::new("we_1");
        for _ in 0..MAX_PER_ENDPOINT {
            assert!(busy.take(&id));
        }
        assert!(!busy.take(&id), "full");
        assert!(busy.take(&EndpointId::new("we_2")), "other endpoints are not held up");
        busy.give_back(&id);
        assert!(busy.take(&id));
    }
}
