//! `/v1/rules` over HTTP, on both backends: every kind of condition and action read back as
//! written, changed and deleted by its agent only; each fault named by its path with nothing
//! written; references to what is not the agent's refused; at most 100 rules an agent; read by
//! every member, changed only by an admin (or a secret key).

use parley_domain::model::{EventId, RuleId, RuleRun, RunOutcome};
use serde_json::{Value, json};

use crate::common::sessions::{browse, ready_member};
use crate::common::{TestApp, fields};
use crate::messaging::{SANDBOX_PHONE, SANDBOX_WABA};

backend_tests!(
    rules_are_made_read_changed_and_deleted_by_their_agent,
    bad_rules_are_refused_naming_each_fault_and_write_nothing,
    rules_may_name_only_what_is_their_agents,
    a_canned_reply_is_found_among_many_that_hold_its_short_code,
    an_agent_keeps_at_most_a_hundred_rules,
    every_member_reads_the_rules_and_only_admins_change_them
);

async fn member(app: &TestApp, secret: &str, email: &str) -> String {
    let r = app.post("/v1/members", secret, json!({"email": email, "name": "Maria"})).await;
    r.assert_status(201);
    r.data()["id"].as_str().unwrap().to_string()
}

async fn canned(app: &TestApp, secret: &str, code: &str) {
    app.post("/v1/canned_responses", secret, json!({"short_code": code, "text": "Thanks!"})).await.assert_status(201);
}

async fn template(app: &TestApp) -> String {
    let line = app.state.lines.add(&app.a.agent, SANDBOX_PHONE, SANDBOX_WABA, None).await.unwrap();
    app.state.lines.sync_line(&line).await.unwrap();
    format!("{SANDBOX_WABA}001")
}

async fn rules_are_made_read_changed_and_deleted_by_their_agent(backend: &str) {
    let app = TestApp::new(backend).await;
    let (tag, other_tag) = (app.tag(&app.a, "refunds").await, app.tag(&app.a, "vip").await);
    let maria = member(&app, &app.a.secret, "maria@shop.example").await;
    canned(&app, &app.a.secret, "thanks").await;
    let template = template(&app).await;
    let body = json!({
        "name": " Refund questions ",
        "on": "message.received",
        "conditions": [
            {"field": "text", "op": "contains", "value": "refund"},
            {"field": "channel_type", "op": "in", "value": ["whatsapp", "instagram"]},
            {"field": "assigned_to", "op": "exists", "value": false},
            {"field": "tag", "op": "not_equals", "value": other_tag},
            {"field": "contact.plan", "op": "equals", "value": "gold"},
            {"field": "business_hours", "op": "equals", "value": "closed"}
        ],
        "actions": [
            {"type": "assign", "to": maria},
            {"type": "add_tags", "tag_ids": [tag]},
            {"type": "remove_tags", "tag_ids": [other_tag]},
            {"type": "set_status", "status": "pending"},
            {"type": "reply", "canned": "thanks"},
            {"type": "reply", "text": "We are on it."},
            {"type": "send_template", "template_id": template, "components": [{"type": "body", "parameters": [{"type": "text", "text": "A1"}]}]},
            {"type": "note", "text": "Refund asked"}
        ]
    });
    let made = app.post("/v1/rules", &app.a.secret, body.clone()).await;
    made.assert_status(201);
    let rule = made.data().clone();
    let id = rule["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("rul_"), "{id}");
    assert_eq!(rule["name"], "Refund questions", "trimmed");
    assert_eq!(rule["enabled"], true, "enabled unless said otherwise");
    assert_eq!(rule["on"], "message.received");
    assert_eq!(rule["conditions"], body["conditions"], "conditions as written");
    assert_eq!(rule["actions"], body["actions"], "actions as written");

    let path = format!("/v1/rules/{id}");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &rule);

    // Its runs, as the engine records them: newest first, each with its outcome and why.
    let runs = app.db.store.repositories().rule_runs;
    for (event, at) in [("evt_1", 1), ("evt_2", 2)] {
        let run = RuleRun {
            rule_id: RuleId::new(id.as_str()),
            agent_id: app.a.agent.clone(),
            event_id: EventId::new(event),
            outcome: RunOutcome::Running,
            error: None,
            created_at: chrono::DateTime::from_timestamp(1_700_000_000 + at, 0).unwrap(),
        };
        assert!(runs.claim(&run).await.unwrap());
    }
    runs.finish(&RuleId::new(id.as_str()), &EventId::new("evt_1"), RunOutcome::Failed, Some("the window has closed")).await.unwrap();
    let listed = app.get(&format!("{path}/runs"), &app.a.secret).await;
    listed.assert_status(200);
    assert_eq!(
        listed.body,
        json!({"data": [
            {"event_id": "evt_2", "outcome": "running", "error": null, "created_at": "2023-11-14T22:13:22.000Z"},
            {"event_id": "evt_1", "outcome": "failed", "error": "the window has closed", "created_at": "2023-11-14T22:13:21.000Z"}
        ], "pagination": listed.body["pagination"].clone()})
    );
    assert_eq!(listed.body["pagination"]["total"], 2);
    app.get(&format!("{path}/runs"), &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&path, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    let list = app.get("/v1/rules", &app.a.secret).await;
    assert_eq!(list.data().as_array().unwrap().len(), 1);
    assert_eq!(list.body["pagination"]["total"], 1);
    assert_eq!(app.get("/v1/rules", &app.b.secret).await.body["pagination"]["total"], 0, "another agent's rules are not listed");

    let changed = app
        .patch(&path, &app.a.secret, json!({"enabled": false, "conditions": [], "actions": [{"type": "assign", "to": "round_robin"}]}))
        .await;
    changed.assert_status(200);
    assert_eq!(changed.data()["enabled"], false);
    assert_eq!(changed.data()["conditions"], json!([]), "replaced whole");
    assert_eq!(changed.data()["actions"], json!([{"type": "assign", "to": "round_robin"}]));
    assert_eq!(changed.data()["name"], "Refund questions", "what was not sent stays");
    app.patch(&path, &app.b.secret, json!({"enabled": true})).await.assert_error(404, "NOT_FOUND");
    app.delete(&path, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    let deleted = app.delete(&path, &app.a.secret).await;
    assert_eq!(deleted.data(), &json!({"id": id, "deleted": true}));
    app.get(&path, &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

async fn bad_rules_are_refused_naming_each_fault_and_write_nothing(backend: &str) {
    let app = TestApp::new(backend).await;
    let bad = json!({
        "name": "",
        "on": "message.deleted",
        "conditions": [
            {"field": "text", "op": "contains", "value": "ok"},
            {"field": "colour", "op": "equals", "value": "red"},
            {"field": "status", "op": "like", "value": "open"},
            {"field": "status", "op": "equals", "value": "snoozed"},
            {"field": "text", "op": "in", "value": "refund"},
            {"field": "text", "op": "exists", "negate": true}
        ],
        "actions": [
            {"type": "teleport"},
            {"type": "assign", "to": 7},
            {"type": "add_tags", "status": "open"},
            {"type": "set_status", "status": "later"}
        ]
    });
    let named = fields(&app.post("/v1/rules", &app.a.secret, bad).await);
    for field in [
        "name",
        "on",
        "conditions[1].field",
        "conditions[2].op",
        "conditions[3].value",
        "conditions[4].value",
        "conditions[5].negate",
        "actions[0].type",
        "actions[1].to",
        "actions[2].status",
        "actions[2].tag_ids",
        "actions[3].status",
    ] {
        assert!(named.contains(&field.to_string()), "{field} not named in {named:?}");
    }
    assert_eq!(fields(&app.post("/v1/rules", &app.a.secret, json!({})).await), ["name", "on", "actions"]);
    app.post("/v1/rules", &app.a.secret, json!({"name": "x", "on": "activity.created", "actions": [], "when": 1}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    assert_eq!(app.get("/v1/rules", &app.a.secret).await.body["pagination"]["total"], 0, "nothing written");

    let good = json!({"name": "Tag VIPs", "on": "activity.created", "actions": [{"type": "note", "text": "new"}]});
    let id = app.post("/v1/rules", &app.a.secret, good).await.data()["id"].as_str().unwrap().to_string();
    let path = format!("/v1/rules/{id}");
    assert_eq!(fields(&app.patch(&path, &app.a.secret, json!({"actions": [{"type": "note"}]})).await), ["actions[0].text"]);
    assert_eq!(app.get(&path, &app.a.secret).await.data()["actions"], json!([{"type": "note", "text": "new"}]), "nothing changed");
}

async fn rules_may_name_only_what_is_their_agents(backend: &str) {
    let app = TestApp::new(backend).await;
    let theirs_tag = app.tag(&app.b, "theirs").await;
    let theirs_member = member(&app, &app.b.secret, "bob@other.example").await;
    canned(&app, &app.b.secret, "theirs").await;
    let body = json!({
        "name": "Borrowed",
        "on": "message.received",
        "conditions": [{"field": "tag", "op": "in", "value": [theirs_tag]}, {"field": "assigned_to", "op": "equals", "value": theirs_member}],
        "actions": [
            {"type": "add_tags", "tag_ids": [theirs_tag]},
            {"type": "assign", "to": theirs_member},
            {"type": "reply", "canned": "theirs"},
            {"type": "send_template", "template_id": "300000000000001001"}
        ]
    });
    let named = fields(&app.post("/v1/rules", &app.a.secret, body).await);
    assert_eq!(
        named,
        [
            "conditions[0].value[0]",
            "conditions[1].value",
            "actions[0].tag_ids[0]",
            "actions[1].to",
            "actions[2].canned",
            "actions[3].template_id"
        ]
    );
    assert_eq!(app.get("/v1/rules", &app.a.secret).await.body["pagination"]["total"], 0);
}

async fn an_agent_keeps_at_most_a_hundred_rules(backend: &str) {
    let app = TestApp::new(backend).await;
    let rule = |n: usize| -> Value {
        json!({"name": format!("Rule {n}"), "on": "activity.updated", "actions": [{"type": "set_status", "status": "open"}]})
    };
    for n in 0..100 {
        app.post("/v1/rules", &app.a.secret, rule(n)).await.assert_status(201);
        app.tick();
    }
    app.post("/v1/rules", &app.a.secret, rule(100)).await.assert_error(409, "CONFLICT");
    app.post("/v1/rules", &app.b.secret, rule(0)).await.assert_status(201);
    let page = app.get("/v1/rules?limit=100", &app.a.secret).await;
    assert_eq!(page.body["pagination"]["total"], 100);
    assert_eq!(page.data()[0]["name"], "Rule 0", "oldest first");
}

async fn a_canned_reply_is_found_among_many_that_hold_its_short_code(backend: &str) {
    let app = TestApp::new(backend).await;
    // 120 short codes that hold "thanks" and sort before it: more than one page of a search.
    for n in 0..120 {
        canned(&app, &app.a.secret, &format!("a-thanks-{n:03}")).await;
    }
    canned(&app, &app.a.secret, "thanks").await;
    let body = json!({"name": "Thank", "on": "message.received", "actions": [{"type": "reply", "canned": "thanks"}]});
    app.post("/v1/rules", &app.a.secret, body).await.assert_status(201);
    let missing = json!({"name": "Thank", "on": "message.received", "actions": [{"type": "reply", "canned": "thanks-a-lot"}]});
    assert_eq!(fields(&app.post("/v1/rules", &app.a.secret, missing).await), ["actions[0].canned"]);
}

async fn every_member_reads_the_rules_and_only_admins_change_them(backend: &str) {
    let app = TestApp::new(backend).await;
    let (_, member) = ready_member(&app, &app.a, "ana@shop.example", "member", "a long new passphrase").await;
    let (_, admin) = ready_member(&app, &app.a, "bea@shop.example", "admin", "another long passphrase").await;
    let body = json!({"name": "Thank", "on": "message.received", "actions": [{"type": "note", "text": "Seen"}]});
    browse(&app, &member, "POST", "/v1/rules", Some(body.clone())).await.assert_error(403, "FORBIDDEN");
    let made = browse(&app, &admin, "POST", "/v1/rules", Some(body)).await;
    made.assert_status(201);
    let path = format!("/v1/rules/{}", made.data()["id"].as_str().unwrap());

    let listed = browse(&app, &member, "GET", "/v1/rules", None).await;
    assert_eq!(listed.data().as_array().unwrap().len(), 1, "a member sees the team's rules");
    browse(&app, &member, "GET", &path, None).await.assert_status(200);
    browse(&app, &member, "GET", &format!("{path}/runs"), None).await.assert_status(200);

    browse(&app, &member, "PATCH", &path, Some(json!({"enabled": false}))).await.assert_error(403, "FORBIDDEN");
    browse(&app, &member, "DELETE", &path, None).await.assert_error(403, "FORBIDDEN");
    assert_eq!(app.get(&path, &app.a.secret).await.data()["enabled"], true, "a refused change changes nothing");
    let off = browse(&app, &admin, "PATCH", &path, Some(json!({"enabled": false}))).await;
    assert_eq!(off.data()["enabled"], false);
    browse(&app, &admin, "DELETE", &path, None).await.assert_status(200);
    app.get(&path, &app.a.secret).await.assert_error(404, "NOT_FOUND");
}
