use std::sync::Arc;

use chrono::TimeDelta;

use super::conversations::Conversations;
use crate::model::*;
use crate::ports::*;
use crate::{DomainError, FieldError};

/// Webhook deliveries: stored as received (so a crash loses nothing), then processed; failures
/// are retried with backoff and stay visible until they succeed.
pub struct WebhookService {
    events: Arc<dyn WebhookEventRepository>,
    lines: Arc<dyn LineRepository>,
    executions: Arc<dyn ExecutionRepository>,
    conversations: Conversations,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

/// What one processing pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProcessSummary {
    pub processed: usize,
    pub failed: usize,
}

/// Compare-and-set attempts before an execution update gives up for this pass.
const CAS_ATTEMPTS: usize = 3;

/// 2^attempts seconds, at most an hour.
fn backoff(attempts: u32) -> TimeDelta {
    TimeDelta::seconds(1i64 << attempts.min(12)).min(TimeDelta::hours(1))
}

impl WebhookService {
    pub fn new(repos: &Repositories, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self {
            events: repos.webhooks.clone(),
            lines: repos.lines.clone(),
            executions: repos.executions.clone(),
            conversations: Conversations::new(repos.contacts.clone(), repos.activities.clone(), clock.clone(), ids.clone()),
            clock,
            ids,
        }
    }

    /// Stores a delivery (already authenticated by its signature). Returns the event id.
    pub async fn receive(&self, body: String) -> Result<String, DomainError> {
        // JSON has no raw NUL (it is escaped as \u0000), and PostgreSQL's text cannot hold one:
        // refused here, identically on both backends, rather than failing to store.
        if body.contains('\0') {
            return Err(FieldError::new("body", "must be JSON text; it holds a NUL byte").into());
        }
        let now = self.clock.now();
        let event = WebhookEvent {
            id: self.ids.new_id(IdKind::Webhook),
            body,
            received_at: now,
            attempts: 0,
            last_error: None,
            next_attempt_at: Some(now),
            processed_at: None,
        };
        self.events.insert(&event).await?;
        Ok(event.id)
    }

    /// Processes stored deliveries that are due, oldest first.
    pub async fn process_due(&self, limit: u32) -> Result<ProcessSummary, DomainError> {
        self.process_due_until(limit, &|| false).await
    }

    /// Like [`process_due`](Self::process_due), but asks `stop` before each delivery and
    /// returns early when it says so: a shutdown finishes the delivery in hand, never cuts one.
    pub async fn process_due_until(&self, limit: u32, stop: &(dyn Fn() -> bool + Sync)) -> Result<ProcessSummary, DomainError> {
        let mut summary = ProcessSummary::default();
        for event in self.events.due(self.clock.now(), limit).await? {
            if stop() {
                break;
            }
            match self.process(&event).await {
                Ok(()) => {
                    self.events.mark_processed(&event.id, self.clock.now()).await?;
                    summary.processed += 1;
                }
                Err(e) => {
                    let retry_at = self.clock.now() + backoff(event.attempts + 1);
                    tracing::warn!(event = %event.id, attempts = event.attempts + 1, error = %e, "webhook processing failed; will retry");
                    self.events.mark_failed(&event.id, &e.to_string(), retry_at).await?;
                    summary.failed += 1;
                }
            }
        }
        Ok(summary)
    }

    /// How many deliveries are stored and not processed yet.
    pub async fn backlog(&self) -> Result<u64, DomainError> {
        Ok(self.events.backlog().await?)
    }

    /// Deliveries that failed at least once and are not processed yet.
    pub async fn failed(&self, limit: u32) -> Result<Vec<WebhookEvent>, DomainError> {
        Ok(self.events.failed(limit).await?)
    }

    async fn process(&self, event: &WebhookEvent) -> Result<(), DomainError> {
        // A body that is not a webhook payload will never parse: record it as failed (visible).
        let news = parse_webhook(&event.body).map_err(|e| DomainError::Internal(e.to_string()))?;
        for line_news in news {
            let Some(line) = self.lines.find_by_phone_number_id(&line_news.phone_number_id).await? else {
                tracing::info!(phone_number_id = %line_news.phone_number_id, "webhook for an unknown line ignored");
                continue;
            };
            for update in &line_news.statuses {
                self.apply_status(&line.agent_id, update).await?;
            }
            for message in &line_news.inbound {
                let Ok(channel) = Channel::new(ChannelType::Whatsapp, &message.from) else {
                    tracing::info!("inbound message from an unusable WhatsApp id ignored");
                    continue;
                };
                self.conversations.inbound(&line.agent_id, &channel, message.profile_name.as_deref(), message.at).await?;
            }
        }
        Ok(())
    }

    /// Moves an execution forward; duplicates, late reports and messages sent outside a
    /// campaign change nothing.
    async fn apply_status(&self, agent: &AgentId, update: &StatusUpdate) -> Result<(), DomainError> {
        for _ in 0..CAS_ATTEMPTS {
            let Some(mut execution) = self.executions.find_by_message(agent, &update.message_id).await? else { return Ok(()) };
            let expected = execution.status;
            if !execution.apply(update, self.clock.now()) {
                return Ok(());
            }
            if self.executions.update(&execution, expected).await? {
                return Ok(());
            }
        }
        Err(DomainError::Unavailable(format!("execution of {} kept changing under concurrent updates", update.message_id)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockClock, MockExecutionRepository, MockIdSource, MockLineRepository, MockWebhookEventRepository};

    fn repos(events: MockWebhookEventRepository, lines: MockLineRepository, executions: MockExecutionRepository) -> Repositories {
        use crate::ports::*;
        Repositories {
            agents: Arc::new(MockAgentRepository::new()),
            keys: Arc::new(MockApiKeyRepository::new()),
            tags: Arc::new(MockTagRepository::new()),
            contacts: Arc::new(MockContactRepository::new()),
            activities: Arc::new(MockActivityRepository::new()),
            products: Arc::new(MockProductRepository::new()),
            vectors: Arc::new(MockProductVectorRepository::new()),
            carts: Arc::new(MockCartRepository::new()),
            lines: Arc::new(lines),
            templates: Arc::new(MockTemplateRepository::new()),
            executions: Arc::new(executions),
            idempotency: Arc::new(MockIdempotencyRepository::new()),
            webhooks: Arc::new(events),
            health: Arc::new(MockStorageHealth::new()),
        }
    }

    fn service(r: Repositories) -> WebhookService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        WebhookService::new(&r, Arc::new(clock), Arc::new(ids))
    }

    fn event(body: &str) -> WebhookEvent {
        WebhookEvent {
            id: "whk_1".into(),
            body: body.into(),
            received_at: chrono::Utc::now(),
            attempts: 2,
            last_error: None,
            next_attempt_at: None,
            processed_at: None,
        }
    }

    #[tokio::test]
    async fn unparseable_events_are_kept_as_failed_with_backoff() {
        let mut events = MockWebhookEventRepository::new();
        events.expect_due().returning(|_, _| Ok(vec![event("garbage")]));
        events
            .expect_mark_failed()
            .withf(|id, err, at| {
                id == "whk_1" && err.contains("not a WhatsApp webhook") && *at > chrono::Utc::now() + TimeDelta::seconds(7)
            })
            .times(1)
            .returning(|_, _, _| Ok(()));
        let summary = service(repos(events, MockLineRepository::new(), MockExecutionRepository::new())).process_due(10).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 0, failed: 1 });
    }

    #[tokio::test]
    async fn unknown_lines_are_ignored_and_the_event_completes() {
        let mut events = MockWebhookEventRepository::new();
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"999"},"statuses":[{"id":"w","status":"read","timestamp":"1"}]}}]}]}"#;
        events.expect_due().returning(move |_, _| Ok(vec![event(body)]));
        events.expect_mark_processed().times(1).returning(|_, _| Ok(()));
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_phone_number_id().returning(|_| Ok(None));
        let mut executions = MockExecutionRepository::new();
        executions.expect_find_by_message().never();
        let summary = service(repos(events, lines, executions)).process_due(10).await.unwrap();
        assert_eq!(summary.processed, 1);
    }

    #[tokio::test]
    async fn a_stop_request_ends_processing_between_deliveries_never_inside_one() {
        let mut events = MockWebhookEventRepository::new();
        let body = r#"{"entry":[{"changes":[{"value":{"metadata":{"phone_number_id":"999"},"statuses":[{"id":"w","status":"read","timestamp":"1"}]}}]}]}"#;
        events.expect_due().returning(move |_, _| Ok((1..=3).map(|n| WebhookEvent { id: format!("whk_{n}"), ..event(body) }).collect()));
        // The first delivery is in hand when the stop arrives: it completes, the others wait.
        events.expect_mark_processed().withf(|id, _| id == "whk_1").times(1).returning(|_, _| Ok(()));
        let mut lines = MockLineRepository::new();
        lines.expect_find_by_phone_number_id().returning(|_| Ok(None));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let service = service(repos(events, lines, MockExecutionRepository::new()));
        // "Go" when asked before the first delivery, "stop" from then on.
        let stop_after_first = || stop.swap(true, std::sync::atomic::Ordering::SeqCst);
        let summary = service.process_due_until(10, &stop_after_first).await.unwrap();
        assert_eq!(summary, ProcessSummary { processed: 1, failed: 0 });
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        assert_eq!(backoff(1), TimeDelta::seconds(2));
        assert_eq!(backoff(3), TimeDelta::seconds(8));
        assert_eq!(backoff(40), TimeDelta::hours(1));
    }
}
