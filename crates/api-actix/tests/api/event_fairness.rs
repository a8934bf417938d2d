//! One tenant cannot take event webhooks away from another: a real `parley serve` delivers
//! tenant B's events promptly while tenant A has its maximum of endpoints whose receivers accept
//! and never answer, and a burst of changes for each (the probe that once starved B).

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use parley_adapters_diesel::testing::TestDb;
use parley_api::runtime::config::ApiConfig;
use parley_api::runtime::state::AppState;
use parley_domain::model::AgentId;
use parley_domain::services::{DEFAULT_MAX_ENDPOINTS, NewContactInput, NewEndpointInput};
use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::common::server::{ParleyServer, free_port};

backend_tests!(a_tenant_with_hanging_receivers_does_not_delay_another_tenants_events);

/// Receivers that accept connections and never answer: each attempt holds its slot for the
/// whole time limit. Returns the base URL; the sockets stay open for the life of the process.
fn hanging_receivers() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().map_while(Result::ok) {
            held.push(stream);
        }
    });
    url
}

/// When each delivery reached B's receiver, with its event's `created_at`.
type Arrivals = Arc<Mutex<Vec<(DateTime<Utc>, DateTime<Utc>)>>>;

async fn healthy_receiver(arrivals: Arrivals) -> MockServer {
    let server = MockServer::start().await;
    let respond = move |request: &Request| {
        let event: Value = serde_json::from_slice(&request.body).unwrap();
        let created: DateTime<Utc> = event["created_at"].as_str().unwrap().parse().unwrap();
        arrivals.lock().unwrap().push((created, Utc::now()));
        ResponseTemplate::new(200)
    };
    Mock::given(method("POST")).respond_with(respond).mount(&server).await;
    server
}

async fn contact(state: &AppState, agent: &AgentId, n: usize) {
    let input = NewContactInput {
        channel_type: Some("whatsapp".into()),
        channel_id: Some(format!("52155{n:06}")),
        profile_name: Some(format!("Shopper {n}")),
        ..Default::default()
    };
    state.contacts.create(agent, input).await.unwrap();
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn a_tenant_with_hanging_receivers_does_not_delay_another_tenants_events(backend: &str) {
    const A_BURST: usize = 20;
    const B_CHANGES: usize = 40;
    let db = TestDb::of(backend).await;
    let config = ApiConfig { webhook_allow_private: true, ..ApiConfig::default() };
    let state = crate::common::system_state_with(db.store.repositories(), config);
    let endpoint = |url: String| NewEndpointInput { url: Some(url), events: Some(vec!["*".into()]), description: None };

    // A: every endpoint it may have, each at a receiver that hangs; one more is refused.
    let a = state.keys.create_agent("Noisy").await.unwrap().id;
    let hanging = hanging_receivers();
    for n in 0..DEFAULT_MAX_ENDPOINTS {
        state.webhook_endpoints.create(&a, endpoint(format!("{hanging}/{n}"))).await.unwrap();
    }
    let refused = state.webhook_endpoints.create(&a, endpoint(format!("{hanging}/more"))).await.unwrap_err();
    assert!(refused.to_string().contains("at most 16 webhook endpoints"), "{refused}");

    // B: one healthy endpoint.
    let b = state.keys.create_agent("Quiet").await.unwrap().id;
    let arrivals: Arrivals = Arc::default();
    let receiver = healthy_receiver(arrivals.clone()).await;
    state.webhook_endpoints.create(&b, endpoint(receiver.uri())).await.unwrap();

    let env = [("PARLEY_WEBHOOK_ALLOW_PRIVATE", "true")];
    let _parley = ParleyServer::start_on(&db.url, free_port(), &env, |l| l.starts_with("Parley is serving"));

    // A's burst first (20 events to each of its 16 endpoints), then B's changes spread over
    // 20 seconds with a second burst of A's in the middle: long enough for A's receivers to
    // hold their slots for their whole 10 seconds, time after time.
    for n in 0..A_BURST {
        contact(&state, &a, n).await;
    }
    for n in 0..B_CHANGES {
        contact(&state, &b, 10_000 + n).await;
        if n == B_CHANGES / 2 {
            for m in 0..A_BURST {
                contact(&state, &a, 20_000 + m).await;
            }
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }

    let started = Instant::now();
    while arrivals.lock().unwrap().len() < B_CHANGES && started.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let arrivals = arrivals.lock().unwrap().clone();
    assert_eq!(arrivals.len(), B_CHANGES, "every one of B's events arrived");
    let mut latencies: Vec<Duration> = arrivals.iter().map(|(created, at)| (*at - *created).to_std().unwrap_or_default()).collect();
    latencies.sort();
    let (median, p99) = (percentile(&latencies, 0.5), percentile(&latencies, 0.99));
    eprintln!("B's event latency on {backend}: median {median:?}, p99 {p99:?}, max {:?}", latencies.last().unwrap());
    assert!(median < Duration::from_secs(2), "median {median:?}");
    assert!(p99 < Duration::from_secs(10), "p99 {p99:?}");
}
