//! Taking a platform's webhook delivery in, once it is proven: stored and processed before the
//! platform hears back, or, on an instance that only ingests, stored for the processing
//! instances. What the webhook routes reach, instead of the whole app.

use std::sync::{Arc, OnceLock};

use parley_domain::DomainError;
use parley_domain::model::ChannelType;
use parley_domain::services::InboundService;
use tokio::runtime::Handle;
use tokio::sync::Notify;

use crate::runtime::metrics::Metrics;

pub struct Intake {
    pub(crate) inbound: Arc<InboundService>,
    /// Wakes this process's inbound processor when a delivery was stored for it.
    pub(crate) wakeup: Arc<Notify>,
    /// The background workers' runtime, once they run.
    pub(crate) workers_runtime: Arc<OnceLock<Handle>>,
    /// This instance stores deliveries and leaves their processing to others.
    pub(crate) ingest_only: bool,
    pub(crate) metrics: Arc<Metrics>,
}

impl Intake {
    /// Stores `text`, a delivery of `platform`'s webhook, and processes it (or leaves it to the
    /// processing instances). An error only when it could not be stored.
    pub async fn take(&self, platform: ChannelType, text: String) -> Result<(), DomainError> {
        if self.ingest_only {
            let id = self.inbound.receive(platform, text).await?;
            self.wakeup.notify_one();
            tracing::debug!(event = %id, "webhook stored");
            return Ok(());
        }
        // On the workers' runtime, as the retries: a write holds SQLite's single writer across
        // its statements, and on actix's two busy request threads its turn waited for every
        // other request's work between statements (measured: ingestion ~310 messages/s).
        let (id, outcome) = match self.workers_runtime.get() {
            Some(runtime) => {
                let inbound = self.inbound.clone();
                runtime
                    .spawn(async move { inbound.receive_and_process(platform, text).await })
                    .await
                    .map_err(|e| DomainError::Internal(format!("webhook processing task failed: {e}").into()))??
            }
            None => self.inbound.receive_and_process(platform, text).await?,
        };
        self.metrics.observe_inbound_delivery(outcome);
        tracing::debug!(event = %id, ?outcome, "webhook processed and stored");
        Ok(())
    }
}
