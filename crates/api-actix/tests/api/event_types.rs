//! Every event type is emitted by the change that causes it, and by nothing else, with the
//! object exactly as the API shows it: through the real app on both backends, read back from
//! the events list (deliveries are the worker's, tested in `event_webhooks`).

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::common::TestApp;
use crate::messaging::{
    CLOUD_PHONE, CLOUD_WABA, SANDBOX_PHONE, SANDBOX_WABA, accepted, body_only_wire, cloud_line, executions_uri, inbound_webhook,
    messages_path, order_send, poll, send_uri, signed_webhook, standard_templates, start, templates_path,
};

backend_tests!(every_change_emits_its_event_type_and_nothing_else);

/// The events tenant A got since the last call, oldest first. Known by id: events of one
/// millisecond list in id order, so a new one may list below an older one.
struct Seen(std::collections::HashSet<String>);

impl Seen {
    async fn new_events(&mut self, app: &TestApp) -> Vec<Value> {
        let r = app.get("/v1/events?limit=100", &app.a.secret).await;
        r.assert_status(200);
        assert!(r.body["pagination"]["total"].as_u64().unwrap() < 100, "the test reads every event in one page");
        let mut fresh: Vec<Value> =
            r.data().as_array().unwrap().iter().filter(|e| !self.0.contains(e["id"].as_str().unwrap())).cloned().collect();
        fresh.reverse();
        self.0.extend(fresh.iter().map(|e| e["id"].as_str().unwrap().to_string()));
        fresh
    }

    /// The new events' types, sorted (events of one instant list in id order).
    async fn types(&mut self, app: &TestApp) -> Vec<String> {
        let mut types: Vec<String> = self.new_events(app).await.iter().map(|e| e["type"].as_str().unwrap().to_string()).collect();
        types.sort();
        types
    }

    /// Exactly one new event, of `event_type`: its object.
    async fn one(&mut self, app: &TestApp, event_type: &str) -> Value {
        let fresh = self.new_events(app).await;
        let types: Vec<&str> = fresh.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(types, vec![event_type], "{fresh:?}");
        fresh[0]["data"]["object"].clone()
    }
}

/// The activity as the list shows it.
async fn listed_activity(app: &TestApp, id: &str) -> Value {
    let r = app.get("/v1/activities?limit=100", &app.a.secret).await;
    r.data().as_array().unwrap().iter().find(|a| a["id"] == id).unwrap().clone()
}

async fn every_change_emits_its_event_type_and_nothing_else(backend: &str) {
    let (server, app) = start(backend).await;
    let mut seen = Seen(Default::default());

    // Contacts.
    let made = app
        .post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "5215550001", "profile_name": "Ana"}))
        .await;
    made.assert_status(201);
    assert_eq!(&seen.one(&app, "contact.created").await, made.data(), "the object as the API answered");
    let contact = made.data()["id"].as_str().unwrap().to_string();
    app.get("/v1/contacts", &app.a.secret).await.assert_status(200);
    app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await.assert_status(200);
    let refused = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "5215550001"})).await;
    refused.assert_status(409);
    assert!(seen.types(&app).await.is_empty(), "reads and refused writes emit nothing");
    let changed = app.patch(&format!("/v1/contacts/{contact}"), &app.a.secret, json!({"notes": "VIP"})).await;
    assert_eq!(&seen.one(&app, "contact.updated").await, changed.data());

    // Activities and their tags.
    let activity = app
        .state
        .activities
        .start(&app.a.agent, &parley_domain::model::ContactId::new(&contact), parley_domain::model::ActivityStatus::Open)
        .await
        .unwrap();
    let activity = activity.id.as_str().to_string();
    assert_eq!(seen.one(&app, "activity.created").await, listed_activity(&app, &activity).await);
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"status": "closed", "assigned_to": "sam"}))
        .await
        .assert_status(200);
    let object = seen.one(&app, "activity.updated").await;
    assert_eq!(object, listed_activity(&app, &activity).await);
    assert_eq!((object["status"].as_str(), object["assigned_to"].as_str()), (Some("closed"), Some("sam")));

    let made = app.post("/v1/tags", &app.a.secret, json!({"name": "vip"})).await;
    made.assert_status(201);
    assert_eq!(&seen.one(&app, "tag.created").await, made.data(), "the tag as the API answered");
    let vip = made.data()["id"].as_str().unwrap().to_string();
    let tags = format!("/v1/activities/{activity}/tags");
    app.post(&tags, &app.a.secret, json!({"tag_ids": [vip]})).await.assert_status(200);
    let object = seen.one(&app, "activity.updated").await;
    assert_eq!(object, listed_activity(&app, &activity).await);
    assert_eq!(object["tags"][0]["id"], json!(vip));
    app.post(&tags, &app.a.secret, json!({"tag_ids": [vip]})).await.assert_status(200);
    assert!(seen.types(&app).await.is_empty(), "attaching an attached tag changes nothing");
    app.delete(&format!("{tags}?tag_id={vip}"), &app.a.secret).await.assert_status(200);
    assert_eq!(seen.one(&app, "activity.updated").await, listed_activity(&app, &activity).await);

    // A tag's rename or deletion shows on every activity carrying it: reported once, as the
    // tag's own event, not as an activity.updated per activity.
    app.post(&tags, &app.a.secret, json!({"tag_ids": [vip]})).await.assert_status(200);
    seen.one(&app, "activity.updated").await;
    let renamed = app.patch(&format!("/v1/tags/{vip}"), &app.a.secret, json!({"name": "gold"})).await;
    renamed.assert_status(200);
    assert_eq!(&seen.one(&app, "tag.updated").await, renamed.data(), "the tag as the API answered");
    assert_eq!(listed_activity(&app, &activity).await["tags"][0]["name"], "gold");
    app.patch(&format!("/v1/tags/{vip}"), &app.a.secret, json!({"name": "gold"})).await.assert_status(200);
    assert!(seen.types(&app).await.is_empty(), "a tag patch that changes nothing");
    app.delete(&format!("/v1/tags/{vip}"), &app.a.secret).await.assert_status(200);
    assert_eq!(seen.one(&app, "tag.deleted").await, json!({"id": vip, "deleted": true}), "the id alone");
    assert_eq!(listed_activity(&app, &activity).await["tags"], json!([]));

    // A rename through the activity renames the contact: both report it.
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"profile_name": "Ana María"})).await.assert_status(200);
    let fresh = seen.new_events(&app).await;
    let mut types: Vec<&str> = fresh.iter().map(|e| e["type"].as_str().unwrap()).collect();
    types.sort();
    assert_eq!(types, vec!["activity.updated", "contact.updated"]);
    let renamed = fresh.iter().find(|e| e["type"] == "contact.updated").unwrap();
    assert_eq!(&renamed["data"]["object"], app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await.data());

    // A private note: note.created alone (the activity's new updated_at is no change of its own).
    let note = app.post(&format!("/v1/activities/{activity}/notes"), &app.a.secret, json!({"text": "call back"})).await;
    note.assert_status(201);
    assert_eq!(&seen.one(&app, "note.created").await, note.data(), "the note as it was answered");
    // Opening the conversation it already has emits nothing.
    app.post("/v1/activities", &app.a.secret, json!({"contact_id": contact})).await.assert_status(200);
    assert!(seen.types(&app).await.is_empty(), "an activity the contact already had");

    // Carts (the storefront handover).
    app.import_demo_catalog(&app.a).await;
    let product = app.get("/v1/products?limit=1", &app.a.secret).await.data()[0]["_id"].as_str().unwrap().to_string();
    assert!(seen.types(&app).await.is_empty(), "catalog imports have no events");
    let cart = app.post("/v1/carts", &app.a.publishable, json!({"items": [{"id": product, "qty": 2}]})).await;
    cart.assert_status(201);
    let object = seen.one(&app, "cart.created").await;
    let code = cart.data()["code"].as_str().unwrap();
    assert_eq!(&object, app.get(&format!("/v1/carts/{code}"), &app.a.publishable).await.data(), "the cart as its GET shows it");

    // Inbound messages: someone new is a contact, an activity and a message.
    cloud_line(&app, &server, standard_templates()).await;
    assert!(seen.types(&app).await.is_empty(), "a first sync reports no template change");
    let now = chrono::Utc::now().timestamp();
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "14155550100", "Ann", "wamid.in1", now)).await;
    poll(&app, "/v1/activities?search=14155550100", |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    assert_eq!(seen.types(&app).await, vec!["activity.created", "contact.created", "message.received"]);
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "14155550100", "Ann", "wamid.in1", now)).await;
    assert!(seen.types(&app).await.is_empty(), "a repeated delivery stores nothing and emits nothing");
    let ann = poll(&app, "/v1/activities?search=14155550100", |d| d.as_array().is_some_and(|a| !a.is_empty())).await[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    app.patch(&format!("/v1/activities/{ann}"), &app.a.secret, json!({"status": "closed"})).await.assert_status(200);
    assert_eq!(seen.one(&app, "activity.updated").await["status"], "closed");
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "14155550100", "Ann", "wamid.in2", now + 1)).await;
    let fresh = seen.new_events(&app).await;
    let reopened = fresh.iter().find(|e| e["type"] == "activity.updated").expect("the message reopened the activity");
    assert_eq!(reopened["data"]["object"], listed_activity(&app, &ann).await, "reported as it now shows");
    assert_eq!(reopened["data"]["object"]["status"], "open");
    let received = fresh.iter().find(|e| e["type"] == "message.received").unwrap();
    let timeline = app.get(&format!("/v1/activities/{ann}/messages"), &app.a.secret).await;
    assert_eq!(received["data"]["object"], timeline.data()[0], "the message as the timeline shows it");
    assert_eq!(fresh.len(), 2);

    // A reply: message.sent once the platform took it (its `sending` record emits nothing); a
    // refused one emits nothing at all.
    let send = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(accepted("14155550100", "wamid.out1"))
        .mount_as_scoped(&server)
        .await;
    let reply =
        app.post(&format!("/v1/activities/{ann}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "Hi Ann"}})).await;
    reply.assert_status(201);
    assert_eq!(&seen.one(&app, "message.sent").await, reply.data(), "the reply as it was answered");
    drop(send);
    let refusal = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {"code": 131026, "message": "Message undeliverable"}})))
        .mount_as_scoped(&server)
        .await;
    let refused =
        app.post(&format!("/v1/activities/{ann}/messages"), &app.a.secret, json!({"type": "text", "text": {"body": "Again"}})).await;
    refused.assert_error(422, "MESSAGE_REJECTED");
    assert!(seen.types(&app).await.is_empty(), "a refused reply was never sent");
    drop(refusal);

    // Sends move their message and execution: each status is one event of each.
    let line = app.state.lines.add(&app.a.agent, SANDBOX_PHONE, SANDBOX_WABA, None).await.unwrap();
    app.state.lines.sync_line(&line).await.unwrap();
    let r = app.post(&send_uri(&format!("{SANDBOX_WABA}001")), &app.a.secret, order_send("+44 7700 900123", Some("spring"))).await;
    r.assert_status(200);
    poll(&app, &executions_uri("spring", ""), |d| d[0]["status"] == "read").await;
    // The execution's status and its message's are written one after the other: the message's
    // last event may land just after the execution reads `read`.
    let mut types = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while types.len() < 7 && std::time::Instant::now() < deadline {
        types.extend(seen.types(&app).await);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    types.sort();
    assert_eq!(
        types,
        vec![
            "activity.created",
            "contact.created",
            "execution.updated",
            "execution.updated",
            "message.sent",
            "message.updated",
            "message.updated"
        ],
        "a send to someone new (sent), then delivered and read"
    );

    // A template sync that changes a status.
    let mut templates = standard_templates();
    templates[2] = body_only_wire("9003", "spring_sale", "APPROVED", "MARKETING", "Our spring sale starts {{1}}: 20% off everything.");
    let mock = Mock::given(method("GET"))
        .and(path(templates_path(CLOUD_WABA)))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": templates})))
        .mount_as_scoped(&server)
        .await;
    let cloud = app.state.lines.list(&app.a.agent).await.unwrap().into_iter().find(|l| l.account_id() == CLOUD_PHONE).unwrap();
    app.state.lines.sync_line(&cloud).await.unwrap();
    drop(mock);
    let object = seen.one(&app, "template.updated").await;
    assert_eq!((object["id"].as_str(), object["status"].as_str()), (Some("9003"), Some("APPROVED")));
    assert_eq!(&object, app.get("/v1/templates/9003", &app.a.secret).await.data());

    assert_eq!(app.get("/v1/events", &app.b.secret).await.body["pagination"]["total"], 0, "never another tenant's");
}
