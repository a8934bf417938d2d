//! Scheduled messages survive restarts, on both databases: the real binary takes two sends
//! with `send_at`, is killed (SIGKILL) before their time, and the next process sends each once
//! at its time; nothing goes out while no process runs.

use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use crate::rule_instances::call;
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::KeyKind;
use serde_json::json;

fn serve(db: &TestDb) -> ParleyServer {
    ParleyServer::start_on(&db.url, free_port(), &[], |l| l.starts_with("Parley is serving"))
}

async fn scheduled_messages_survive_a_crash(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Restarts").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let line = state.lines.add(&agent, "200000000000091", "300000000000091", None).await.unwrap();
    state.lines.sync_line(&line).await.unwrap();
    let welcome = "300000000000091002";

    let first = serve(&db);
    let at = |seconds: i64| (chrono::Utc::now() + chrono::TimeDelta::seconds(seconds)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let mut scheduled = Vec::new();
    for (to, seconds) in [("14155550301", 4), ("14155550302", 5)] {
        let body = json!({"to": to, "send_at": at(seconds), "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]});
        let made = call(&first, &key, "POST", &format!("/v1/templates/{welcome}/send"), Some(body));
        assert_eq!(made["data"]["status"], "scheduled");
        scheduled.push((made["data"]["activity_id"].as_str().unwrap().to_string(), made["data"]["id"].as_str().unwrap().to_string()));
    }
    first.crash();
    // Past both times with no process running: nothing has gone out.
    tokio::time::sleep(Duration::from_secs(6)).await;
    for (activity, id) in &scheduled {
        let m = state
            .messages
            .get(&agent, &parley_domain::model::ActivityId::new(activity.as_str()), &parley_domain::model::MessageId::new(id.as_str()))
            .await
            .unwrap();
        assert_eq!(m.status.as_str(), "scheduled");
    }

    let second = serve(&db);
    let deadline = Instant::now() + Duration::from_secs(20);
    for (activity, id) in &scheduled {
        loop {
            let m = call(&second, &key, "GET", &format!("/v1/activities/{activity}/messages/{id}"), None);
            if matches!(m["data"]["status"].as_str(), Some("sent" | "delivered" | "read")) {
                break;
            }
            assert!(Instant::now() < deadline, "never sent after the restart: {m}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let page = call(&second, &key, "GET", &format!("/v1/activities/{activity}/messages?limit=100"), None);
        assert_eq!(page["pagination"]["total"], 1, "sent once, nothing else: {page}");
    }
    let sent = call(&second, &key, "GET", "/v1/events?type=message.sent&limit=100", None);
    assert_eq!(sent["data"].as_array().unwrap().len(), 2, "announced once each: {sent}");
    assert_eq!(state.scheduled.pending().await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduled_messages_survive_a_crash_on_sqlite() {
    scheduled_messages_survive_a_crash("sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scheduled_messages_survive_a_crash_on_postgres() {
    scheduled_messages_survive_a_crash("postgres").await;
}
