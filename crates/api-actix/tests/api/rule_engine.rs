//! Rules at work, over HTTP on both backends, with the workers running as `parley serve` runs
//! them: a contact writes to a sandbox line and each matching rule runs once, every action
//! shown in the conversation; what a rule changes runs no rules; a rule that cannot act records
//! why; round robin hands new conversations to the least busy member below `max_open`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestApp;
use crate::messaging::{SANDBOX_PHONE, SANDBOX_WABA, signed_webhook, start};

backend_tests!(
    a_matching_message_runs_each_action_once_and_others_not_at_all,
    what_a_rule_changes_runs_no_rules,
    a_rule_that_cannot_act_records_why,
    round_robin_hands_new_conversations_to_the_least_busy_member,
    a_template_is_sent_by_a_rule,
    out_of_hours_a_contact_gets_the_away_message_once_in_twelve_hours
);

/// The app with a sandbox line (its templates synced): replies go out without a platform.
pub(crate) async fn app_with_line(backend: &str) -> TestApp {
    let (_server, app) = start(backend).await;
    let line = app.state.lines.add(&app.a.agent, SANDBOX_PHONE, SANDBOX_WABA, None).await.unwrap();
    app.state.lines.sync_line(&line).await.unwrap();
    app
}

/// `from` writes `text` to the sandbox line.
pub(crate) async fn write(app: &TestApp, from: &str, wamid: &str, text: &str) {
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": SANDBOX_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": SANDBOX_PHONE},
        "contacts": [{"profile": {"name": "Ann Lee"}, "wa_id": from}],
        "messages": [{"from": from, "id": wamid, "timestamp": chrono::Utc::now().timestamp().to_string(), "type": "text", "text": {"body": text}}]
    }}]}]});
    signed_webhook(app, &body.to_string()).await;
}

async fn rule(app: &TestApp, body: Value) -> String {
    let r = app.post("/v1/rules", &app.a.secret, body).await;
    r.assert_status(201);
    r.data()["id"].as_str().unwrap().to_string()
}

async fn member(app: &TestApp, email: &str) -> String {
    let r = app.post("/v1/members", &app.a.secret, json!({"email": email, "name": email})).await;
    r.assert_status(201);
    r.data()["id"].as_str().unwrap().to_string()
}

/// The rule's runs once `count` of them have finished (none `running`), for at most 10 s.
async fn runs(app: &TestApp, rule: &str, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = app.get(&format!("/v1/rules/{rule}/runs"), &app.a.secret).await;
        r.assert_status(200);
        let runs = r.data().as_array().unwrap().clone();
        if runs.len() >= count && runs.iter().all(|run| run["outcome"] != "running") {
            assert_eq!(runs.len(), count, "more runs than expected: {runs:?}");
            return runs;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {count} runs of {rule}: {runs:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits until no event waits for rules and two of the worker's polls have passed: whatever
/// would run has run.
async fn settled(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while app.state.rule_engine.backlog().await.unwrap() > 0 {
        assert!(Instant::now() < deadline, "events still wait for rules");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
}

/// The contact's conversation, once their first message is in.
pub(crate) async fn conversation_of(app: &TestApp, digits: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = app.get(&format!("/v1/activities?search={digits}"), &app.a.secret).await;
        if let Some(found) = r.data().as_array().and_then(|a| a.first()) {
            return app.get(&format!("/v1/activities/{}", found["id"].as_str().unwrap()), &app.a.secret).await.data().clone();
        }
        assert!(Instant::now() < deadline, "no conversation for {digits}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

pub(crate) async fn timeline(app: &TestApp, activity: &str) -> Vec<Value> {
    let r = app.get(&format!("/v1/activities/{activity}/messages?limit=100"), &app.a.secret).await;
    r.assert_status(200);
    r.data().as_array().unwrap().clone()
}

async fn a_matching_message_runs_each_action_once_and_others_not_at_all(backend: &str) {
    let app = app_with_line(backend).await;
    let refunds = app.tag(&app.a, "refunds").await;
    let maria = member(&app, "maria@shop.example").await;
    app.post("/v1/canned_responses", &app.a.secret, json!({"short_code": "refund", "text": "We will look at your refund today."}))
        .await
        .assert_status(201);
    let refund_rule = rule(
        &app,
        json!({"name": "Refund questions", "on": "message.received",
        "conditions": [{"field": "text", "op": "contains", "value": "REFUND"}, {"field": "status", "op": "equals", "value": "open"}],
        "actions": [
            {"type": "add_tags", "tag_ids": [refunds]},
            {"type": "assign", "to": maria},
            {"type": "reply", "canned": "refund"},
            {"type": "note", "text": "Check the order first."},
            {"type": "set_status", "status": "pending"}
        ]}),
    )
    .await;
    let shipping_rule = rule(
        &app,
        json!({"name": "Shipping", "on": "message.received",
            "conditions": [{"field": "text", "op": "contains", "value": "shipping"}],
            "actions": [{"type": "note", "text": "shipping"}]}),
    )
    .await;
    let off_rule =
        rule(&app, json!({"name": "Off", "enabled": false, "on": "message.received", "actions": [{"type": "note", "text": "never"}]}))
            .await;

    write(&app, "14155550101", "wamid.r1", "I want a refund for my order").await;
    let done = runs(&app, &refund_rule, 1).await;
    assert_eq!((done[0]["outcome"].as_str(), &done[0]["error"]), (Some("ok"), &Value::Null));
    settled(&app).await;
    assert!(runs(&app, &shipping_rule, 0).await.is_empty(), "its condition does not hold");
    assert!(runs(&app, &off_rule, 0).await.is_empty(), "a disabled rule runs on nothing");

    let activity = conversation_of(&app, "14155550101").await;
    assert_eq!(activity["status"], "pending");
    assert_eq!(activity["assigned_to"], maria.as_str());
    assert_eq!(activity["tags"].as_array().unwrap().iter().map(|t| t["id"].clone()).collect::<Vec<_>>(), [json!(refunds)]);
    let messages = timeline(&app, activity["id"].as_str().unwrap()).await;
    let reply = messages.iter().find(|m| m["direction"] == "outbound").expect("the canned reply went out");
    assert_eq!(reply["text"], "We will look at your refund today.");
    let note = messages.iter().find(|m| m["type"] == "note").expect("the note was added");
    assert_eq!(
        (note["content"]["note"]["text"].as_str(), note["content"]["note"]["author"].as_str()),
        (Some("Check the order first."), Some("Rule: Refund questions"))
    );

    // Another message reopens the conversation (a contact writing opens it), so the rule
    // holds again: one run per event.
    write(&app, "14155550101", "wamid.r2", "refund please?").await;
    let both = runs(&app, &refund_rule, 2).await;
    assert_ne!(both[0]["event_id"], both[1]["event_id"]);
    settled(&app).await;
    assert_eq!(runs(&app, &refund_rule, 2).await.len(), 2, "each event once");
}

async fn what_a_rule_changes_runs_no_rules(backend: &str) {
    let app = app_with_line(backend).await;
    let vip = app.tag(&app.a, "vip").await;
    let (_, activity) = app.conversation(&app.a, "Ann", ("whatsapp", "14155550102"), parley_domain::model::ActivityStatus::Open).await;
    // On every change of a conversation, with a change of its own: it would loop forever if its
    // own change ran rules.
    let tagger =
        rule(&app, json!({"name": "Tag changes", "on": "activity.updated", "actions": [{"type": "add_tags", "tag_ids": [vip]}]})).await;
    let closer = rule(
        &app,
        json!({"name": "Close tagged", "on": "activity.updated",
            "conditions": [{"field": "tag", "op": "equals", "value": vip}],
            "actions": [{"type": "set_status", "status": "closed"}]}),
    )
    .await;

    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"status": "pending"})).await.assert_status(200);
    assert_eq!(runs(&app, &tagger, 1).await[0]["outcome"], "ok");
    settled(&app).await;
    assert_eq!(runs(&app, &tagger, 1).await.len(), 1, "its own change ran no rules");
    assert!(runs(&app, &closer, 0).await.is_empty(), "nor another rule: the tag came from a rule");
    let shown = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!((shown.data()["status"].as_str(), shown.data()["tags"].as_array().unwrap().len()), (Some("pending"), 1));

    // The rule's change is an event like any other for webhooks and the events list.
    let events = app.get("/v1/events?type=activity.updated", &app.a.secret).await;
    assert_eq!(events.data().as_array().unwrap().len(), 2, "the team's change and the rule's");

    // A change from outside runs both now (the tag holds), once each.
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"status": "open"})).await.assert_status(200);
    assert_eq!(runs(&app, &closer, 1).await[0]["outcome"], "ok");
    settled(&app).await;
    assert_eq!(runs(&app, &tagger, 2).await.len(), 2);
    assert_eq!(app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data()["status"], "closed");
}

async fn a_rule_that_cannot_act_records_why(backend: &str) {
    let app = app_with_line(backend).await;
    let gone = member(&app, "gone@shop.example").await;
    // The team opened it: the contact never wrote, so no window is open.
    let (_, activity) = app.conversation(&app.a, "Ann", ("whatsapp", "14155550103"), parley_domain::model::ActivityStatus::Open).await;
    let replier = rule(
        &app,
        json!({"name": "Greet", "on": "activity.updated", "actions": [{"type": "note", "text": "greeting"}, {"type": "reply", "text": "Hello!"}]}),
    )
    .await;
    let assigner = rule(&app, json!({"name": "To Gone", "on": "activity.updated", "actions": [{"type": "assign", "to": gone}]})).await;
    app.delete(&format!("/v1/members/{gone}"), &app.a.secret).await.assert_status(200);

    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"status": "pending"})).await.assert_status(200);
    let failed = runs(&app, &replier, 1).await;
    assert_eq!(failed[0]["outcome"], "failed");
    assert_eq!(failed[0]["error"], "actions[1] (reply): the 24-hour messaging window is closed");
    let failed = runs(&app, &assigner, 1).await;
    assert_eq!(failed[0]["outcome"], "failed");
    assert_eq!(failed[0]["error"], "actions[0] (assign): assigned_to: is not a member of this agent");
    let messages = timeline(&app, &activity).await;
    assert_eq!(messages.len(), 1, "the note before the failing reply stays; nothing was sent: {messages:?}");
    assert_eq!(messages[0]["type"], "note");
}

async fn round_robin_hands_new_conversations_to_the_least_busy_member(backend: &str) {
    let app = app_with_line(backend).await;
    let ana = member(&app, "ana@shop.example").await;
    app.tick();
    let bea = member(&app, "bea@shop.example").await;
    app.tick();
    let cid = member(&app, "cid@shop.example").await;
    let r = app.patch(&format!("/v1/members/{cid}"), &app.a.secret, json!({"max_open": 0})).await;
    r.assert_status(200);
    assert_eq!(r.data()["max_open"], 0);
    let router =
        rule(&app, json!({"name": "Hand out", "on": "activity.created", "actions": [{"type": "assign", "to": "round_robin"}]})).await;

    let mut assigned = Vec::new();
    for (i, from) in ["14155550111", "14155550112", "14155550113"].into_iter().enumerate() {
        write(&app, from, &format!("wamid.rr{i}"), "hello").await;
        runs(&app, &router, i + 1).await;
        assigned.push(conversation_of(&app, from).await["assigned_to"].as_str().unwrap().to_string());
    }
    // Ana and Bea had none, Ana joined first; then Bea has fewer; then both have one and Ana
    // was served longer ago. Cid takes none (max_open 0).
    assert_eq!(assigned, [ana.clone(), bea.clone(), ana.clone()]);

    // Ana at her limit is skipped though Bea has as many.
    app.patch(&format!("/v1/members/{ana}"), &app.a.secret, json!({"max_open": 2})).await.assert_status(200);
    app.patch(&format!("/v1/members/{bea}"), &app.a.secret, json!({"max_open": 2})).await.assert_status(200);
    write(&app, "14155550114", "wamid.rr3", "hello").await;
    runs(&app, &router, 4).await;
    assert_eq!(conversation_of(&app, "14155550114").await["assigned_to"], bea.as_str());
    // Everyone full: the run fails saying so, and the conversation waits unassigned.
    write(&app, "14155550115", "wamid.rr4", "hello").await;
    let all = runs(&app, &router, 5).await;
    assert_eq!(all[0]["outcome"], "failed");
    assert!(all[0]["error"].as_str().unwrap().starts_with("actions[0] (assign): no member can take it"), "{}", all[0]["error"]);
    assert_eq!(conversation_of(&app, "14155550115").await["assigned_to"], Value::Null);

    // Limits are checked, and only an admin (or the member) sets them.
    for bad in [json!(10_001), json!(-1), json!(2.5), json!("3")] {
        let r = app.patch(&format!("/v1/members/{ana}"), &app.a.secret, json!({"max_open": bad})).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], "max_open", "{bad}");
    }
    let whole = app.patch(&format!("/v1/members/{ana}"), &app.a.secret, json!({"max_open": 3.0})).await;
    assert_eq!(whole.data()["max_open"], 3, "a whole number written with a point");
    app.patch(&format!("/v1/members/{ana}"), &app.b.secret, json!({"max_open": 1})).await.assert_error(404, "NOT_FOUND");
    let cleared = app.patch(&format!("/v1/members/{ana}"), &app.a.secret, json!({"max_open": null})).await;
    assert_eq!(cleared.data()["max_open"], Value::Null);
}

async fn a_template_is_sent_by_a_rule(backend: &str) {
    let app = app_with_line(backend).await;
    let welcome = format!("{SANDBOX_WABA}002");
    let greeter = rule(
        &app,
        json!({"name": "Welcome", "on": "activity.created", "actions": [{"type": "send_template", "template_id": welcome,
            "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]}]}),
    )
    .await;
    write(&app, "14155550120", "wamid.t1", "hi").await;
    assert_eq!(runs(&app, &greeter, 1).await[0]["outcome"], "ok");
    let activity = conversation_of(&app, "14155550120").await;
    let messages = timeline(&app, activity["id"].as_str().unwrap()).await;
    let sent = messages.iter().find(|m| m["type"] == "template").expect("the template went out");
    assert_eq!(sent["content"]["template"]["name"], "welcome");
}

async fn out_of_hours_a_contact_gets_the_away_message_once_in_twelve_hours(backend: &str) {
    let app = app_with_line(backend).await;
    let hours = |week: Value| json!({"timezone": "Europe/Lisbon", "week": week, "away_message": "We are closed; back at 9."});
    // No day listed: closed all week.
    app.put("/v1/settings/business_hours", &app.a.secret, hours(json!({}))).await.assert_status(200);
    let away_sent = |messages: &[Value]| messages.iter().filter(|m| m["direction"] == "outbound").count();

    write(&app, "14155550130", "wamid.a1", "hello?").await;
    let activity = conversation_of(&app, "14155550130").await["id"].as_str().unwrap().to_string();
    settled(&app).await;
    write(&app, "14155550130", "wamid.a2", "anyone?").await;
    settled(&app).await;
    let messages = timeline(&app, &activity).await;
    assert_eq!(away_sent(&messages), 1, "once for both: {messages:?}");
    let away = messages.iter().find(|m| m["direction"] == "outbound").unwrap();
    assert_eq!(away["text"], "We are closed; back at 9.");

    // Twelve hours on, the next message out of hours gets it again.
    app.clock.advance(chrono::TimeDelta::hours(12) + chrono::TimeDelta::seconds(1));
    write(&app, "14155550130", "wamid.a3", "still there?").await;
    settled(&app).await;
    assert_eq!(away_sent(&timeline(&app, &activity).await), 2);

    // Open all week: no away message however long since the last.
    let all_day = json!([["00:00", "24:00"]]);
    let week = json!({"mon": all_day, "tue": all_day, "wed": all_day, "thu": all_day, "fri": all_day, "sat": all_day, "sun": all_day});
    app.put("/v1/settings/business_hours", &app.a.secret, hours(week)).await.assert_status(200);
    app.clock.advance(chrono::TimeDelta::hours(13));
    write(&app, "14155550130", "wamid.a4", "hi again").await;
    settled(&app).await;
    assert_eq!(away_sent(&timeline(&app, &activity).await), 2);
}
