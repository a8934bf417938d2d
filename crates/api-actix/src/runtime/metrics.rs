//! Prometheus metrics (`GET /metrics`, OpenMetrics text): requests by route pattern and status,
//! latency histograms, requests in flight, the database pool, the inbound and event backlogs, media
//! downloads by how they ended, and the time spent embedding. One registry per app, so tests never share
//! counters; a scrape reads the pool and the backlogs through a [`Probe`]. docs/operations.md lists every metric.

use std::sync::Arc;
use std::sync::atomic::AtomicI64;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use parley_domain::DomainError;
use parley_domain::ports::{EmbedError, Embedder, PoolStatus};
use parley_domain::services::{AttemptOutcome, AttemptReport, DeliveryOutcome, ProcessSummary};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

/// What a scrape reads beyond its own counters: the database pool and the work waiting.
#[async_trait]
pub trait Probe: Send + Sync {
    /// The database pool's state now.
    fn pool(&self) -> PoolStatus;
    /// The work waiting in the database; bounded by the scrape's own timeout.
    async fn backlogs(&self) -> Result<Backlogs, DomainError>;
}

/// The counts a scrape reports of work waiting in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backlogs {
    /// Inbound deliveries waiting to be processed.
    pub inbound: u64,
    /// Inbound deliveries given up on, waiting for an operator.
    pub inbound_given_up: u64,
    /// Events waiting to be delivered to webhook endpoints.
    pub events: u64,
    /// Events waiting for their agent's rules.
    pub rules: u64,
    /// Scheduled messages not sent yet, due or not.
    pub scheduled: u64,
}

/// The content type of the OpenMetrics text format, which Prometheus scrapes natively.
pub const CONTENT_TYPE_OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// How long a scrape waits for the backlog count before it reports the database down.
const BACKLOG_QUERY_TIMEOUT: Duration = Duration::from_secs(2);

/// The route label of requests that matched no route: unknown paths never become labels.
pub const UNMATCHED_ROUTE: &str = "unmatched";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: String,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: String,
    route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EmbedderLabels {
    embedder: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    outcome: String,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 1 ms to about 16 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 15))
}

/// How a media download ended (the `outcome` label of `media_downloads`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DownloadOutcome {
    /// Every byte the platform sent reached the client.
    Complete,
    /// Ended short by Parley's side: the platform failed mid-stream, or the shutdown deadline
    /// closed the connection. Logged as a warning.
    Cut,
    /// The client went away before the end (outside a shutdown): theirs to retry.
    Abandoned,
}

impl DownloadOutcome {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            DownloadOutcome::Complete => "complete",
            DownloadOutcome::Cut => "cut",
            DownloadOutcome::Abandoned => "abandoned",
        }
    }
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    latency: HistogramFamily<RouteLabels>,
    in_flight: Gauge,
    pool_max: Gauge,
    pool_size: Gauge,
    pool_available: Gauge,
    pool_waiting: Gauge,
    database_up: Gauge,
    inbound_backlog: Gauge,
    inbound_failed: Gauge,
    inbound_deliveries: Family<OutcomeLabels, Counter>,
    event_backlog: Gauge,
    rule_backlog: Gauge,
    scheduled_backlog: Gauge,
    event_deliveries: Family<OutcomeLabels, Counter>,
    event_delivery_latency: Histogram,
    media_downloads: Family<OutcomeLabels, Counter>,
    embed_seconds: HistogramFamily<EmbedderLabels>,
    embed_texts: Family<EmbedderLabels, Counter>,
    embed_errors: Family<EmbedderLabels, Counter>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("parley");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register("http_requests", "HTTP requests answered, by method, route pattern and status", requests.clone());
        let latency: HistogramFamily<RouteLabels> = Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "http_request_duration",
            "Time from receiving a request to its response, by method and route pattern",
            Unit::Seconds,
            latency.clone(),
        );
        let in_flight = Gauge::default();
        registry.register("http_requests_in_flight", "Requests being handled now", in_flight.clone());
        let gauge = |registry: &mut Registry, name: &str, help: &str| {
            let g = Gauge::<i64, AtomicI64>::default();
            registry.register(name, help, g.clone());
            g
        };
        let pool_max = gauge(&mut registry, "db_pool_max_connections", "The most connections the database pool opens");
        let pool_size = gauge(&mut registry, "db_pool_connections", "Database connections open now, in use or idle");
        let pool_available = gauge(&mut registry, "db_pool_available_connections", "Idle database connections ready for a request");
        let pool_waiting = gauge(&mut registry, "db_pool_waiting_requests", "Requests waiting for a database connection");
        let database_up = gauge(&mut registry, "database_up", "1 when the database answered the last scrape's backlog query, else 0");
        let inbound_backlog = gauge(
            &mut registry,
            "inbound_backlog",
            "Inbound deliveries (platform webhooks, mail) stored and not processed yet (due, waiting for a retry, or stored while processing is off)",
        );
        let inbound_failed = gauge(
            &mut registry,
            "inbound_failed",
            "Inbound deliveries given up on (unreadable, or failed too often): see `parley inbound failed`",
        );
        let inbound_deliveries = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "inbound_deliveries",
            "Inbound deliveries this process handled, by outcome: processed, retrying (failed, tried again later), or given_up",
            inbound_deliveries.clone(),
        );
        // The names these had before "webhook" came to mean only Parley's own event webhooks,
        // kept (the same series) so that existing dashboards and alerts go on working.
        registry.register("webhook_backlog", "Deprecated: the same as parley_inbound_backlog", inbound_backlog.clone());
        registry.register("webhook_failed", "Deprecated: the same as parley_inbound_failed", inbound_failed.clone());
        registry.register("webhook_deliveries", "Deprecated: the same as parley_inbound_deliveries", inbound_deliveries.clone());
        let event_backlog = gauge(
            &mut registry,
            "event_backlog",
            "Event deliveries to webhook endpoints waiting for a try (due, retrying, or in flight), across every process",
        );
        let rule_backlog =
            gauge(&mut registry, "rule_backlog", "Events waiting for their agent's rules to run (queued or in hand), across every process");
        let scheduled_backlog =
            gauge(&mut registry, "scheduled_backlog", "Scheduled messages not sent yet, due or not, across every process");
        let event_deliveries = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "event_deliveries",
            "Event delivery attempts this process made, by outcome: delivered, retrying, given_up, or superseded (its claim ran out first)",
            event_deliveries.clone(),
        );
        let event_delivery_latency = latency_histogram();
        registry.register_with_unit(
            "event_delivery_latency",
            "From an event's commit to its endpoint's 2xx answer, for deliveries that succeeded",
            Unit::Seconds,
            event_delivery_latency.clone(),
        );
        let media_downloads = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "media_downloads",
            "Media downloads streamed to clients, by how they ended: complete, cut (the platform failed mid-stream, or the shutdown deadline closed it), or abandoned (the client went away)",
            media_downloads.clone(),
        );
        let embed_seconds: HistogramFamily<EmbedderLabels> = Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "embedder_duration",
            "Time spent in the embedder per call (searches, imports, reindexing)",
            Unit::Seconds,
            embed_seconds.clone(),
        );
        let embed_texts = Family::<EmbedderLabels, Counter>::default();
        registry.register("embedder_texts", "Texts embedded", embed_texts.clone());
        let embed_errors = Family::<EmbedderLabels, Counter>::default();
        registry.register("embedder_errors", "Embedder calls that failed", embed_errors.clone());
        Self {
            registry,
            requests,
            latency,
            in_flight,
            pool_max,
            pool_size,
            pool_available,
            pool_waiting,
            database_up,
            inbound_backlog,
            inbound_failed,
            inbound_deliveries,
            event_backlog,
            rule_backlog,
            scheduled_backlog,
            event_deliveries,
            event_delivery_latency,
            media_downloads,
            embed_seconds,
            embed_texts,
            embed_errors,
        }
    }

    /// Counts one answered request. `route` is the matched pattern (`/v1/tags/{id}`), never
    /// the raw path, so label values stay few.
    pub fn observe_request(&self, method: &str, route: Option<&str>, status: u16, elapsed: Duration) {
        let route = route.unwrap_or(UNMATCHED_ROUTE).to_string();
        let method = method.to_string();
        self.latency.get_or_create(&RouteLabels { method: method.clone(), route: route.clone() }).observe(elapsed.as_secs_f64());
        self.requests.get_or_create(&RequestLabels { method, route, status }).inc();
    }

    /// Counts one inbound delivery processed as it arrived.
    pub fn observe_inbound_delivery(&self, outcome: DeliveryOutcome) {
        let mut summary = ProcessSummary::default();
        summary.add(outcome);
        self.observe_inbound_pass(&summary);
    }

    /// Counts what one inbound processing pass of this process did.
    pub fn observe_inbound_pass(&self, summary: &ProcessSummary) {
        for (outcome, n) in [("processed", summary.processed), ("retrying", summary.failed), ("given_up", summary.gave_up)] {
            if n > 0 {
                self.inbound_deliveries.get_or_create(&OutcomeLabels { outcome: outcome.to_string() }).inc_by(n as u64);
            }
        }
    }

    /// Counts one event delivery attempt; a success also observes its commit-to-receipt time.
    pub fn observe_event_attempt(&self, report: &AttemptReport, since_commit: Option<Duration>) {
        self.event_deliveries.get_or_create(&OutcomeLabels { outcome: report.outcome.as_str().to_string() }).inc();
        if let (AttemptOutcome::Delivered, Some(latency)) = (report.outcome, since_commit) {
            self.event_delivery_latency.observe(latency.as_secs_f64());
        }
    }

    /// Counts one media download as it ended.
    pub fn observe_media_download(&self, outcome: DownloadOutcome) {
        self.media_downloads.get_or_create(&OutcomeLabels { outcome: outcome.as_str().to_string() }).inc();
    }

    /// Media downloads that ended with `outcome` (`complete`, `cut`, `abandoned`).
    pub fn media_downloads(&self, outcome: &str) -> u64 {
        self.media_downloads.get_or_create(&OutcomeLabels { outcome: outcome.to_string() }).get()
    }

    /// Marks a request in flight until the guard drops.
    pub fn request_started(self: &Arc<Self>) -> InFlight {
        self.in_flight.inc();
        InFlight(self.clone())
    }

    /// Requests being handled now.
    pub fn in_flight(&self) -> i64 {
        self.in_flight.get()
    }

    /// Reads the pool and the backlogs, then encodes every metric.
    pub async fn render(&self, probe: &dyn Probe) -> String {
        let pool = probe.pool();
        self.pool_max.set(pool.max_size as i64);
        self.pool_size.set(pool.size as i64);
        self.pool_available.set(pool.available as i64);
        self.pool_waiting.set(pool.waiting as i64);
        match tokio::time::timeout(BACKLOG_QUERY_TIMEOUT, probe.backlogs()).await {
            Ok(Ok(Backlogs { inbound: backlog, inbound_given_up: failed, events, rules, scheduled })) => {
                self.rule_backlog.set(i64::try_from(rules).unwrap_or(i64::MAX));
                self.scheduled_backlog.set(i64::try_from(scheduled).unwrap_or(i64::MAX));
                self.inbound_backlog.set(i64::try_from(backlog).unwrap_or(i64::MAX));
                self.inbound_failed.set(i64::try_from(failed).unwrap_or(i64::MAX));
                self.event_backlog.set(i64::try_from(events).unwrap_or(i64::MAX));
                self.database_up.set(1);
            }
            // The counts keep their last known values; `database_up` tells they are stale.
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "metrics: the backlogs could not be counted");
                self.database_up.set(0);
            }
            Err(_) => {
                self.database_up.set(0);
            }
        }
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry).expect("writing to a String cannot fail");
        out
    }
}

/// A request in flight; dropping it (response sent, or the request abandoned) ends it.
pub struct InFlight(Arc<Metrics>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}

/// The [`Embedder`] port, timed: every call is observed in `parley_embedder_duration_seconds`.
pub struct TimedEmbedder {
    inner: Arc<dyn Embedder>,
    metrics: Arc<Metrics>,
    labels: EmbedderLabels,
}

impl TimedEmbedder {
    pub fn new(inner: Arc<dyn Embedder>, metrics: Arc<Metrics>) -> Self {
        let labels = EmbedderLabels { embedder: inner.identity() };
        Self { inner, metrics, labels }
    }
}

#[async_trait]
impl Embedder for TimedEmbedder {
    fn identity(&self) -> String {
        self.inner.identity()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let started = Instant::now();
        let result = self.inner.embed(texts).await;
        self.metrics.embed_seconds.get_or_create(&self.labels).observe(started.elapsed().as_secs_f64());
        match &result {
            Ok(_) => {
                self.metrics.embed_texts.get_or_create(&self.labels).inc_by(texts.len() as u64);
            }
            Err(_) => {
                self.metrics.embed_errors.get_or_create(&self.labels).inc();
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_labelled_by_pattern_and_unmatched_paths_share_one_label() {
        let m = Metrics::new();
        m.observe_request("GET", Some("/v1/tags/{id}"), 200, Duration::from_millis(3));
        m.observe_request("GET", None, 404, Duration::from_millis(1));
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &m.registry).unwrap();
        assert!(out.contains(r#"parley_http_requests_total{method="GET",route="/v1/tags/{id}",status="200"} 1"#), "{out}");
        assert!(out.contains(r#"route="unmatched",status="404""#), "{out}");
        assert!(out.contains("parley_http_request_duration_seconds_bucket"), "{out}");
    }
}
