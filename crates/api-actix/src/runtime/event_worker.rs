//! The event delivery worker: finds the endpoints with deliveries due, claims each one's share
//! (at most [`MAX_PER_ENDPOINT`] in flight per endpoint, [`MAX_IN_FLIGHT`] in all) and sends each
//! on a task of its own. A slow or dead receiver holds its own slots for at most its 10-second
//! limit each, never the API (this runtime is the workers') nor other endpoints, whose deliveries
//! are claimed on their own. At shutdown no new claims are made and the attempts in hand finish;
//! the rest stay due for the next process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parley_domain::model::{DueDelivery, EndpointId};
use parley_domain::services::{AttemptOutcome, AttemptReport, EVENT_RETENTION};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::runtime::state::AppState;

/// Attempts in flight in this process, across endpoints.
pub const MAX_IN_FLIGHT: usize = 128;
/// Attempts in flight to one endpoint.
pub const MAX_PER_ENDPOINT: usize = 16;
/// Endpoints looked at per pass.
const ENDPOINTS_PER_PASS: u32 = 64;
/// How often due deliveries are looked for without a wake-up (retries come due, other
/// processes commit events).
const POLL: Duration = Duration::from_millis(100);
/// How often events past their 30 days are deleted.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);
const RETENTION_BATCH: u32 = 1000;

/// Attempts in flight per endpoint.
#[derive(Default)]
struct Busy(Mutex<HashMap<EndpointId, usize>>);

impl Busy {
    /// How many more attempts the endpoint may have in flight.
    fn room(&self, endpoint: &EndpointId) -> usize {
        let busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        MAX_PER_ENDPOINT - busy.get(endpoint).copied().unwrap_or(0)
    }

    fn take(&self, endpoint: &EndpointId) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()).entry(endpoint.clone()).or_default() += 1;
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

/// One pass: each endpoint with deliveries due gets up to its room, while slots last. Returns
/// how many attempts started.
async fn pass(state: &Arc<AppState>, slots: &Arc<Semaphore>, busy: &Arc<Busy>, in_hand: &mut JoinSet<()>) -> Result<usize, String> {
    let mut started = 0;
    for endpoint in state.deliveries.due_endpoints(ENDPOINTS_PER_PASS).await.map_err(|e| e.to_string())? {
        let room = busy.room(&endpoint).min(slots.available_permits());
        if room == 0 {
            continue;
        }
        let claimed = state.deliveries.claim_for(&endpoint, room as u32).await.map_err(|e| e.to_string())?;
        for due in claimed.deliveries {
            let permit = slots.clone().try_acquire_owned().expect("claimed no more than the free slots");
            busy.take(&due.endpoint.id);
            let (state, busy) = (state.clone(), busy.clone());
            started += 1;
            in_hand.spawn(async move {
                attempt(&state, &due, claimed.until).await;
                busy.give_back(&due.endpoint.id);
                drop(permit);
            });
        }
    }
    Ok(started)
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
        let mut started = 0;
        if slots.available_permits() > 0 {
            match pass(&state, &slots, &busy, &mut in_hand).await {
                Ok(n) => {
                    failures = 0;
                    started = n;
                }
                Err(e) => {
                    failures += 1;
                    tracing::warn!(error = %e, failures, "claiming event deliveries failed; retrying");
                }
            }
        }
        if started > 0 {
            continue;
        }
        let pause = if failures > 0 { (POLL * 2u32.saturating_pow(failures.min(8))).min(Duration::from_secs(30)) } else { POLL };
        tokio::select! {
            _ = tokio::time::timeout(pause, state.event_wakeup.notified()), if failures == 0 => {}
            _ = tokio::time::sleep(pause), if failures > 0 => {}
            Some(_) = in_hand.join_next(), if !in_hand.is_empty() => {}
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
            busy.take(&id);
        }
        assert_eq!(busy.room(&id), 0, "full");
        assert_eq!(busy.room(&EndpointId::new("we_2")), MAX_PER_ENDPOINT, "other endpoints are not held up");
        busy.give_back(&id);
        assert_eq!(busy.room(&id), 1);
    }
}
