//! The event delivery worker: finds the endpoints with deliveries due, least recently served
//! first, takes them tenant by tenant in turn, claims each one's share and sends each delivery
//! on a task of its own. Shares bound what one tenant can hold: at most [`MAX_PER_ENDPOINT`] in
//! flight per endpoint (one, a probe, while it is failing), [`MAX_PER_TENANT`] per tenant and
//! [`MAX_IN_FLIGHT`] in all; an endpoint failing again has its breaker opened (the domain's
//! `breaker_pause`) and is not claimed until it closes. A slow or dead receiver holds its own
//! slots for at most its 10-second limit each, never the API (this runtime is the workers') nor
//! other tenants'. At shutdown no new claims are made and the attempts in hand finish; the rest
//! stay due for the next process.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parley_domain::model::{AgentId, DueDelivery, DueEndpoint, EndpointId};
use parley_domain::services::{AttemptOutcome, AttemptReport, EVENT_RETENTION, RUN_RETENTION};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::runtime::state::AppState;

/// Attempts in flight in this process, across endpoints.
pub const MAX_IN_FLIGHT: usize = 128;
/// Attempts in flight to one endpoint.
pub const MAX_PER_ENDPOINT: usize = 16;
/// Attempts in flight to one endpoint while it is failing: one probe at a time.
pub const MAX_PER_FAILING_ENDPOINT: usize = 1;
/// Attempts in flight to one tenant's endpoints: a quarter of the process's, so three tenants
/// with receivers that hang still leave a quarter to everyone else.
pub const MAX_PER_TENANT: usize = MAX_IN_FLIGHT / 4;
/// Endpoints looked at per pass.
const ENDPOINTS_PER_PASS: u32 = 64;
/// How often due deliveries are looked for without a wake-up (retries come due, other
/// processes commit events).
const POLL: Duration = Duration::from_millis(100);
/// How often events past their 30 days are deleted.
const RETENTION_EVERY: Duration = Duration::from_secs(3600);
const RETENTION_BATCH: u32 = 1000;

/// Attempts in flight per key (an endpoint, a tenant).
struct InFlight<K>(HashMap<K, usize>);

impl<K: Hash + Eq + Clone> InFlight<K> {
    fn of(&self, key: &K) -> usize {
        self.0.get(key).copied().unwrap_or(0)
    }

    fn take(&mut self, key: &K) {
        *self.0.entry(key.clone()).or_default() += 1;
    }

    fn give_back(&mut self, key: &K) {
        if let Some(n) = self.0.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                self.0.remove(key);
            }
        }
    }
}

/// Attempts in flight per endpoint and per tenant.
struct Busy(Mutex<(InFlight<EndpointId>, InFlight<AgentId>)>);

impl Default for Busy {
    fn default() -> Self {
        Self(Mutex::new((InFlight(HashMap::new()), InFlight(HashMap::new()))))
    }
}

impl Busy {
    /// How many more attempts the endpoint may have in flight: its own share (one probe while
    /// failing) and what is left of its tenant's.
    fn room(&self, endpoint: &DueEndpoint) -> usize {
        let busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let share = if endpoint.failing { MAX_PER_FAILING_ENDPOINT } else { MAX_PER_ENDPOINT };
        let own = share.saturating_sub(busy.0.of(&endpoint.id));
        own.min(MAX_PER_TENANT.saturating_sub(busy.1.of(&endpoint.agent_id)))
    }

    fn take(&self, endpoint: &EndpointId, agent: &AgentId) {
        let mut busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        busy.0.take(endpoint);
        busy.1.take(agent);
    }

    fn give_back(&self, endpoint: &EndpointId, agent: &AgentId) {
        let mut busy = self.0.lock().unwrap_or_else(|p| p.into_inner());
        busy.0.give_back(endpoint);
        busy.1.give_back(agent);
    }
}

/// The pass's endpoints tenant by tenant in turn (each tenant's in the order given, tenants in
/// the order their first endpoint came): a tenant with many endpoints due takes one turn in
/// each round, not the whole pass.
fn tenant_by_tenant(due: Vec<DueEndpoint>) -> Vec<DueEndpoint> {
    let mut tenants: Vec<(AgentId, std::collections::VecDeque<DueEndpoint>)> = Vec::new();
    for endpoint in due {
        match tenants.iter_mut().find(|(agent, _)| *agent == endpoint.agent_id) {
            Some((_, queue)) => queue.push_back(endpoint),
            None => tenants.push((endpoint.agent_id.clone(), [endpoint].into())),
        }
    }
    let mut order = Vec::new();
    while !tenants.is_empty() {
        tenants.retain_mut(|(_, queue)| {
            order.extend(queue.pop_front());
            !queue.is_empty()
        });
    }
    order
}

/// One pass: each endpoint with deliveries due gets up to its room, while slots last. Returns
/// how many attempts started.
async fn pass(state: &Arc<AppState>, slots: &Arc<Semaphore>, busy: &Arc<Busy>, in_hand: &mut JoinSet<()>) -> Result<usize, String> {
    let mut started = 0;
    let due = state.deliveries.due_endpoints(ENDPOINTS_PER_PASS).await.map_err(|e| e.to_string())?;
    for endpoint in tenant_by_tenant(due) {
        let room = busy.room(&endpoint).min(slots.available_permits());
        if room == 0 {
            continue;
        }
        let claimed = state.deliveries.claim_for(&endpoint.id, room as u32).await.map_err(|e| e.to_string())?;
        for due in claimed.deliveries {
            let permit = slots.clone().try_acquire_owned().expect("claimed no more than the free slots");
            let agent = endpoint.agent_id.clone();
            busy.take(&due.endpoint.id, &agent);
            let (state, busy) = (state.clone(), busy.clone());
            started += 1;
            in_hand.spawn(async move {
                attempt(&state, &due, claimed.until).await;
                busy.give_back(&due.endpoint.id, &agent);
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
    match state.deliveries.deliver(due, &(state.event_body)(&due.event), until).await {
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

/// Deletes events older than their 30 days, and rules' runs with them, hourly.
pub async fn expire_events(state: Arc<AppState>) {
    loop {
        match state.deliveries.expire_events(RETENTION_BATCH).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, days = EVENT_RETENTION.num_days(), "expired events deleted"),
            Err(e) => tracing::warn!(error = %e, "expired events could not be deleted; trying again later"),
        }
        // Rules' runs are kept as long as the events they ran on.
        match state.rules.expire_runs(RETENTION_BATCH).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, days = RUN_RETENTION.num_days(), "expired rule runs deleted"),
            Err(e) => tracing::warn!(error = %e, "expired rule runs could not be deleted; trying again later"),
        }
        tokio::time::sleep(RETENTION_EVERY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/events.md` states these bounds; a changed constant fails here until the doc says it.
    #[test]
    fn events_md_states_the_bounds_the_worker_holds() {
        let doc = include_str!("../../../../docs/events.md").split_whitespace().collect::<Vec<_>>().join(" ");
        for sentence in [
            format!("Each pass looks at up to {ENDPOINTS_PER_PASS} endpoints with deliveries due"),
            format!("At most {MAX_IN_FLIGHT} attempts in flight per process, {MAX_PER_TENANT} per tenant"),
            format!("and {MAX_PER_ENDPOINT} per endpoint."),
            format!("gets {} attempt at a time, a probe.", if MAX_PER_FAILING_ENDPOINT == 1 { "one" } else { "several" }),
        ] {
            assert!(doc.contains(&sentence), "docs/events.md should say {sentence:?}");
        }
    }

    fn due(endpoint: &str, agent: &str, failing: bool) -> DueEndpoint {
        DueEndpoint { id: EndpointId::new(endpoint), agent_id: AgentId::new(agent), failing }
    }

    #[test]
    fn an_endpoint_holds_at_most_its_share_of_slots() {
        let busy = Busy::default();
        let one = due("we_1", "agt_a", false);
        for _ in 0..MAX_PER_ENDPOINT {
            busy.take(&one.id, &one.agent_id);
        }
        assert_eq!(busy.room(&one), 0, "full");
        assert_eq!(busy.room(&due("we_2", "agt_a", false)), MAX_PER_ENDPOINT, "other endpoints are not held up");
        busy.give_back(&one.id, &one.agent_id);
        assert_eq!(busy.room(&one), 1);
    }

    #[test]
    fn a_failing_endpoint_gets_one_probe_at_a_time() {
        let busy = Busy::default();
        let failing = due("we_1", "agt_a", true);
        assert_eq!(busy.room(&failing), 1);
        busy.take(&failing.id, &failing.agent_id);
        assert_eq!(busy.room(&failing), 0);
    }

    #[test]
    fn a_tenant_holds_at_most_its_share_of_the_process() {
        let busy = Busy::default();
        for n in 0..MAX_PER_TENANT {
            busy.take(&EndpointId::new(format!("we_{}", n % 4)), &AgentId::new("agt_a"));
        }
        assert_eq!(busy.room(&due("we_9", "agt_a", false)), 0, "a fresh endpoint of a tenant at its share");
        assert_eq!(busy.room(&due("we_b", "agt_b", false)), MAX_PER_ENDPOINT, "another tenant is not held up");
        busy.give_back(&EndpointId::new("we_0"), &AgentId::new("agt_a"));
        assert_eq!(busy.room(&due("we_9", "agt_a", false)), 1);
    }

    #[test]
    fn a_pass_takes_tenants_in_turn() {
        let pass = vec![
            due("a1", "A", false),
            due("a2", "A", false),
            due("a3", "A", false),
            due("b1", "B", false),
            due("c1", "C", false),
            due("b2", "B", false),
        ];
        let order: Vec<String> = tenant_by_tenant(pass).into_iter().map(|d| d.id.as_str().to_string()).collect();
        assert_eq!(order, ["a1", "b1", "c1", "a2", "b2", "a3"]);
    }
}
