//! Two real `parley serve` processes on one PostgreSQL run one set of rules between them: every
//! contact's message runs the agent's rule once, whichever process takes it, and what the rule
//! does (a note) is done once per message.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use parley_adapters_diesel::testing::TestDb;
use parley_adapters_whatsapp::{SandboxInbound, inbound_webhook};
use parley_domain::model::{ChannelType, KeyKind};
use serde_json::{Value, json};

const MESSAGES: usize = 120;
const CONTACTS: usize = 12;

/// `method path` on `server` with `key` (and a JSON `body`): the answer's JSON; anything but
/// 2xx fails the test.
pub(crate) fn call(server: &ParleyServer, key: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    let url = format!("{}{path}", server.url());
    let mut args = vec!["-s".to_string(), "--fail-with-body".into(), "-X".into(), method.into(), "-H".into(), format!("X-API-Key: {key}")];
    if let Some(body) = body {
        args.extend(["-H".into(), "Content-Type: application/json".into(), "-d".into(), body.to_string()]);
    }
    args.push(url);
    let out = Command::new("curl").args(&args).output().expect("curl runs");
    assert!(out.status.success(), "{method} {path} failed: {}", String::from_utf8_lossy(&out.stdout));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_run_each_rule_once_per_message() {
    let db = TestDb::postgres().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Two instances").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let line = state.lines.add(&agent, "200000000000078", "300000000000078", None).await.unwrap();
    let servers: Vec<ParleyServer> = std::thread::scope(|scope| {
        let starting: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| ParleyServer::start_on(&db.url, free_port(), &[], |l| l.starts_with("Parley is serving"))))
            .collect();
        starting.into_iter().map(|s| s.join().expect("a server starts")).collect()
    });
    let rule = call(
        &servers[0],
        &key,
        "POST",
        "/v1/rules",
        Some(json!({"name": "Seen", "on": "message.received", "actions": [{"type": "note", "text": "seen"}]})),
    );
    let rule = rule["data"]["id"].as_str().unwrap().to_string();

    let at = chrono::Utc::now().timestamp() - 60;
    for n in 0..MESSAGES {
        let from = format!("1415556{:04}", n % CONTACTS);
        let body = inbound_webhook(
            &line,
            &from,
            Some("Shopper"),
            &format!("wamid.rules{n}"),
            at + n as i64,
            &SandboxInbound::Text(format!("m {n}")),
        );
        state.inbound.receive(ChannelType::Whatsapp, body).await.unwrap();
    }
    let started = Instant::now();
    while state.inbound.backlog().await.unwrap() > 0 || state.rule_engine.backlog().await.unwrap() > 0 {
        assert!(started.elapsed() < Duration::from_secs(60), "the backlogs never drained");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let runs = call(&servers[1], &key, "GET", &format!("/v1/rules/{rule}/runs?limit=1"), None);
    assert_eq!(runs["pagination"]["total"], MESSAGES, "one run per message");
    let activities = call(&servers[0], &key, "GET", "/v1/activities?limit=100", None);
    assert_eq!(activities["pagination"]["total"], CONTACTS);
    let mut notes = 0;
    for activity in activities["data"].as_array().unwrap() {
        let page = call(&servers[1], &key, "GET", &format!("/v1/activities/{}/messages?limit=100", activity["id"].as_str().unwrap()), None);
        let (inbound, seen) = page["data"].as_array().unwrap().iter().fold((0, 0), |(i, s), m| match m["type"].as_str() {
            Some("note") => (i, s + 1),
            _ => (i + 1, s),
        });
        assert_eq!(seen, inbound, "one note per message of {}", activity["id"]);
        notes += seen;
    }
    assert_eq!(notes, MESSAGES, "each message's rule acted once");
    let outcomes = call(&servers[0], &key, "GET", &format!("/v1/rules/{rule}/runs?limit=100"), None);
    assert!(outcomes["data"].as_array().unwrap().iter().all(|r| r["outcome"] == "ok"), "{outcomes}");
}
