//! First response over HTTP on both backends, with the workers running as `parley serve` runs
//! them: the target is a setting; a conversation shows when its first answer falls due (in
//! business hours) and when it came; a rule's reply answers nobody; a miss is announced once.

use std::time::{Duration, Instant};

use chrono::{DateTime, Datelike, NaiveTime, TimeDelta, Utc};
use serde_json::{Value, json};

use crate::common::{TestApp, fields};
use crate::rule_engine::{app_with_line, conversation_of, timeline, write};

backend_tests!(
    the_target_is_set_read_and_removed_and_bad_values_are_named,
    a_conversation_shows_when_its_first_answer_falls_due_and_when_it_came,
    the_due_time_counts_business_hours_only,
    a_rules_reply_is_not_the_teams_first_response,
    a_missed_first_response_is_announced_once
);

const PATH: &str = "/v1/settings/first_response";

pub(crate) fn time(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().unwrap_or_else(|| panic!("not a time: {v}"))).unwrap().with_timezone(&Utc)
}

/// The conversation's newest inbound message's `created_at`.
async fn last_inbound_at(app: &TestApp, activity: &str) -> DateTime<Utc> {
    let messages = timeline(app, activity).await;
    time(&messages.iter().find(|m| m["direction"] == "inbound").unwrap()["created_at"])
}

async fn set_target(app: &TestApp, minutes: u32) {
    let r = app.put(PATH, &app.a.secret, json!({"minutes": minutes})).await;
    r.assert_status(200);
    assert_eq!(r.data(), &json!({"minutes": minutes}));
}

async fn the_target_is_set_read_and_removed_and_bad_values_are_named(backend: &str) {
    let app = TestApp::new(backend).await;
    assert_eq!(app.get(PATH, &app.a.secret).await.assert_status(200).data(), &Value::Null, "none until set");
    set_target(&app, 30).await;
    assert_eq!(app.get(PATH, &app.a.secret).await.data(), &json!({"minutes": 30}));
    assert_eq!(app.get(PATH, &app.b.secret).await.data(), &Value::Null, "each agent's own");
    let whole = app.put(PATH, &app.a.secret, json!({"minutes": 45.0})).await;
    assert_eq!(whole.assert_status(200).data(), &json!({"minutes": 45}), "a whole number written with a point");

    for bad in [json!({}), json!({"minutes": 0}), json!({"minutes": 10_081}), json!({"minutes": 2.5}), json!({"minutes": "30"})] {
        let r = app.put(PATH, &app.a.secret, bad.clone()).await;
        assert_eq!(fields(&r), ["minutes"], "{bad}");
    }
    let unknown = app.put(PATH, &app.a.secret, json!({"minutes": 30, "hours": 1})).await;
    assert!(fields(&unknown).contains(&"hours".to_string()), "{:?}", unknown.body);
    assert_eq!(app.get(PATH, &app.a.secret).await.data(), &json!({"minutes": 45}), "nothing changed by a refusal");

    let removed = app.put(PATH, &app.a.secret, json!({"minutes": null})).await;
    assert_eq!(removed.assert_status(200).data(), &Value::Null);
    assert_eq!(app.get(PATH, &app.a.secret).await.data(), &Value::Null);
}

async fn a_conversation_shows_when_its_first_answer_falls_due_and_when_it_came(backend: &str) {
    let app = app_with_line(backend).await;
    // Before a target: the conversation waits, with no due time.
    write(&app, "5215550101", "wamid.fr-0", "hi").await;
    let before = conversation_of(&app, "5215550101").await;
    assert_eq!((&before["first_response_due_at"], &before["first_responded_at"]), (&Value::Null, &Value::Null));

    set_target(&app, 30).await;
    write(&app, "5215550102", "wamid.fr-1", "Is my order on its way?").await;
    let ann = conversation_of(&app, "5215550102").await;
    let id = ann["id"].as_str().unwrap().to_string();
    let opened = last_inbound_at(&app, &id).await;
    assert_eq!(time(&ann["first_response_due_at"]), opened + TimeDelta::minutes(30), "no hours: always open");
    assert_eq!(ann["first_responded_at"], Value::Null);
    write(&app, "5215550102", "wamid.fr-2", "Hello?").await;
    let again = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(again["first_response_due_at"], ann["first_response_due_at"], "a second message restarts nothing");

    let reply = app
        .post(&format!("/v1/activities/{id}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "It ships today."}}))
        .await;
    reply.assert_status(201);
    let answered = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(time(&answered["first_responded_at"]), time(&reply.data()["created_at"]), "the reply is the first response");
    let listed = app.get("/v1/activities?search=5215550102", &app.a.secret).await;
    let item = &listed.data()[0];
    assert_eq!(
        (&item["first_response_due_at"], &item["first_responded_at"]),
        (&answered["first_response_due_at"], &answered["first_responded_at"])
    );
    app.post(&format!("/v1/activities/{id}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "Anything else?"}}))
        .await
        .assert_status(201);
    let still = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(still["first_responded_at"], answered["first_responded_at"], "only the first answer counts");

    app.patch(&format!("/v1/activities/{id}"), &app.a.secret, json!({"status": "closed"})).await.assert_status(200);
    app.clock.advance(TimeDelta::seconds(1));
    write(&app, "5215550102", "wamid.fr-3", "One more thing").await;
    let reopened = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(reopened["status"], "open");
    let opened_again = last_inbound_at(&app, &id).await;
    assert_eq!(time(&reopened["first_response_due_at"]), opened_again + TimeDelta::minutes(30), "a new opening, a new due time");
    assert_eq!(reopened["first_responded_at"], Value::Null);
}

async fn the_due_time_counts_business_hours_only(backend: &str) {
    let app = app_with_line(backend).await;
    // Open one hour, three days from today: a 30-minute target falls due half an hour into it.
    let day = Utc::now().date_naive() + TimeDelta::days(3);
    let weekday = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"][day.weekday().num_days_from_monday() as usize];
    let hours = json!({"timezone": "UTC", "week": {weekday: [["10:00", "11:00"]]}});
    app.put("/v1/settings/business_hours", &app.a.secret, hours).await.assert_status(200);
    set_target(&app, 30).await;
    write(&app, "5215550201", "wamid.bh-1", "Are you open?").await;
    let ann = conversation_of(&app, "5215550201").await;
    let expected = day.and_time(NaiveTime::from_hms_opt(10, 30, 0).unwrap()).and_utc();
    assert_eq!(time(&ann["first_response_due_at"]), expected);
}

async fn a_rules_reply_is_not_the_teams_first_response(backend: &str) {
    let app = app_with_line(backend).await;
    set_target(&app, 30).await;
    let rule = json!({"name": "Greet", "on": "message.received", "conditions": [],
        "actions": [{"type": "reply", "text": "Thanks, a person will answer soon."}]});
    let made = app.post("/v1/rules", &app.a.secret, rule).await;
    made.assert_status(201);
    write(&app, "5215550301", "wamid.rr-1", "hello").await;
    let ann = conversation_of(&app, "5215550301").await;
    let id = ann["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !timeline(&app, &id).await.iter().any(|m| m["direction"] == "outbound") {
        assert!(Instant::now() < deadline, "the rule never replied");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let after = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(after["first_responded_at"], Value::Null, "an automated reply answers nobody");
    assert!(after["first_response_due_at"].is_string());
}

/// The events of `kind` the agent has, once `count` are there (then a little longer, to see
/// no more come).
async fn events_of(app: &TestApp, kind: &str, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let list = || async { app.get(&format!("/v1/events?type={kind}"), &app.a.secret).await.data().as_array().unwrap().clone() };
    while list().await.len() < count {
        assert!(Instant::now() < deadline, "fewer than {count} {kind} events");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Three of the worker's passes: a second announcement would be in by then.
    tokio::time::sleep(Duration::from_secs(3)).await;
    list().await
}

async fn a_missed_first_response_is_announced_once(backend: &str) {
    let app = app_with_line(backend).await;
    set_target(&app, 1).await;
    write(&app, "5215550401", "wamid.miss-1", "Anyone there?").await;
    write(&app, "5215550402", "wamid.miss-2", "Hi!").await;
    let waiting = conversation_of(&app, "5215550401").await;
    let answered = conversation_of(&app, "5215550402").await;
    let answered_id = answered["id"].as_str().unwrap();
    app.post(&format!("/v1/activities/{answered_id}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "Hello!"}}))
        .await
        .assert_status(201);

    app.clock.advance(TimeDelta::minutes(2));
    let missed = events_of(&app, "activity.first_response_missed", 1).await;
    assert_eq!(missed.len(), 1, "once, and only the unanswered one: {missed:?}");
    let data = &missed[0]["data"]["object"];
    assert_eq!(data["id"], waiting["id"]);
    assert_eq!(data["first_response_due_at"], waiting["first_response_due_at"]);
    assert_eq!(data["first_responded_at"], Value::Null);
    assert!(app.get("/v1/events?type=activity.first_response_missed", &app.b.secret).await.data().as_array().unwrap().is_empty());
}
