//! Scheduled messages over HTTP on both backends, with the workers running as `parley serve`
//! runs them: a reply or template send with `send_at` waits on the timeline as `scheduled`,
//! goes out once at its time (spaced to its line's pace), can be cancelled until then, and
//! fails saying why when the messaging window has closed by then; a bad `send_at` is refused
//! by name with nothing kept.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestApp;
use crate::messaging::SANDBOX_WABA;
use crate::rule_engine::{app_with_line, conversation_of, timeline, write};

backend_tests!(
    a_scheduled_reply_waits_on_the_timeline_then_goes_out_once,
    a_scheduled_message_is_cancelled_until_it_goes_out,
    a_scheduled_reply_fails_saying_why_when_the_window_has_closed,
    a_scheduled_template_send_goes_out_at_its_time_under_its_campaign,
    a_burst_goes_out_at_its_lines_pace,
    bad_send_at_values_are_refused_by_name_and_nothing_is_kept
);

fn in_seconds(app: &TestApp, seconds: i64) -> String {
    use parley_domain::ports::Clock;
    (app.clock.now() + chrono::TimeDelta::seconds(seconds)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A conversation whose contact just wrote to the sandbox line: its id.
async fn open_conversation(app: &TestApp, digits: &str) -> String {
    write(app, digits, &format!("wamid.{digits}"), "hello").await;
    conversation_of(app, digits).await["id"].as_str().unwrap().to_string()
}

/// The message once it is no longer `scheduled` (nor `sending`), for at most 15 s.
async fn settled_message(app: &TestApp, activity: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let r = app.get(&format!("/v1/activities/{activity}/messages/{id}"), &app.a.secret).await;
        r.assert_status(200);
        if !matches!(r.data()["status"].as_str(), Some("scheduled" | "sending")) {
            return r.data().clone();
        }
        assert!(Instant::now() < deadline, "never sent: {}", r.data());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether the platform took it: the sandbox moves it on to delivered and read within moments.
fn went_out(message: &Value) -> bool {
    matches!(message["status"].as_str(), Some("sent" | "delivered" | "read"))
}

/// The agent's events of `kind` about message `id`.
async fn events_about(app: &TestApp, kind: &str, id: &str) -> usize {
    let r = app.get(&format!("/v1/events?type={kind}&limit=100"), &app.a.secret).await;
    r.assert_status(200);
    r.data().as_array().unwrap().iter().filter(|e| e["data"]["object"]["id"] == id).count()
}

async fn a_scheduled_reply_waits_on_the_timeline_then_goes_out_once(backend: &str) {
    let app = app_with_line(backend).await;
    let activity = open_conversation(&app, "14155550201").await;
    let send_at = in_seconds(&app, 2);
    let r = app
        .post(
            &format!("/v1/activities/{activity}/messages"),
            &app.a.secret,
            json!({"type": "text", "text": {"body": "Your order ships today."}, "send_at": send_at}),
        )
        .await;
    r.assert_status(201);
    let scheduled = r.data().clone();
    let id = scheduled["id"].as_str().unwrap().to_string();
    assert_eq!((scheduled["status"].as_str(), scheduled["direction"].as_str()), (Some("scheduled"), Some("outbound")));
    assert_eq!(scheduled["send_at"], json!(send_at));
    assert_eq!(scheduled["created_at"], json!(send_at), "it sits in the timeline at its time");
    assert_eq!(scheduled["sent_at"], Value::Null);
    let listed = timeline(&app, &activity).await;
    assert_eq!(listed[0]["id"], json!(id), "newest first, it leads the timeline while it waits");
    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(detail.data()["last_message"]["text"], "hello", "waiting, it is not the conversation's last message");
    assert_eq!(events_about(&app, "message.sent", &id).await, 0, "nothing is announced before it goes out");

    let sent = settled_message(&app, &activity, &id).await;
    assert!(went_out(&sent), "{sent}");
    assert!(sent["platform_message_id"].is_string());
    assert_eq!(sent["send_at"], json!(send_at), "its time is kept");
    assert!(sent["sent_at"].as_str().unwrap() >= send_at.as_str(), "not before its time: {sent}");
    let detail = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(detail.data()["last_message"]["id"], json!(id), "sent, it is the last message");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let outbound: Vec<Value> = timeline(&app, &activity).await.into_iter().filter(|m| m["direction"] == "outbound").collect();
    assert_eq!(outbound.len(), 1, "sent once: {outbound:?}");
    assert_eq!(events_about(&app, "message.sent", &id).await, 1);
}

async fn a_scheduled_message_is_cancelled_until_it_goes_out(backend: &str) {
    let app = app_with_line(backend).await;
    let activity = open_conversation(&app, "14155550202").await;
    let reply = |send_at: String| json!({"type": "text", "text": {"body": "Reminder: your cart is waiting."}, "send_at": send_at});
    let path = format!("/v1/activities/{activity}/messages");
    let later = app.post(&path, &app.a.secret, reply(in_seconds(&app, 3600))).await;
    later.assert_status(201);
    let later = later.data()["id"].as_str().unwrap().to_string();
    assert_eq!(app.delete(&format!("{path}/{later}"), &app.b.secret).await.status, 404, "not another agent's");
    let cancelled = app.delete(&format!("{path}/{later}"), &app.a.secret).await;
    cancelled.assert_status(200);
    assert_eq!(cancelled.data(), &json!({"id": later, "deleted": true}));
    app.get(&format!("{path}/{later}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    assert!(timeline(&app, &activity).await.iter().all(|m| m["id"] != json!(later)), "it left the timeline");
    app.delete(&format!("{path}/{later}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.state.scheduled.pending().await.unwrap(), 0, "its send went with it");

    let soon = app.post(&path, &app.a.secret, reply(in_seconds(&app, 1))).await;
    let soon = soon.data()["id"].as_str().unwrap().to_string();
    assert!(went_out(&settled_message(&app, &activity, &soon).await));
    app.delete(&format!("{path}/{soon}"), &app.a.secret).await.assert_error(409, "CONFLICT");
    let inbound = timeline(&app, &activity).await.into_iter().find(|m| m["direction"] == "inbound").unwrap();
    app.delete(&format!("{path}/{}", inbound["id"].as_str().unwrap()), &app.a.secret).await.assert_error(409, "CONFLICT");
}

async fn a_scheduled_reply_fails_saying_why_when_the_window_has_closed(backend: &str) {
    let app = app_with_line(backend).await;
    let activity = open_conversation(&app, "14155550203").await;
    let body = json!({"type": "text", "text": {"body": "Still interested?"}, "send_at": in_seconds(&app, 26 * 3600)});
    let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, body).await;
    r.assert_status(201);
    let id = r.data()["id"].as_str().unwrap().to_string();
    // A day and more on, nobody wrote back: the 24-hour window has closed by its time.
    app.clock.advance(chrono::TimeDelta::hours(26) + chrono::TimeDelta::seconds(1));
    let failed = settled_message(&app, &activity, &id).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    let why = failed["error_message"].as_str().unwrap();
    assert!(why.contains("messaging window had closed"), "{why}");
    assert_eq!(failed["platform_message_id"], Value::Null, "it never reached the platform");
    assert_eq!(events_about(&app, "message.updated", &id).await, 1, "its failure is announced");
}

async fn a_scheduled_template_send_goes_out_at_its_time_under_its_campaign(backend: &str) {
    let app = app_with_line(backend).await;
    let welcome = format!("{SANDBOX_WABA}002");
    let send_at = in_seconds(&app, 2);
    let body = json!({"to": "+1 415 555 0204", "send_at": send_at, "campaign": {"key": "welcome-later", "name": "Welcome later"},
        "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]});
    let r = app.post(&format!("/v1/templates/{welcome}/send"), &app.a.secret, body).await;
    r.assert_status(201);
    let scheduled = r.data().clone();
    assert_eq!((scheduled["status"].as_str(), scheduled["type"].as_str()), (Some("scheduled"), Some("template")));
    assert_eq!(scheduled["campaign_key"], "welcome-later");
    assert!(scheduled["text"].as_str().unwrap().starts_with("Welcome to Demo Shop!"), "{scheduled}");
    let activity = scheduled["activity_id"].as_str().unwrap().to_string();
    let executions = app.get("/v1/campaigns/welcome-later/executions", &app.a.secret).await;
    assert_eq!(executions.status, 404, "no execution before it goes out");

    let sent = settled_message(&app, &activity, scheduled["id"].as_str().unwrap()).await;
    assert!(went_out(&sent), "{sent}");
    let executions = app.get("/v1/campaigns/welcome-later/executions", &app.a.secret).await;
    executions.assert_status(200);
    let executions = executions.data().as_array().unwrap().clone();
    assert_eq!(executions.len(), 1, "{executions:?}");
    assert_eq!(executions[0]["message_id"], sent["platform_message_id"]);
}

async fn a_burst_goes_out_at_its_lines_pace(backend: &str) {
    let app = app_with_line(backend).await;
    let line = app.state.lines.list(&app.a.agent).await.unwrap().remove(0);
    app.state.lines.set_pace(&app.a.agent, &line.id, 5).await.unwrap();
    let activity = open_conversation(&app, "14155550205").await;
    let send_at = in_seconds(&app, 1);
    let mut ids = Vec::new();
    for n in 0..8 {
        let body = json!({"type": "text", "text": {"body": format!("part {n}")}, "send_at": send_at});
        let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, body).await;
        r.assert_status(201);
        ids.push(r.data()["id"].as_str().unwrap().to_string());
    }
    let mut sent_at = Vec::new();
    for id in &ids {
        let sent = settled_message(&app, &activity, id).await;
        assert!(went_out(&sent), "{sent}");
        sent_at.push(chrono::DateTime::parse_from_rfc3339(sent["sent_at"].as_str().unwrap()).unwrap());
    }
    sent_at.sort();
    // Five a second: eight sends take at least seven intervals of 200 ms between the first
    // and the last, however many the worker has in flight.
    let span = sent_at[7] - sent_at[0];
    assert!(span >= chrono::TimeDelta::milliseconds(1350), "eight sends in {span}");
}

async fn bad_send_at_values_are_refused_by_name_and_nothing_is_kept(backend: &str) {
    let app = app_with_line(backend).await;
    let activity = open_conversation(&app, "14155550206").await;
    let welcome = format!("{SANDBOX_WABA}002");
    let before = timeline(&app, &activity).await.len();
    for (send_at, why) in [
        (in_seconds(&app, -60), "must be in the future"),
        (in_seconds(&app, 31 * 24 * 3600), "must be at most 30 days ahead"),
        ("tomorrow at nine".to_string(), "RFC 3339"),
    ] {
        let reply = json!({"type": "text", "text": {"body": "hi"}, "send_at": send_at});
        let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, reply).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], "send_at", "{}", r.body);
        assert!(r.body["error"]["details"][0]["issue"].as_str().unwrap().contains(why), "{}", r.body);
        let send = json!({"to": "14155550207", "send_at": send_at, "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]});
        let r = app.post(&format!("/v1/templates/{welcome}/send"), &app.a.secret, send).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], "send_at", "{}", r.body);
    }
    // With another fault, both are named.
    let both = json!({"type": "text", "text": {"body": ""}, "send_at": "yesterday"});
    let r = app.post(&format!("/v1/activities/{activity}/messages"), &app.a.secret, both).await;
    r.assert_error(400, "VALIDATION_ERROR");
    let fields: Vec<&str> = r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert!(fields.contains(&"send_at") && fields.len() == 2, "{fields:?}");
    assert_eq!(timeline(&app, &activity).await.len(), before, "nothing kept");
    assert_eq!(app.state.scheduled.pending().await.unwrap(), 0);
    let r = app.get("/v1/activities?search=14155550207", &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 0, "no contact made for a refused send");
}
