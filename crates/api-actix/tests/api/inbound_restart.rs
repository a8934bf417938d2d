//! A webhook delivery is stored before it is answered, so a crash between storing and
//! processing loses nothing: the real binary stores a signed status while processing is off,
//! is killed (SIGKILL), and after a restart the status is applied.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use serde_json::{Value, json};

const SECRET: &str = "restart-secret";

fn start(db: &Path, port: u16, processing: bool) -> ParleyServer {
    // A fresh database prints the demo agent and ends with an export line; a restart only
    // says where it serves.
    let fresh = !db.exists();
    let processing = processing.to_string();
    let env = [
        ("PARLEY_WHATSAPP_APP_SECRET", SECRET),
        ("PARLEY_WEBHOOK_PROCESSING", processing.as_str()),
        ("PARLEY_SANDBOX_STEP_MS", "600000"), // the sandbox must not deliver on its own here
    ];
    ParleyServer::start(db, port, &env, |line| {
        if fresh { line.trim_start().starts_with("export ") } else { line.starts_with("Parley is serving") }
    })
}

fn curl(args: &[&str]) -> Value {
    let out = Command::new("curl").args(["-s", "--fail-with-body"]).args(args).output().expect("curl runs");
    assert!(out.status.success(), "curl {args:?} failed: {}", String::from_utf8_lossy(&out.stdout));
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

fn executions(base: &str, key: &str) -> Value {
    curl(&["-H", &format!("X-API-Key: {key}"), &format!("{base}/v1/campaigns/restart/executions")])
}

#[test]
fn a_stored_webhook_is_applied_after_a_crash_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parley.db");
    let port = free_port();
    let first = start(&db, port, false);
    let base = first.url();
    let key = first.banner_value("secret key:").expect("demo key");
    let agent = first
        .banner
        .iter()
        .find_map(|l| l.split('(').nth(1).and_then(|r| r.split(')').next()).filter(|a| a.starts_with("agt_")))
        .expect("agent id");

    // Send the sandbox's welcome template under a campaign key.
    let templates = curl(&["-H", &format!("X-API-Key: {key}"), &format!("{base}/v1/templates")]);
    let welcome =
        templates["data"].as_array().unwrap().iter().find(|t| t["name"] == "welcome").unwrap()["id"].as_str().unwrap().to_string();
    let send = json!({"to": "14155550100", "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}], "campaign": {"key": "restart", "name": "Restart"}});
    let sent = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("X-API-Key: {key}"),
        "-H",
        "Content-Type: application/json",
        "-d",
        &send.to_string(),
        &format!("{base}/v1/templates/{welcome}/send"),
    ]);
    let message_id = sent["data"]["message_id"].as_str().unwrap().to_string();

    // The platform reports it read; the delivery is stored and answered, not processed.
    let lines = Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(["channels", "list", "--agent", agent])
        .env("DATABASE_URL", format!("sqlite://{}", db.display()))
        .env("PARLEY_LOG", "warn")
        .output()
        .unwrap();
    let lines: Value = serde_json::from_slice(&lines.stdout).unwrap();
    let phone_number_id = lines[0]["phone_number_id"].as_str().unwrap().to_string();
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": "1", "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp", "metadata": {"display_phone_number": "1", "phone_number_id": phone_number_id},
        "statuses": [{"id": message_id, "status": "read", "timestamp": "1767225600", "recipient_id": "14155550100"}]}}]}]})
    .to_string();
    let signature = parley_adapters_whatsapp::webhook_auth::sign(SECRET, body.as_bytes());
    let stored = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("X-Hub-Signature-256: {signature}"),
        "-H",
        "Content-Type: application/json",
        "-d",
        &body,
        &format!("{base}/webhooks/whatsapp"),
    ]);
    assert_eq!(stored, json!({"received": true}));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(executions(&base, &key)["data"][0]["status"], "sent", "not processed while processing is off");

    // Crash: no graceful shutdown, no flush.
    first.crash();

    let _second = start(&db, port, true);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = executions(&base, &key);
        if now["data"][0]["status"] == "read" {
            assert_eq!(now["data"][0]["read_at"], "2026-01-01T00:00:00.000Z", "the event's own time");
            assert_eq!(now["data"][0]["delivered_at"], now["data"][0]["read_at"], "read without delivered sets both");
            break;
        }
        assert!(Instant::now() < deadline, "the stored status was never applied: {now}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn deliveries_that_cannot_be_processed_are_given_up_listed_and_retried_by_command() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parley.db");
    let port = free_port();
    let _server = start(&db, port, true);

    // Correctly signed, but not a webhook payload: processing can never succeed, so the server
    // gives up at the first attempt instead of retrying forever.
    let body = "{\"entry\": \"not a list\"}";
    let signature = parley_adapters_whatsapp::webhook_auth::sign(SECRET, body.as_bytes());
    let stored = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("X-Hub-Signature-256: {signature}"),
        "-d",
        body,
        &format!("http://127.0.0.1:{port}/webhooks/whatsapp"),
    ]);
    assert_eq!(stored, json!({"received": true}));

    let parley = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_parley"))
            .args(args)
            .env("DATABASE_URL", format!("sqlite://{}", db.display()))
            .env("PARLEY_LOG", "warn")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
    };
    // The first given-up listing whose failure time differs from `before`.
    let given_up = |before: &Value| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let failed = parley(&["webhooks", "failed"]);
            if let Some(event) = failed.as_array().and_then(|a| a.first()).filter(|e| e["state"] == "failed" && e["failed_at"] != *before) {
                return event.clone();
            }
            assert!(Instant::now() < deadline, "the delivery was never given up: {failed}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };

    let event = given_up(&Value::Null);
    assert!(event["id"].as_str().unwrap().starts_with("whk_"));
    assert_eq!(event["attempts"], 1, "one attempt is enough for a body that cannot parse: {event}");
    assert!(event["last_error"].as_str().unwrap().contains("not a WhatsApp webhook payload"), "{event}");
    assert!(event["next_attempt_at"].is_null(), "it is not tried again on its own: {event}");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(parley(&["webhooks", "failed"])[0]["attempts"], 1, "still one attempt after the server's next polls");

    // The operator retries it: the running server processes it again (and gives up again).
    let retried = parley(&["webhooks", "retry", event["id"].as_str().unwrap()]);
    assert_eq!(retried["retried"], 1);
    let again = given_up(&event["failed_at"]);
    assert_eq!((&again["id"], &again["attempts"]), (&event["id"], &json!(1)), "processed again with a fresh count: {again}");
}
