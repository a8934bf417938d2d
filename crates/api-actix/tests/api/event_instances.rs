//! Event deliveries with real `parley serve` processes on one PostgreSQL: a change committed by
//! a process killed (SIGKILL) before delivering it is delivered after a restart, and two
//! processes deliver each event once.

use std::process::Command;
use std::time::{Duration, Instant};

use parley_adapters_diesel::testing::TestDb;
use parley_api::runtime::config::ApiConfig;
use parley_api::runtime::state::AppState;
use parley_domain::model::{AgentId, KeyKind};
use parley_domain::services::{EndpointWithSecret, NewContactInput, NewEndpointInput, WebhookPageQuery};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::common::server::{ParleyServer, free_port};
use crate::common::standard_webhooks;

const SERVING: fn(&str) -> bool = |l| l.starts_with("Parley is serving");

fn serve(db: &TestDb, processing: bool) -> ParleyServer {
    let processing = processing.to_string();
    let env = [("PARLEY_WEBHOOK_ALLOW_PRIVATE", "true"), ("PARLEY_WEBHOOK_PROCESSING", processing.as_str())];
    ParleyServer::start_on(&db.url, free_port(), &env, SERVING)
}

/// An agent with a secret key and an endpoint subscribed to every event at `receiver`;
/// returns (state, agent, key, endpoint secret).
async fn tenant(db: &TestDb, receiver: &MockServer) -> (AppState, AgentId, String, String) {
    let (state, agent, key, made) = tenant_with_endpoint(db, receiver).await;
    (state, agent, key, made.secret)
}

/// [`tenant`] with the endpoint as made.
async fn tenant_with_endpoint(db: &TestDb, receiver: &MockServer) -> (AppState, AgentId, String, EndpointWithSecret) {
    let config = ApiConfig { webhook_allow_private: true, ..ApiConfig::default() };
    let state = crate::common::system_state_with(db.store.repositories(), config);
    let agent = state.keys.create_agent("Events").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let endpoint = NewEndpointInput { url: Some(receiver.uri()), events: Some(vec!["*".into()]), description: None };
    let made = state.webhook_endpoints.create(&agent, endpoint).await.unwrap();
    (state, agent, key, made)
}

async fn receiver() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200)).mount(&server).await;
    server
}

/// Waits (60 s at most) until the receiver has `n` requests.
async fn received(server: &MockServer, n: usize) -> Vec<Request> {
    let started = Instant::now();
    loop {
        let got = server.received_requests().await.unwrap();
        if got.len() >= n {
            return got;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "the receiver got {} deliveries, expected {n}", got.len());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn header<'a>(r: &'a Request, name: &str) -> &'a str {
    r.headers.get(name).unwrap().to_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_committed_before_a_crash_is_delivered_after_the_restart() {
    let db = TestDb::postgres().await;
    let server = receiver().await;
    let (_state, _agent, key, secret) = tenant(&db, &server).await;

    // This process makes the change and never delivers it (delivery is off), then dies hard.
    let first = serve(&db, false);
    let body = json!({"channel_type": "whatsapp", "channel_id": "5215550001", "profile_name": "Ana"}).to_string();
    let out = Command::new("curl")
        .args(["-s", "--fail-with-body", "-X", "POST", "-H", &format!("X-API-Key: {key}"), "-H", "Content-Type: application/json"])
        .args(["-d", &body, &format!("{}/v1/contacts", first.url())])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let contact: Value = serde_json::from_slice(&out.stdout).unwrap();
    first.crash();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing delivered before the restart");

    let _second = serve(&db, true);
    let got = received(&server, 1).await;
    let delivery: Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(delivery["type"], "contact.created");
    assert_eq!(delivery["data"]["object"], contact["data"], "the contact as the API answered it");
    let raw = String::from_utf8(got[0].body.clone()).unwrap();
    standard_webhooks::verify(
        &secret,
        header(&got[0], "webhook-id"),
        header(&got[0], "webhook-timestamp"),
        header(&got[0], "webhook-signature"),
        &raw,
    )
    .unwrap();
}

/// Deliveries this process made with `outcome`, from its `/metrics`.
fn attempts(server: &ParleyServer, outcome: &str) -> u64 {
    let out = Command::new("curl").args(["-s", &format!("{}/metrics", server.url())]).output().expect("curl runs");
    let needle = format!("parley_event_deliveries_total{{outcome=\"{outcome}\"}} ");
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.strip_prefix(&needle)?.trim().parse().ok()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_deliver_each_event_once() {
    const CHANGES: usize = 300;
    let db = TestDb::postgres().await;
    let server = receiver().await;
    let (state, agent, _key, _secret) = tenant(&db, &server).await;
    let servers: Vec<ParleyServer> = (0..2).map(|_| serve(&db, true)).collect();

    // Changes committed while both run, each with its event.
    for n in 0..CHANGES {
        let input = NewContactInput {
            channel_type: Some("whatsapp".into()),
            channel_id: Some(format!("52155{n:06}")),
            profile_name: Some(format!("Shopper {n}")),
            ..Default::default()
        };
        state.contacts.create(&agent, input).await.unwrap();
    }
    let got = received(&server, CHANGES).await;
    // Give a duplicate the time to show up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got = if server.received_requests().await.unwrap().len() > got.len() { server.received_requests().await.unwrap() } else { got };
    let mut ids: Vec<&str> = got.iter().map(|r| header(r, "webhook-id")).collect();
    ids.sort();
    ids.dedup();
    assert_eq!((got.len(), ids.len()), (CHANGES, CHANGES), "each event delivered once");
    let delivered: Vec<u64> = servers.iter().map(|s| attempts(s, "delivered")).collect();
    assert_eq!(delivered.iter().sum::<u64>(), CHANGES as u64, "{delivered:?}");
    assert!(delivered.iter().all(|&n| n > 0), "both instances took part: {delivered:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_shutdown_finishes_the_attempt_in_hand() {
    let db = TestDb::postgres().await;
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_delay(Duration::from_millis(1500))).mount(&server).await;
    let (state, agent, _key, made) = tenant_with_endpoint(&db, &server).await;
    let mut parley = serve(&db, true);
    let input = NewContactInput { channel_type: Some("whatsapp".into()), channel_id: Some("5215550009".into()), ..Default::default() };
    state.contacts.create(&agent, input).await.unwrap();
    received(&server, 1).await;

    // SIGTERM while the receiver is still answering: the attempt finishes and is recorded.
    parley.terminate();
    let exit = tokio::task::spawn_blocking(move || parley.wait_exit(Duration::from_secs(20))).await.unwrap();
    assert!(exit.is_some_and(|s| s.success()), "a clean exit: {exit:?}");
    let attempts = state.webhook_endpoints.attempts(&agent, &made.endpoint.id, WebhookPageQuery::default()).await.unwrap();
    assert_eq!(attempts.items.len(), 1, "the attempt in hand was recorded");
    assert_eq!(attempts.items[0].response_status, Some(200));
    assert_eq!(state.deliveries.backlog().await.unwrap(), 0, "and nothing is left to deliver again");
}
