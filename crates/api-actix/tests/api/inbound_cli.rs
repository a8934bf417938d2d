//! `parley inbound failed|retry` (and its older name `parley webhooks`) through the real binary, on SQLite and PostgreSQL: a delivery
//! that cannot be processed is given up (not retried forever), listed for the operator with
//! what is known of it, and put back to be processed by the retry command.

use crate::common::cli::{parley, stdout_json};

use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::ChannelType;
use serde_json::Value;

fn listed<'a>(list: &'a Value, id: &str) -> Option<&'a Value> {
    list.as_array().unwrap().iter().find(|d| d["id"] == id)
}

async fn a_failing_delivery_is_given_up_listed_and_retried_by_command(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Hooks").await.unwrap().id;
    let line = state.lines.add(&agent, "106540352242922", "102290129340398", None).await.unwrap();

    // Signed (the route checked it) but not a webhook payload: it can never be processed.
    let unreadable = state.inbound.receive(ChannelType::Whatsapp, "{\"entry\": [truncated".into()).await.unwrap();
    // A readable delivery for the line that failed for good: its tenant is known.
    let readable = parley_adapters_whatsapp::status_webhook(&line, "wamid.1", "read", "14155550100", None, 1_767_225_600);
    let exhausted = state.inbound.receive(ChannelType::Whatsapp, readable).await.unwrap();
    let repos = db.store.repositories();
    repos.inbound.give_up(&exhausted, "unavailable: pool timed out", chrono::Utc::now()).await.unwrap();

    let summary = state.inbound.process_due(10).await.unwrap();
    assert_eq!((summary.processed, summary.failed, summary.gave_up), (0, 0, 1), "one attempt is enough for a body that cannot parse");
    assert_eq!(state.inbound.process_due(10).await.unwrap().handled(), 0, "a given-up delivery is not retried on its own");
    assert_eq!(state.inbound.backlog().await.unwrap(), 0, "nor counted as backlog");

    let list = stdout_json(&parley(&db, &["inbound", "failed"]));
    let bad = listed(&list, &unreadable).expect("the unreadable delivery is listed");
    assert_eq!((bad["state"].as_str(), bad["attempts"].as_u64()), (Some("failed"), Some(1)), "{bad}");
    assert!(bad["last_error"].as_str().unwrap().contains("not a WhatsApp webhook payload"), "{bad}");
    assert!(bad["received_at"].is_string() && bad["failed_at"].is_string() && bad["next_attempt_at"].is_null(), "{bad}");
    assert_eq!(bad["lines"], serde_json::json!([]), "an unreadable body names no tenant");
    let known = listed(&list, &exhausted).expect("the exhausted delivery is listed");
    assert_eq!(known["lines"][0]["agent"], agent.as_str(), "{known}");
    assert_eq!(known["lines"][0]["channel_id"], line.id.as_str(), "{known}");

    let retried = stdout_json(&parley(&db, &["inbound", "retry", &unreadable]));
    assert_eq!(retried["retried"], 1);
    // The older name of the command lists the same deliveries.
    let list = stdout_json(&parley(&db, &["webhooks", "failed"]));
    let back = listed(&list, &unreadable).unwrap();
    assert_eq!((back["state"].as_str(), back["attempts"].as_u64()), (Some("retrying"), Some(0)), "due again, attempts from zero: {back}");
    assert_eq!(state.inbound.process_due(10).await.unwrap().gave_up, 1, "processed again (and, still unreadable, given up again)");

    let again = parley(&db, &["inbound", "retry", &exhausted]);
    stdout_json(&again);
    let twice = parley(&db, &["inbound", "retry", &exhausted]);
    assert!(!twice.status.success(), "only a given-up delivery can be retried");
    assert!(String::from_utf8_lossy(&twice.stderr).contains("not found"), "{}", String::from_utf8_lossy(&twice.stderr));
    assert_eq!(state.inbound.process_due(10).await.unwrap().processed, 1, "the readable one goes through once retried");

    let all = stdout_json(&parley(&db, &["inbound", "retry", "--all"]));
    assert_eq!(all["retried"], 1, "the unreadable one, given up again");
    assert_eq!(state.inbound.given_up().await.unwrap(), 0);

    let neither = parley(&db, &["inbound", "retry"]);
    assert!(!neither.status.success(), "an id or --all is required");
    let help = parley(&db, &["inbound", "failed", "--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("parley inbound retry"), "{}", String::from_utf8_lossy(&help.stdout));
}

/// A delivery processed with a message set aside (its id holds a NUL) is listed with
/// which message and why, and `retry` tries that message again, storing the others once.
async fn a_set_aside_message_is_listed_with_why_and_retried_by_command(backend: &str) {
    let db = TestDb::of(backend).await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Hooks").await.unwrap().id;
    state.lines.add(&agent, "106540352242922", "102290129340398", None).await.unwrap();
    let body = serde_json::json!({"entry": [{"changes": [{"value": {"metadata": {"phone_number_id": "106540352242922"},
    "messages": [
        {"from": "14155550100", "id": "wamid.ok1", "timestamp": "1767225600", "type": "text", "text": {"body": "kept"}},
        {"from": "14155550100", "id": "wamid.\u{0}", "timestamp": "1767225601", "type": "text", "text": {"body": "set aside"}},
        {"from": "14155550100", "id": "wamid.ok3", "timestamp": "1767225602", "type": "text", "text": {"body": "kept too"}}
    ]}}]}]})
    .to_string();
    let (id, outcome) = state.inbound.receive_and_process(ChannelType::Whatsapp, body).await.unwrap();
    assert_eq!(outcome, parley_domain::services::DeliveryOutcome::Processed, "completed, not retried");

    let list = stdout_json(&parley(&db, &["webhooks", "failed"]));
    let listed = listed(&list, &id).expect("the delivery with a message set aside is listed");
    assert_eq!(listed["state"], "processed", "{listed}");
    assert_eq!(listed["lines"][0]["agent"], agent.as_str(), "{listed}");
    let aside = &listed["set_aside"];
    assert_eq!(aside.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!((&aside[0]["kind"], &aside[0]["position"]), (&Value::from("message"), &Value::from(2)), "{listed}");
    assert_eq!((&aside[0]["platform_id"], &aside[0]["from"]), (&Value::from("wamid.\u{FFFD}"), &Value::from("14155550100")), "{listed}");
    assert!(aside[0]["reason"].as_str().unwrap().contains("NUL"), "{listed}");

    let retried = stdout_json(&parley(&db, &["webhooks", "retry", &id]));
    assert_eq!(retried["retried"], 1);
    let summary = state.inbound.process_due(10).await.unwrap();
    assert_eq!(summary.processed, 1, "processed again");
    let list = stdout_json(&parley(&db, &["webhooks", "failed"]));
    assert_eq!(listed_set_aside(&list, &id), Some(1), "still unusable, set aside again: {list}");
    let repos = db.store.repositories();
    for wamid in ["wamid.ok1", "wamid.ok3"] {
        assert!(repos.messages.find_by_platform_id(&agent, wamid).await.unwrap().is_some(), "{wamid} stored");
    }
    let activity = repos.messages.find_by_platform_id(&agent, "wamid.ok1").await.unwrap().unwrap().activity_id;
    let page = parley_domain::model::PageRequest::new(10, 0);
    let timeline = repos.messages.list(&agent, &activity, Default::default(), page).await.unwrap();
    assert_eq!(timeline.total, 2, "stored once, whatever the retries");
}

fn listed_set_aside(list: &Value, id: &str) -> Option<usize> {
    listed(list, id).and_then(|d| d["set_aside"].as_array()).map(Vec::len)
}

macro_rules! on_both_backends {
    ($($name:ident),*) => {
        mod sqlite { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("sqlite").await } )* }
        mod postgres { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("postgres").await } )* }
    };
}

on_both_backends!(
    a_failing_delivery_is_given_up_listed_and_retried_by_command,
    a_set_aside_message_is_listed_with_why_and_retried_by_command
);
