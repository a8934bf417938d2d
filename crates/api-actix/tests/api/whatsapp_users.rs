//! WhatsApp users as the platform names them now, through the real app on both backends with
//! Meta-shaped webhooks: a business-scoped user id beside (or instead of) the phone, a parent
//! id, a username that changes; one contact per person whichever identifier arrives first; sends
//! to the phone while one is known, else to the user id; the refusals.

use crate::common::TestApp;
use crate::messaging::{
    CLOUD_PHONE, CLOUD_WABA, accepted, body_only_wire, cloud_line, issues, messages_path, poll, send_uri, sends_received, signed_webhook,
    standard_templates,
};
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, ResponseTemplate};

/// Who sends a message: a phone, a user id, or both, with what the platform says of them.
#[derive(Clone, Copy, Default)]
struct Sender<'a> {
    phone: Option<&'a str>,
    user_id: Option<&'a str>,
    parent_user_id: Option<&'a str>,
    username: Option<&'a str>,
    name: &'a str,
}

/// A messages webhook of one text message from `sender`, shaped as Meta's current reference:
/// `wa_id` and `from` only when the phone is shared, the user id on the contact and the message.
fn webhook(sender: Sender<'_>, wamid: &str, at: i64, body: &str) -> String {
    let mut contact = json!({"profile": {"name": sender.name}});
    let mut message = json!({"id": wamid, "timestamp": at.to_string(), "type": "text", "text": {"body": body}});
    if let Some(phone) = sender.phone {
        contact["wa_id"] = json!(phone);
        message["from"] = json!(phone);
    }
    if let Some(user_id) = sender.user_id {
        contact["user_id"] = json!(user_id);
        message["from_user_id"] = json!(user_id);
    }
    if let Some(parent) = sender.parent_user_id {
        contact["parent_user_id"] = json!(parent);
        message["from_parent_user_id"] = json!(parent);
    }
    if let Some(username) = sender.username {
        contact["profile"]["username"] = json!(username);
    }
    json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "contacts": [contact],
        "messages": [message]
    }}]}]})
    .to_string()
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

async fn contacts(app: &TestApp) -> Vec<Value> {
    app.get("/v1/contacts?limit=100", &app.a.secret).await.data().as_array().unwrap().clone()
}

/// The agent's one activity found by `search`, once there is one.
async fn found(app: &TestApp, search: &str) -> Value {
    let uri = format!("/v1/activities?search={search}");
    poll(app, &uri, |d| d.as_array().is_some_and(|a| a.len() == 1)).await[0].clone()
}

async fn a_customer_without_a_phone_is_one_contact_whatever_arrives_first(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    let ana = Sender {
        user_id: Some("MX.1502576394655843"),
        parent_user_id: Some("MX.ENT.11815799212886844830"),
        username: Some("ana.lopez"),
        name: "Ana López",
        ..Sender::default()
    };

    // A username-only customer: stored like anyone, named by their user id.
    signed_webhook(&app, &webhook(ana, "wamid.u1", t, "¿Tienen la taza azul?")).await;
    let activity = found(&app, "ana.lopez").await;
    assert_eq!(activity["channel_identifiers"], json!(["MX.1502576394655843"]));
    assert_eq!(activity["profile_name"], "Ana López");
    let listed = contacts(&app).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        listed[0]["channels"],
        json!([{"channel_id": "MX.1502576394655843", "channel_type": "whatsapp", "user_id": "MX.1502576394655843",
            "parent_user_id": "MX.ENT.11815799212886844830", "username": "ana.lopez"}])
    );
    let contact_id = listed[0]["id"].as_str().unwrap().to_string();

    // She shares her phone: the same contact gains it, and it becomes her address.
    signed_webhook(&app, &webhook(Sender { phone: Some("5215550001"), ..ana }, "wamid.u2", t + 1, "Soy yo")).await;
    let contact = poll(&app, &format!("/v1/contacts/{contact_id}"), |c| c["channels"][0]["channel_id"] == "5215550001").await;
    assert_eq!(contact["channels"][0]["user_id"], "MX.1502576394655843");
    assert_eq!(found(&app, "5550001").await["channel_identifiers"], json!(["5215550001", "MX.1502576394655843"]));

    // A newer username replaces the old one; a message by user id alone still finds her.
    signed_webhook(&app, &webhook(Sender { username: Some("ana.shop"), ..ana }, "wamid.u3", t + 2, "Nuevo nombre")).await;
    poll(&app, &format!("/v1/contacts/{contact_id}"), |c| c["channels"][0]["username"] == "ana.shop").await;
    assert_eq!(found(&app, "ana.shop").await["id"], activity["id"]);
    assert_eq!(app.get("/v1/activities?search=ana.lopez", &app.a.secret).await.data(), &json!([]), "the old username is gone");
    assert_eq!(app.get("/v1/contacts?search=ANA.SHOP", &app.a.secret).await.data().as_array().unwrap().len(), 1);
    let timeline = poll(&app, &format!("/v1/activities/{}/messages", activity["id"].as_str().unwrap()), |d| {
        d.as_array().is_some_and(|a| a.len() == 3)
    })
    .await;
    assert_eq!(timeline.as_array().unwrap().len(), 3, "every message on her one timeline");

    // A customer known by phone first gains their user id, and is then found by it alone.
    let bea = Sender { phone: Some("5215550002"), name: "Bea", ..Sender::default() };
    signed_webhook(&app, &webhook(bea, "wamid.b1", t + 3, "hola")).await;
    signed_webhook(&app, &webhook(Sender { user_id: Some("MX.2"), ..bea }, "wamid.b2", t + 4, "otra vez")).await;
    signed_webhook(&app, &webhook(Sender { phone: None, user_id: Some("MX.2"), ..bea }, "wamid.b3", t + 5, "sin número")).await;
    let bea_activity = found(&app, "5550002").await;
    poll(&app, &format!("/v1/activities/{}/messages", bea_activity["id"].as_str().unwrap()), |d| {
        d.as_array().is_some_and(|a| a.len() == 3)
    })
    .await;
    assert_eq!(bea_activity["channel_identifiers"], json!(["5215550002", "MX.2"]));
    assert_eq!(contacts(&app).await.len(), 2, "Ana and Bea, once each");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());

    // Another agent sees none of it.
    assert_eq!(app.get("/v1/contacts", &app.b.secret).await.data(), &json!([]));
    assert_eq!(app.get("/v1/activities?search=MX", &app.b.secret).await.data(), &json!([]));
}

async fn first_messages_of_a_new_user_racing_make_one_contact(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    let with_phone = Sender { phone: Some("5215550009"), user_id: Some("MX.9"), name: "Cy", ..Sender::default() };
    let without = Sender { phone: None, ..with_phone };
    let deliveries: Vec<String> =
        (0..8).map(|i| webhook(if i % 2 == 0 { with_phone } else { without }, &format!("wamid.r{i}"), t + i, "hi")).collect();
    futures_util::future::join_all(deliveries.iter().map(|body| signed_webhook(&app, body))).await;
    let activity = found(&app, "Cy").await;
    let uri = format!("/v1/activities/{}/messages?limit=100", activity["id"].as_str().unwrap());
    poll(&app, &uri, |d| d.as_array().is_some_and(|a| a.len() == 8)).await;
    let listed = contacts(&app).await;
    assert_eq!(listed.len(), 1, "one contact: {listed:?}");
    assert_eq!(listed[0]["channels"][0]["channel_id"], "5215550009", "the phone, whichever delivery came first");
    assert_eq!(listed[0]["channels"][0]["user_id"], "MX.9");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

async fn a_malformed_user_id_sets_its_message_aside_and_no_other(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    let body = json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "contacts": [{"profile": {"name": "Good"}, "user_id": "MX.1"}, {"profile": {"name": "Bad"}, "user_id": "mx.2"}],
        "messages": [
            {"from_user_id": "mx.2", "id": "wamid.bad", "timestamp": t.to_string(), "type": "text", "text": {"body": "x"}},
            {"from_user_id": "MX.1", "id": "wamid.good", "timestamp": (t + 1).to_string(), "type": "text", "text": {"body": "hi"}},
            {"from_user_id": "MX.3\u{7}", "id": "wamid.control", "timestamp": (t + 2).to_string(), "type": "text", "text": {"body": "x"}}
        ]
    }}]}]})
    .to_string();
    signed_webhook(&app, &body).await;
    found(&app, "Good").await;
    let failed = app.state.inbound.failed(10).await.unwrap();
    let parts: Vec<(Option<String>, String)> =
        failed.iter().flat_map(|f| f.event.set_aside.iter()).map(|p| (p.platform_id.clone(), p.reason.clone())).collect();
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert_eq!(parts[0].0.as_deref(), Some("wamid.bad"));
    assert!(parts[0].1.contains("user_id must be a business-scoped user id"), "{parts:?}");
    assert_eq!(parts[1].0.as_deref(), Some("wamid.control"));
    assert_eq!(contacts(&app).await.len(), 1);
}

async fn sends_go_to_the_phone_while_one_is_known_else_to_the_user_id(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    let mut templates = standard_templates();
    templates.push(body_only_wire("9010", "login_code", "APPROVED", "AUTHENTICATION", "{{1}} is your code."));
    cloud_line(&app, &server, templates).await;
    let t = now() - 600;
    signed_webhook(
        &app,
        &webhook(Sender { phone: Some("5215550001"), user_id: Some("MX.1"), name: "Ana", ..Sender::default() }, "wamid.a", t, "hi"),
    )
    .await;
    signed_webhook(
        &app,
        &webhook(Sender { user_id: Some("MX.2"), username: Some("bea"), name: "Bea", ..Sender::default() }, "wamid.b", t, "hi"),
    )
    .await;
    let ana = found(&app, "5550001").await;
    let bea = found(&app, "Bea").await;

    // A reply to a username-only customer names them as the recipient; to Ana, her phone.
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(body_partial_json(json!({"recipient": "MX.2", "type": "text"})))
        .respond_with(accepted("MX.2", "wamid.to-bea"))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(body_partial_json(json!({"to": "5215550001", "type": "text"})))
        .respond_with(accepted("5215550001", "wamid.to-ana"))
        .expect(1)
        .mount(&server)
        .await;
    let reply = json!({"type": "text", "text": {"body": "¡Sí!"}});
    let r = app.post(&format!("/v1/activities/{}/messages", bea["id"].as_str().unwrap()), &app.a.secret, reply.clone()).await;
    r.assert_status(201);
    assert_eq!(r.data()["channel"]["channel_id"], "MX.2");
    app.post(&format!("/v1/activities/{}/messages", ana["id"].as_str().unwrap()), &app.a.secret, reply).await.assert_status(201);

    // A template to Ana's user id goes to her phone; to Bea's, as the recipient.
    let welcome = |to: &str| json!({"to": to, "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]});
    Mock::given(method("POST"))
        .and(path(format!("/v23.0/{CLOUD_PHONE}/marketing_messages")))
        .and(body_partial_json(json!({"to": "5215550001", "type": "template"})))
        .respond_with(accepted("5215550001", "wamid.tpl-ana"))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(format!("/v23.0/{CLOUD_PHONE}/marketing_messages")))
        .and(body_partial_json(json!({"recipient": "MX.2", "type": "template"})))
        .respond_with(accepted("MX.2", "wamid.tpl-bea"))
        .expect(1)
        .mount(&server)
        .await;
    app.post(&send_uri("9002"), &app.a.secret, welcome("MX.1")).await.assert_status(200);
    app.post(&send_uri("9002"), &app.a.secret, welcome("MX.2")).await.assert_status(200);
    assert_eq!(contacts(&app).await.len(), 2, "no contact made for an id already known");

    // An authentication template cannot go to a user id: refused before any call.
    let before = sends_received(&server).await;
    let code = json!({"to": "MX.2", "components": [{"type": "body", "parameters": [{"type": "text", "text": "123456"}]}]});
    let r = app.post(&send_uri("9010"), &app.a.secret, code).await;
    r.assert_error(422, "RECIPIENT_UNSUPPORTED");
    assert_eq!(sends_received(&server).await, before, "nothing sent");
    // To a user id whose phone is known, it goes to the phone.
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(body_partial_json(json!({"to": "5215550001", "template": {"name": "login_code"}})))
        .respond_with(accepted("5215550001", "wamid.code-ana"))
        .expect(1)
        .mount(&server)
        .await;
    let code = json!({"to": "MX.1", "components": [{"type": "body", "parameters": [{"type": "text", "text": "123456"}]}]});
    app.post(&send_uri("9010"), &app.a.secret, code).await.assert_status(200);
    server.verify().await;

    // The platform's own refusal of a user id (131062) is the same error.
    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "(#131062) Business-scoped user id not supported",
            "type": "OAuthException", "code": 131062}})),
        )
        .expect(1)
        .mount(&server)
        .await;
    app.post(&send_uri("9002"), &app.a.secret, welcome("MX.77")).await.assert_error(422, "RECIPIENT_UNSUPPORTED");
}

async fn user_ids_are_taken_as_addresses_and_malformed_ones_refused_by_field(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let r = app
        .post(
            "/v1/contacts",
            &app.a.secret,
            json!({"channel_type": "whatsapp", "channel_id": "BR.1502576394655843", "profile_name": "Caio"}),
        )
        .await;
    r.assert_status(201);
    assert_eq!(
        r.data()["channels"],
        json!([{"channel_id": "BR.1502576394655843", "channel_type": "whatsapp", "user_id": "BR.1502576394655843",
            "parent_user_id": null, "username": null}])
    );
    let again = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "BR.1502576394655843"})).await;
    again.assert_error(409, "CONFLICT");
    let too_long = format!("US.{}", "1".repeat(129));
    for bad in ["US.", "USA.1", "us.1", "US.1 2", "US .1", too_long.as_str(), "US.ENT.1"] {
        let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": bad})).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(issues(&r)[0].0, "channel_id", "{bad}: {:?}", issues(&r));
        let send = json!({"to": bad, "components": [{"type": "body", "parameters": [{"type": "text", "text": "x"}]}]});
        let r = app.post(&send_uri("9002"), &app.a.secret, send).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert!(issues(&r).iter().any(|(field, _)| field == "to"), "{bad}: {:?}", issues(&r));
    }
    assert_eq!(sends_received(&server).await, 0);
}

/// A messages webhook carrying `message` as it is, and no `contacts` (as identity notices come).
fn webhook_of(message: Value) -> String {
    json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "messages": [message]
    }}]}]})
    .to_string()
}

/// The address of the contact of `activity` (a list item, which names no contact).
async fn contact_uri(app: &TestApp, activity: &Value) -> String {
    let detail = app.get(&format!("/v1/activities/{}", activity["id"].as_str().unwrap()), &app.a.secret).await;
    format!("/v1/contacts/{}", detail.data()["contact_id"].as_str().unwrap())
}

async fn contact_of(app: &TestApp, activity: &Value) -> Value {
    app.get(&contact_uri(app, activity).await, &app.a.secret).await.data().clone()
}

async fn identity_notices_move_the_contact_and_stay_on_the_timeline(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    let ana = Sender { phone: Some("5215550001"), user_id: Some("MX.1"), name: "Ana", ..Sender::default() };
    signed_webhook(&app, &webhook(ana, "wamid.a1", t, "hola")).await;
    let activity = found(&app, "Ana").await;
    let id = activity["id"].as_str().unwrap().to_string();
    let before = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();

    // She changes her number: the platform's notice names her old and new ids.
    let notice = json!({"from": "5215550001", "id": "wamid.n1", "timestamp": (t + 1).to_string(), "type": "system", "system": {
        "body": "User Ana changed from 5215550001 to 5215550009", "wa_id": "5215550009", "type": "user_changed_number",
        "user_id": "MX.9", "previous_user_id": "MX.1"}});
    signed_webhook(&app, &webhook_of(notice.clone())).await;
    let contact = poll(&app, &contact_uri(&app, &activity).await, |c| c["channels"][0]["channel_id"] == "5215550009").await;
    assert_eq!(contact["channels"][0]["user_id"], "MX.9");
    let timeline = poll(&app, &format!("/v1/activities/{id}/messages"), |d| d.as_array().is_some_and(|a| a.len() == 2)).await;
    let shown = &timeline[0];
    assert_eq!((&shown["type"], &shown["direction"], &shown["status"]), (&json!("system"), &json!("internal"), &json!("received")));
    assert_eq!(shown["text"], "User Ana changed from 5215550001 to 5215550009");
    assert_eq!(shown["content"]["system"]["type"], "user_changed_number");
    let after = app.get(&format!("/v1/activities/{id}"), &app.a.secret).await.data().clone();
    assert_eq!(
        (&after["unread_count"], &after["status"], &after["last_inbound_at"]),
        (&before["unread_count"], &before["status"], &before["last_inbound_at"]),
        "a notice is no message of hers: no unread, no new window"
    );
    let updated = app.get("/v1/events?type=contact.updated", &app.a.secret).await;
    assert_eq!(updated.data()[0]["data"]["object"]["channels"][0]["channel_id"], "5215550009");
    // The same notice again changes nothing; her next message, from the new number, is hers.
    signed_webhook(&app, &webhook_of(notice)).await;
    signed_webhook(&app, &webhook(Sender { phone: Some("5215550009"), user_id: Some("MX.9"), ..ana }, "wamid.a2", t + 2, "nuevo")).await;
    poll(&app, &format!("/v1/activities/{id}/messages"), |d| d.as_array().is_some_and(|a| a.len() == 3)).await;
    assert_eq!(contacts(&app).await.len(), 1);

    // A username-only customer's user id changes: their address follows it.
    let bo = Sender { user_id: Some("MX.2"), username: Some("bo.shop"), name: "Bo", ..Sender::default() };
    signed_webhook(&app, &webhook(bo, "wamid.b1", t + 3, "hey")).await;
    let bo_activity = found(&app, "bo.shop").await;
    signed_webhook(
        &app,
        &webhook_of(json!({"id": "wamid.n2", "timestamp": (t + 4).to_string(), "type": "system", "system": {
            "body": "User Bo changed", "type": "user_changed_user_id", "user_id": "MX.22", "previous_user_id": "MX.2"}})),
    )
    .await;
    let bo_uri = contact_uri(&app, &bo_activity).await;
    let bo_contact = poll(&app, &bo_uri, |c| c["channels"][0]["channel_id"] == "MX.22").await;
    assert_eq!((&bo_contact["channels"][0]["user_id"], &bo_contact["channels"][0]["username"]), (&json!("MX.22"), &json!("bo.shop")));
    signed_webhook(&app, &webhook(Sender { user_id: Some("MX.22"), ..bo }, "wamid.b2", t + 5, "still me")).await;
    let bo_id = bo_activity["id"].as_str().unwrap();
    poll(&app, &format!("/v1/activities/{bo_id}/messages"), |d| d.as_array().is_some_and(|a| a.len() == 3)).await;
    assert_eq!(contacts(&app).await.len(), 2);

    // A notice whose new id is malformed is set aside, with its reason.
    signed_webhook(
        &app,
        &webhook_of(json!({"id": "wamid.n3", "timestamp": (t + 6).to_string(), "type": "system", "system": {
            "type": "user_changed_user_id", "user_id": "MX 3", "previous_user_id": "MX.22"}})),
    )
    .await;
    let reasons = set_aside_reasons(&app).await;
    assert!(reasons.len() == 1 && reasons[0].starts_with("its notice's user_id must be"), "{reasons:?}");
    assert_eq!(contact_of(&app, &bo_activity).await["channels"][0]["channel_id"], "MX.22");
}

/// The reasons given for the set-aside parts of failed deliveries.
async fn set_aside_reasons(app: &TestApp) -> Vec<String> {
    let failed = app.state.inbound.failed(10).await.unwrap();
    failed.iter().flat_map(|f| f.event.set_aside.iter()).map(|p| p.reason.clone()).collect()
}

async fn a_card_shared_on_request_gives_the_contact_its_phone(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    let cy = Sender { user_id: Some("MX.3"), username: Some("cy"), name: "Cy", ..Sender::default() };
    signed_webhook(&app, &webhook(cy, "wamid.c1", t, "hi")).await;
    let activity = found(&app, "cy").await;
    let card = json!({"from_user_id": "MX.3", "id": "wamid.c2", "timestamp": (t + 1).to_string(), "type": "contacts", "contacts": [
        {"name": {"formatted_name": "Cy"}, "phones": [{"phone": "+52 1 555 000 3", "wa_id": "5215550003", "type": "MAIN"}],
         "origin": "contact_request"}]});
    signed_webhook(&app, &webhook_of(card)).await;
    let contact = poll(&app, &contact_uri(&app, &activity).await, |c| c["channels"][0]["channel_id"] == "5215550003").await;
    assert_eq!(contact["channels"][0]["user_id"], "MX.3");
    let timeline = app.get(&format!("/v1/activities/{}/messages", activity["id"].as_str().unwrap()), &app.a.secret).await;
    assert_eq!((&timeline.data()[0]["type"], &timeline.data()[0]["direction"]), (&json!("contacts"), &json!("inbound")), "the card stays");

    // A card of someone else, forwarded, is only a card.
    let forwarded = json!({"from_user_id": "MX.3", "id": "wamid.c3", "timestamp": (t + 2).to_string(), "type": "contacts", "contacts": [
        {"name": {"formatted_name": "Di"}, "phones": [{"wa_id": "5215550004"}]}]});
    signed_webhook(&app, &webhook_of(forwarded)).await;
    poll(&app, &format!("/v1/activities/{}/messages", activity["id"].as_str().unwrap()), |d| d.as_array().is_some_and(|a| a.len() == 3))
        .await;
    assert_eq!(contact_of(&app, &activity).await["channels"][0]["channel_id"], "5215550003");
}

async fn searches_ignore_accents_as_they_ignore_case(backend: &str) {
    let (server, app) = crate::messaging::start(backend).await;
    cloud_line(&app, &server, vec![]).await;
    let t = now() - 600;
    for (n, name) in ["Ana López", "José Núñez", "Lopes"].into_iter().enumerate() {
        let phone = format!("521555000{n}");
        let sender = Sender { phone: Some(&phone), name, ..Sender::default() };
        signed_webhook(&app, &webhook(sender, &format!("wamid.s{n}"), t + n as i64, "hola")).await;
    }
    poll(&app, "/v1/activities", |d| d.as_array().is_some_and(|a| a.len() == 3)).await;
    for (search, expected) in
        [("lopez", vec!["Ana López"]), ("LÓPEZ", vec!["Ana López"]), ("nunez", vec!["José Núñez"]), ("jose n", vec!["José Núñez"])]
    {
        for list in ["contacts", "activities"] {
            let r = app.get(&format!("/v1/{list}?search={}", urlencoding(search)), &app.a.secret).await;
            let names: Vec<&str> = r.data().as_array().unwrap().iter().map(|v| v["profile_name"].as_str().unwrap()).collect();
            assert_eq!(names, expected, "{list} ?search={search}");
        }
    }
}

fn urlencoding(raw: &str) -> String {
    raw.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

backend_tests!(
    identity_notices_move_the_contact_and_stay_on_the_timeline,
    a_card_shared_on_request_gives_the_contact_its_phone,
    searches_ignore_accents_as_they_ignore_case,
    a_customer_without_a_phone_is_one_contact_whatever_arrives_first,
    first_messages_of_a_new_user_racing_make_one_contact,
    a_malformed_user_id_sets_its_message_aside_and_no_other,
    sends_go_to_the_phone_while_one_is_known_else_to_the_user_id,
    user_ids_are_taken_as_addresses_and_malformed_ones_refused_by_field,
);
