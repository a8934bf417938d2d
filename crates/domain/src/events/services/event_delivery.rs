//! Delivering events to webhook endpoints: claim what is due, sign it, send it, record the
//! outcome and when to try again (`docs/events.md`, "Delivery"). The runtime's worker decides
//! how many go at once; each delivery here is one attempt.

use std::sync::Arc;

use chrono::TimeDelta;

use crate::model::delivery_schedule::{breaker_pause, failing_too_long, next_try};
use crate::model::*;
use crate::ports::{Clock, EventRepository, IdSource, OutgoingDelivery, ReceiverAnswer, StoreResult, WebhookSender};

/// How long a claim holds a delivery: well past the send's 10-second limit, so a live worker
/// always records before its lease ends, and a dead one's deliveries are due again soon.
pub const DELIVERY_LEASE: TimeDelta = TimeDelta::seconds(60);
/// How long events are kept (the events list, redelivery).
pub const EVENT_RETENTION: TimeDelta = TimeDelta::days(30);

/// What became of one attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// The endpoint answered 2xx: no more tries.
    Delivered,
    /// Failed; tried again later.
    Retrying,
    /// Failed, and its 3 days are over: no more tries.
    GivenUp,
    /// The lease ran out before the outcome was recorded, and another worker holds the
    /// delivery now (it will be tried again there: at least once, never lost).
    Superseded,
}

impl AttemptOutcome {
    /// Its name in logs and metrics: `delivered`, `retrying`, `given_up` or `superseded`.
    pub fn as_str(self) -> &'static str {
        match self {
            AttemptOutcome::Delivered => "delivered",
            AttemptOutcome::Retrying => "retrying",
            AttemptOutcome::GivenUp => "given_up",
            AttemptOutcome::Superseded => "superseded",
        }
    }
}

/// One attempt, for logs and metrics.
#[derive(Debug, Clone)]
pub struct AttemptReport {
    /// The attempt as recorded: its number, the answer or error, its duration, the next try.
    pub attempt: DeliveryAttempt,
    /// What became of it.
    pub outcome: AttemptOutcome,
    /// The endpoint was disabled by this failure (3 days of nothing but failures).
    pub disabled_endpoint: bool,
}

/// The delivery worker's steps: claim due deliveries, make one attempt each, and expire old
/// events. Storage errors come back as they are ([`StoreResult`]).
pub struct EventDeliveryService {
    events: Arc<dyn EventRepository>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// A batch of claimed deliveries, and the lease they are held until.
pub struct Claimed {
    /// The deliveries claimed, possibly none.
    pub deliveries: Vec<DueDelivery>,
    /// When the claim ends: an attempt recorded after it is [`AttemptOutcome::Superseded`].
    pub until: Timestamp,
}

impl EventDeliveryService {
    /// A service over `events`, sending through `sender`; `ids` supplies the random part of
    /// retry delays.
    pub fn new(events: Arc<dyn EventRepository>, sender: Arc<dyn WebhookSender>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self { events, sender, clock, ids }
    }

    /// The same service sending through `sender`.
    pub fn with_sender(&self, sender: Arc<dyn WebhookSender>) -> Self {
        Self { events: self.events.clone(), sender, clock: self.clock.clone(), ids: self.ids.clone() }
    }

    /// Claims up to `limit` of one endpoint's due deliveries for [`DELIVERY_LEASE`].
    pub async fn claim_for(&self, endpoint: &EndpointId, limit: u32) -> StoreResult<Claimed> {
        let now = self.clock.now();
        let until = now + DELIVERY_LEASE;
        Ok(Claimed { deliveries: self.events.claim_due_for(endpoint, now, until, limit).await?, until })
    }

    /// Up to `limit` endpoints with deliveries due now and their breaker closed, least
    /// recently served first.
    pub async fn due_endpoints(&self, limit: u32) -> StoreResult<Vec<DueEndpoint>> {
        self.events.due_endpoints(self.clock.now(), limit).await
    }

    /// One attempt of a claimed delivery: `body`, the event as the API shows it (rendered by
    /// the caller, who owns the representation), signed with every active key, sent, and
    /// recorded.
    pub async fn deliver(&self, due: &DueDelivery, body: &str, until: Timestamp) -> StoreResult<AttemptReport> {
        let started = self.clock.now();
        let id = due.event.id.as_str();
        let timestamp = started.timestamp();
        let signature = signature_header(due.endpoint.secrets.signing(started), id, timestamp, body);
        let answer = self.sender.send(&OutgoingDelivery { url: &due.endpoint.url, id, timestamp, signature, body }).await;
        let finished = self.clock.now();
        let (response_status, error) = match answer {
            ReceiverAnswer::Status(status) if (200..300).contains(&status) => (Some(status), None),
            ReceiverAnswer::Status(status) => (Some(status), Some(format!("the endpoint answered {status}"))),
            ReceiverAnswer::NoAnswer(why) => (None, Some(attempt_error(&why))),
        };
        let number = due.attempts + 1;
        let next_attempt_at = match error {
            None => None,
            Some(_) => next_try(due.event.created_at, number, finished, self.ids.unit()),
        };
        // As the claim read the endpoint: most attempts change nothing about it, and then
        // nothing is written.
        let failing_since = due.endpoint.failing_since;
        let after = match (&error, failing_since) {
            (None, None) if due.endpoint.paused_until.is_none() => EndpointAfterAttempt::Unchanged,
            (None, _) => EndpointAfterAttempt::Healthy,
            (Some(_), since) if failing_too_long(Some(since.unwrap_or(finished)), finished) => EndpointAfterAttempt::Disable,
            (Some(_), None) => EndpointAfterAttempt::Failing,
            // Failing again: the breaker opens, so a receiver that hangs is not sent the rest
            // of its backlog one time-out after another.
            (Some(_), Some(since)) => EndpointAfterAttempt::Pause(finished + breaker_pause(since, finished)),
        };
        let attempt = DeliveryAttempt {
            event_id: due.event.id.clone(),
            endpoint_id: due.endpoint.id.clone(),
            attempt: number,
            attempted_at: started,
            response_status,
            duration_ms: (finished - started).num_milliseconds().max(0) as u64,
            error,
            next_attempt_at,
        };
        let outcome = if !self.events.record_attempt(&attempt, until, after).await? {
            AttemptOutcome::Superseded
        } else if attempt.delivered() {
            AttemptOutcome::Delivered
        } else if next_attempt_at.is_some() {
            AttemptOutcome::Retrying
        } else {
            AttemptOutcome::GivenUp
        };
        let disabled_endpoint = after == EndpointAfterAttempt::Disable && outcome != AttemptOutcome::Superseded;
        Ok(AttemptReport { attempt, outcome, disabled_endpoint })
    }

    /// Deletes events older than [`EVENT_RETENTION`], a batch at a time; returns how many.
    pub async fn expire_events(&self, batch: u32) -> StoreResult<u64> {
        let before = self.clock.now() - EVENT_RETENTION;
        let mut deleted = 0;
        loop {
            let n = self.events.delete_before(before, batch).await?;
            deleted += n;
            if n < u64::from(batch) {
                return Ok(deleted);
            }
        }
    }

    /// Deliveries waiting for a try, for metrics.
    pub async fn backlog(&self) -> StoreResult<u64> {
        self.events.backlog().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockEventRepository, MockIdSource, MockWebhookSender};
    use chrono::TimeZone;

    fn t0() -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap()
    }

    fn due(attempts: u32, failing_since: Option<Timestamp>) -> DueDelivery {
        DueDelivery {
            event: Event {
                id: EventId::new("evt_1"),
                agent_id: AgentId::new("agt_1"),
                event_type: EventType::ContactCreated,
                created_at: t0(),
                object: EventObject::Deleted { id: "con_1".into() },
                origin: EventOrigin::Outside,
            },
            endpoint: WebhookEndpoint {
                id: EndpointId::new("we_1"),
                agent_id: AgentId::new("agt_1"),
                url: EndpointUrl::new("https://93.184.216.34/h", false).unwrap(),
                events: EventSelection::All,
                description: None,
                secrets: EndpointSecrets { current: SigningKey::new(vec![1; 32]).unwrap(), previous: None },
                disabled: None,
                failing_since,
                paused_until: None,
                created_at: t0(),
                updated_at: t0(),
            },
            attempts,
        }
    }

    fn service(now: Timestamp, answer: ReceiverAnswer, events: MockEventRepository) -> EventDeliveryService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(move || now);
        let mut ids = MockIdSource::new();
        ids.expect_unit().returning(|| 0.5);
        let mut sender = MockWebhookSender::new();
        sender.expect_send().returning(move |d| {
            // What a receiver verifies: the id, this attempt's time and the body, signed.
            let key = SigningKey::new(vec![1; 32]).unwrap();
            assert_eq!(d.signature, key.sign(d.id, d.timestamp, d.body));
            answer.clone()
        });
        EventDeliveryService::new(Arc::new(events), Arc::new(sender), Arc::new(clock), Arc::new(ids))
    }

    #[tokio::test]
    async fn a_2xx_answer_is_delivered_and_the_endpoint_healthy() {
        let mut events = MockEventRepository::new();
        events
            .expect_record_attempt()
            .withf(|a, _, after| a.attempt == 1 && a.next_attempt_at.is_none() && *after == EndpointAfterAttempt::Unchanged)
            .returning(|_, _, _| Ok(true));
        let report = service(t0(), ReceiverAnswer::Status(204), events).deliver(&due(0, None), "{}", t0()).await.unwrap();
        assert_eq!(report.outcome, AttemptOutcome::Delivered);
        assert_eq!(report.attempt.response_status, Some(204));
    }

    #[tokio::test]
    async fn a_success_after_failures_makes_the_endpoint_healthy() {
        let mut events = MockEventRepository::new();
        events.expect_record_attempt().withf(|_, _, after| *after == EndpointAfterAttempt::Healthy).times(1).returning(|_, _, _| Ok(true));
        service(t0(), ReceiverAnswer::Status(200), events).deliver(&due(1, Some(t0())), "{}", t0()).await.unwrap();
    }

    #[tokio::test]
    async fn a_failure_of_a_failing_endpoint_opens_its_breaker_for_as_long_as_it_has_failed() {
        let now = t0() + TimeDelta::seconds(90);
        let mut events = MockEventRepository::new();
        events
            .expect_record_attempt()
            .withf(move |_, _, after| *after == EndpointAfterAttempt::Pause(now + TimeDelta::seconds(90)))
            .times(1)
            .returning(|_, _, _| Ok(true));
        let report = service(now, ReceiverAnswer::NoAnswer("no answer within 10000 ms".into()), events)
            .deliver(&due(1, Some(t0())), "{}", now)
            .await
            .unwrap();
        assert_eq!(report.outcome, AttemptOutcome::Retrying, "the delivery itself retries as before");
    }

    #[tokio::test]
    async fn a_success_after_a_pause_closes_the_breaker() {
        let mut events = MockEventRepository::new();
        events.expect_record_attempt().withf(|_, _, after| *after == EndpointAfterAttempt::Healthy).times(1).returning(|_, _, _| Ok(true));
        let mut paused = due(1, None);
        paused.endpoint.paused_until = Some(t0());
        service(t0(), ReceiverAnswer::Status(200), events).deliver(&paused, "{}", t0()).await.unwrap();
    }

    #[tokio::test]
    async fn a_failure_is_retried_about_a_minute_later_then_with_doubling_waits() {
        let mut events = MockEventRepository::new();
        events.expect_record_attempt().returning(|_, _, _| Ok(true));
        let s = service(t0(), ReceiverAnswer::Status(500), events);
        let first = s.deliver(&due(0, None), "{}", t0()).await.unwrap();
        assert_eq!(first.outcome, AttemptOutcome::Retrying);
        assert_eq!(first.attempt.next_attempt_at, Some(t0() + TimeDelta::minutes(1)), "jitter 0.5 is the middle");
        assert_eq!(first.attempt.error.as_deref(), Some("the endpoint answered 500"));
        let third = s.deliver(&due(2, Some(t0())), "{}", t0()).await.unwrap();
        assert_eq!(third.attempt.next_attempt_at, Some(t0() + TimeDelta::minutes(4)));
    }

    #[tokio::test]
    async fn a_redirect_is_a_failure_not_followed() {
        let mut events = MockEventRepository::new();
        events.expect_record_attempt().withf(|_, _, after| *after == EndpointAfterAttempt::Failing).returning(|_, _, _| Ok(true));
        let report = service(t0(), ReceiverAnswer::Status(301), events).deliver(&due(0, None), "{}", t0()).await.unwrap();
        assert_eq!(report.outcome, AttemptOutcome::Retrying);
    }

    #[tokio::test]
    async fn after_three_days_the_delivery_is_given_up_and_a_failing_endpoint_disabled() {
        let late = t0() + TimeDelta::days(3) - TimeDelta::seconds(30);
        let mut events = MockEventRepository::new();
        events
            .expect_record_attempt()
            .withf(|a, _, after| a.next_attempt_at.is_none() && *after == EndpointAfterAttempt::Disable)
            .returning(|_, _, _| Ok(true));
        let s = service(late, ReceiverAnswer::NoAnswer("timed out after 10 s".into()), events);
        let report = s.deliver(&due(20, Some(t0() - TimeDelta::hours(1))), "{}", late).await.unwrap();
        assert_eq!(report.outcome, AttemptOutcome::GivenUp);
        assert!(report.disabled_endpoint);
        assert_eq!(report.attempt.response_status, None);
    }

    #[tokio::test]
    async fn a_recording_that_lost_its_claim_is_superseded() {
        let mut events = MockEventRepository::new();
        events.expect_record_attempt().returning(|_, _, _| Ok(false));
        let report = service(t0(), ReceiverAnswer::Status(200), events).deliver(&due(0, None), "{}", t0()).await.unwrap();
        assert_eq!(report.outcome, AttemptOutcome::Superseded);
    }

    #[tokio::test]
    async fn retention_deletes_in_batches_until_a_short_one() {
        let mut events = MockEventRepository::new();
        let mut calls = 0;
        events.expect_delete_before().withf(|before, _| *before == t0() - EVENT_RETENTION).returning(move |_, _| {
            calls += 1;
            Ok(if calls < 3 { 10 } else { 4 })
        });
        let s = service(t0(), ReceiverAnswer::Status(200), events);
        assert_eq!(s.expire_events(10).await.unwrap(), 24);
    }
}
