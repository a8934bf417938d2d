//! Two real `parley serve` processes on one PostgreSQL share one backlog of webhook deliveries:
//! each delivery is processed by one of them, and each message is stored once, even when the
//! platform's repeated copies of a delivery are processed by both at the same moment.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use parley_adapters_diesel::testing::TestDb;
use parley_adapters_whatsapp::{SandboxInbound, inbound_webhook};
use parley_domain::model::{ChannelType, KeyKind};
use serde_json::Value;

/// Distinct messages, each delivered twice (the platform retries): twice as many deliveries.
const MESSAGES: usize = 300;
const CONTACTS: usize = 15;

fn get(server: &ParleyServer, key: &str, path: &str) -> Value {
    let url = format!("{}{path}", server.url());
    let out = Command::new("curl").args(["-s", "--fail-with-body", "-H", &format!("X-API-Key: {key}"), &url]).output().expect("curl runs");
    assert!(out.status.success(), "GET {path} failed: {}", String::from_utf8_lossy(&out.stdout));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// This process's count of deliveries with `outcome`, from its `/metrics`.
fn deliveries(server: &ParleyServer, outcome: &str) -> u64 {
    let out = Command::new("curl").args(["-s", &format!("{}/metrics", server.url())]).output().expect("curl runs");
    let needle = format!("parley_inbound_deliveries_total{{outcome=\"{outcome}\"}} ");
    String::from_utf8_lossy(&out.stdout).lines().find_map(|l| l.strip_prefix(&needle)?.trim().parse().ok()).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_process_each_delivery_once_and_store_each_message_once() {
    let db = TestDb::postgres().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Two instances").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let line = state.lines.add(&agent, "200000000000077", "300000000000077", None).await.unwrap();
    // The backlog is waiting when both start, at the same time: each takes its first pass at once,
    // and each copy of a delivery sits right after the other, so the two are often claimed by
    // different processes at the same moment. (Started one after the other, the first could
    // drain the whole backlog before the second is up.)
    let at = chrono::Utc::now().timestamp() - 60;
    for n in 0..MESSAGES {
        let from = format!("1415555{:04}", n % CONTACTS);
        let message = SandboxInbound::Text(format!("message {n}"));
        let body = inbound_webhook(&line, &from, Some("Shopper"), &format!("wamid.two{n}"), at + n as i64, &message);
        state.inbound.receive(ChannelType::Whatsapp, body.clone()).await.unwrap();
        state.inbound.receive(ChannelType::Whatsapp, body).await.unwrap();
    }
    let servers: Vec<ParleyServer> = std::thread::scope(|scope| {
        let starting: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| ParleyServer::start_on(&db.url, free_port(), &[], |l| l.starts_with("Parley is serving"))))
            .collect();
        starting.into_iter().map(|s| s.join().expect("a server starts")).collect()
    });
    let started = Instant::now();
    while state.inbound.backlog().await.unwrap() > 0 {
        assert!(started.elapsed() < Duration::from_secs(60), "the backlog never drained");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("two instances drained {} deliveries in {} ms", 2 * MESSAGES, started.elapsed().as_millis());

    let processed: Vec<u64> = servers.iter().map(|s| deliveries(s, "processed")).collect();
    assert_eq!(processed.iter().sum::<u64>(), 2 * MESSAGES as u64, "each delivery processed exactly once: {processed:?}");
    assert!(processed.iter().all(|&n| n > 0), "both instances took part: {processed:?}");
    assert!(state.inbound.failed(10).await.unwrap().is_empty(), "no delivery failed");

    let activities = get(&servers[0], &key, "/v1/activities?limit=100");
    assert_eq!(activities["pagination"]["total"], CONTACTS, "one activity per contact");
    let mut stored = 0;
    for activity in activities["data"].as_array().unwrap() {
        let page = get(&servers[1], &key, &format!("/v1/activities/{}/messages?limit=100", activity["id"].as_str().unwrap()));
        let texts: Vec<&str> = page["data"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
        let mut distinct = texts.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), texts.len(), "no message twice: {texts:?}");
        stored += page["pagination"]["total"].as_u64().unwrap();
    }
    assert_eq!(stored, MESSAGES as u64, "each message stored once");
}
