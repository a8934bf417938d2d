//! WhatsApp templates, sends, campaign executions and webhooks end to end over HTTP, on both
//! backends, with the Cloud API adapter pointed at a fake Graph API (wiremock) started by each
//! test.

use std::time::{Duration, Instant};

use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_api::runtime::config::ApiConfig;
use parley_domain::model::{ActivityStatus, Line};
use serde_json::{Value, json};
use wiremock::matchers::{body_json, body_partial_json, header, method, path, query_param, query_param_is_missing};
use wiremock::{Mock, MockServer, ResponseTemplate};

pub(crate) const APP_SECRET: &str = "app-secret";
const VERIFY_TOKEN: &str = "verify-me";
pub(crate) const CLOUD_PHONE: &str = "106540352242922";
pub(crate) const CLOUD_WABA: &str = "102290129340398";
pub(crate) const TOKEN: &str = "EAAG-test-token";
pub(crate) const SANDBOX_PHONE: &str = "200000000000001";
pub(crate) const SANDBOX_WABA: &str = "300000000000001";
pub(crate) const B_PHONE: &str = "106540352249999";
pub(crate) const B_WABA: &str = "102290129349999";
/// 2026-01-01T00:00:00Z
pub(crate) const T0: i64 = 1_767_225_600;

// ---------- set-up ----------

pub(crate) async fn start(backend: &str) -> (MockServer, TestApp) {
    start_with(backend, ApiConfig::default()).await
}

/// [`start`] with `config`'s other settings.
pub(crate) async fn start_with(backend: &str, config: ApiConfig) -> (MockServer, TestApp) {
    let server = MockServer::start().await;
    let config = ApiConfig { whatsapp_verify_token: Some(VERIFY_TOKEN.into()), whatsapp_app_secret: Some(APP_SECRET.into()), ..config };
    let app = TestApp::build(backend, config, &server.uri()).await;
    (server, app)
}

pub(crate) fn templates_path(waba: &str) -> String {
    format!("/v23.0/{waba}/message_templates")
}

pub(crate) fn messages_path(phone: &str) -> String {
    format!("/v23.0/{phone}/messages")
}

/// order_update as the Graph API lists it.
fn order_update_wire(id: &str, language: &str) -> Value {
    json!({
        "id": id, "name": "order_update", "language": language, "status": "APPROVED", "category": "UTILITY",
        "parameter_format": "POSITIONAL",
        "components": [
            {"type": "HEADER", "format": "TEXT", "text": "Order {{1}}", "example": {"header_text": ["A-1"]}},
            {"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships on {{3}}.", "example": {"body_text": [["Ana", "A-1", "Friday"]]}},
            {"type": "FOOTER", "text": "Demo Shop"},
            {"type": "BUTTONS", "buttons": [
                {"type": "URL", "text": "Track order", "url": "https://shop.example.com/track/{{1}}"},
                {"type": "QUICK_REPLY", "text": "Thanks!"}
            ]}
        ]
    })
}

pub(crate) fn body_only_wire(id: &str, name: &str, status: &str, category: &str, text: &str) -> Value {
    json!({"id": id, "name": name, "language": "en_US", "status": status, "category": category,
        "components": [{"type": "BODY", "text": text}]})
}

/// order_update (9001), welcome (9002) and spring_sale (9003, PENDING).
pub(crate) fn standard_templates() -> Vec<Value> {
    vec![
        order_update_wire("9001", "en_US"),
        body_only_wire("9002", "welcome", "APPROVED", "MARKETING", "Welcome to {{1}}! Reply to this message to chat with us."),
        body_only_wire("9003", "spring_sale", "PENDING", "MARKETING", "Our spring sale starts {{1}}: 20% off everything."),
    ]
}

/// Adds agent A's Cloud line and syncs `templates` into it from the fake Graph API.
pub(crate) async fn cloud_line(app: &TestApp, server: &MockServer, templates: Vec<Value>) -> Line {
    let line = app.state.lines.add(&app.a.agent, CLOUD_PHONE, CLOUD_WABA, Some(TOKEN)).await.unwrap();
    let mock = Mock::given(method("GET"))
        .and(path(templates_path(CLOUD_WABA)))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": templates, "paging": {"cursors": {"before": "QVFI", "after": "QVFJ"}}})),
        )
        .expect(1)
        .mount_as_scoped(server)
        .await;
    assert_eq!(app.state.lines.sync_line(&line).await.unwrap(), templates.len());
    drop(mock);
    line
}

/// The send body for order_update with all its parameters.
pub(crate) fn order_send(to: &str, campaign: Option<&str>) -> Value {
    let mut body = json!({
        "to": to,
        "components": [
            {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
            {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "A-17"}, {"type": "text", "text": "Friday"}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "A-17"}]}
        ]
    });
    if let Some(key) = campaign {
        body["campaign"] = json!({"key": key, "name": "Order updates"});
    }
    body
}

const ORDER_PARSED: &str = "Order A-17\n\nHi Ana, your order A-17 ships on Friday.\n\nDemo Shop";

/// What the Graph API must receive for [`order_send`].
fn order_wire(to_digits: &str, campaign: Option<&str>) -> Value {
    let mut body = json!({
        "messaging_product": "whatsapp",
        "recipient_type": "individual",
        "to": to_digits,
        "type": "template",
        "template": {
            "name": "order_update",
            "language": {"code": "en_US"},
            "components": [
                {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
                {"type": "body", "parameters": [{"type": "text", "text": "Ana"}, {"type": "text", "text": "A-17"}, {"type": "text", "text": "Friday"}]},
                {"type": "button", "sub_type": "url", "index": "0", "parameters": [{"type": "text", "text": "A-17"}]}
            ]
        }
    });
    if let Some(key) = campaign {
        body["biz_opaque_callback_data"] = json!(key);
    }
    body
}

/// The platform's answer to an accepted send.
pub(crate) fn accepted(to: &str, wamid: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "messaging_product": "whatsapp",
        "contacts": [{"input": to, "wa_id": to}],
        "messages": [{"id": wamid, "message_status": "accepted"}]
    }))
}

/// Mounts a send mock for `to` answering `wamid`.
async fn accept_sends_to(server: &MockServer, to: &str, wamid: &str) {
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(body_partial_json(json!({"to": to})))
        .respond_with(accepted(to, wamid))
        .mount(server)
        .await;
}

/// Sends that reached the fake Graph API.
pub(crate) async fn sends_received(server: &MockServer) -> usize {
    server.received_requests().await.unwrap_or_default().iter().filter(|r| r.method.as_str() == "POST").count()
}

pub(crate) fn send_uri(template_id: &str) -> String {
    format!("/v1/templates/{template_id}/send")
}

pub(crate) fn executions_uri(key: &str, query: &str) -> String {
    if query.is_empty() { format!("/v1/campaigns/{key}/executions") } else { format!("/v1/campaigns/{key}/executions?{query}") }
}

/// RFC 3339 with milliseconds and Z, as the API writes timestamps.
pub(crate) fn ts(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0).unwrap().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

pub(crate) async fn post_webhook(app: &TestApp, body: &str, signature: Option<&str>) -> Reply {
    let mut req = TestRequest::post().uri("/webhooks/whatsapp").insert_header(("Content-Type", "application/json"));
    if let Some(sig) = signature {
        req = req.insert_header(("X-Hub-Signature-256", sig));
    }
    app.call(req.set_payload(body.to_string())).await
}

/// Posts a correctly signed webhook and expects it accepted.
pub(crate) async fn signed_webhook(app: &TestApp, body: &str) {
    let sig = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, body.as_bytes());
    let r = post_webhook(app, body, Some(&sig)).await;
    r.assert_status(200);
}

/// A webhook with several statuses for one line, each `(message id, status, unix time, errors)`.
pub(crate) fn statuses_webhook(phone: &str, waba: &str, key: &str, statuses: &[(&str, &str, i64)]) -> String {
    let statuses: Vec<Value> = statuses
        .iter()
        .map(|(id, status, at)| {
            json!({"id": id, "status": status, "timestamp": at.to_string(), "recipient_id": "14155550100",
                "biz_opaque_callback_data": key, "conversation": {"id": "c1", "origin": {"type": "utility"}},
                "pricing": {"billable": true, "pricing_model": "PMP", "category": "utility"}})
        })
        .collect();
    json!({"object": "whatsapp_business_account", "entry": [{"id": waba, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": phone},
        "statuses": statuses
    }}]}]})
    .to_string()
}

pub(crate) fn inbound_webhook(phone: &str, from: &str, name: &str, wamid: &str, at: i64) -> String {
    json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": phone},
        "contacts": [{"profile": {"name": name}, "wa_id": from}],
        "messages": [{"from": from, "id": wamid, "timestamp": at.to_string(), "type": "text", "text": {"body": "Is my order on its way?"}}]
    }}]}]})
    .to_string()
}

/// GETs `uri` until `done(data)` holds, for at most 10 s; fails with the last body seen.
pub(crate) async fn poll(app: &TestApp, uri: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = app.get(uri, &app.a.secret).await;
        if r.status == 200 && done(r.data()) {
            return r.data().clone();
        }
        assert!(Instant::now() < deadline, "gave up polling {uri}; last answer {}: {}", r.status, r.body);
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn by_message<'a>(executions: &'a Value, message_id: &str) -> &'a Value {
    executions
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["message_id"] == message_id)
        .unwrap_or_else(|| panic!("no execution of {message_id} in {executions}"))
}

fn contact_on<'a>(contacts: &'a Value, digits: &str) -> Option<&'a Value> {
    contacts.as_array().unwrap().iter().find(|c| c["channels"].as_array().unwrap().iter().any(|ch| ch["channel_id"] == digits))
}

pub(crate) fn issues(r: &Reply) -> Vec<(String, String)> {
    r.body["error"]["details"]
        .as_array()
        .map(|d| d.iter().map(|x| (x["field"].as_str().unwrap().to_string(), x["issue"].as_str().unwrap().to_string())).collect())
        .unwrap_or_default()
}

fn assert_timestamp_shape(value: &Value) {
    let s = value.as_str().unwrap_or_else(|| panic!("not a timestamp: {value}"));
    assert!(s.len() == 24 && s.ends_with('Z') && chrono::DateTime::parse_from_rfc3339(s).is_ok(), "RFC 3339 with ms and Z: {s}");
}

// ---------- 1. sync and listing ----------

async fn sync_follows_paging_lists_all_lines_templates_and_drops_removed_ones(backend: &str) {
    let (server, app) = start(backend).await;
    let cloud = app.state.lines.add(&app.a.agent, CLOUD_PHONE, CLOUD_WABA, Some(TOKEN)).await.unwrap();
    let sandbox = app.state.lines.add(&app.a.agent, SANDBOX_PHONE, SANDBOX_WABA, None).await.unwrap();

    // Two pages; the first names the second with an absolute `paging.next` URL.
    let next = format!("{}{}?limit=100&after=QVFIUkxPcGVu", server.uri(), templates_path(CLOUD_WABA));
    let page1 = Mock::given(method("GET"))
        .and(path(templates_path(CLOUD_WABA)))
        .and(query_param_is_missing("after"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [order_update_wire("1000004", "es_MX"), body_only_wire("1000003", "spring_sale", "PENDING", "MARKETING", "Sale {{1}}")],
            "paging": {"cursors": {"before": "QVFIUm", "after": "QVFIUkxPcGVu"}, "next": next}
        })))
        .expect(1)
        .mount_as_scoped(&server)
        .await;
    let page2 = Mock::given(method("GET"))
        .and(path(templates_path(CLOUD_WABA)))
        .and(query_param("after", "QVFIUkxPcGVu"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "data": [order_update_wire("1000001", "en_US"), body_only_wire("1000002", "welcome", "APPROVED", "MARKETING", "Welcome {{1}}!")],
            "paging": {"cursors": {"before": "QVFIUkxPcGVu", "after": "QVFIUkxPcGVz"}}
        })))
        .expect(1)
        .mount_as_scoped(&server)
        .await;
    assert_eq!(app.state.lines.sync_line(&cloud).await.unwrap(), 4, "both pages were read");
    drop((page1, page2));
    assert_eq!(app.state.lines.sync_line(&sandbox).await.unwrap(), 6);

    let r = app.get("/v1/templates", &app.a.secret).await;
    r.assert_status(200);
    let list = r.data().as_array().unwrap();
    let order: Vec<(&str, &str)> = list.iter().map(|t| (t["name"].as_str().unwrap(), t["language"].as_str().unwrap())).collect();
    assert_eq!(
        order,
        [
            ("cart_reminder", "en_US"),
            ("new_arrival", "en_US"),
            ("order_update", "en_US"),
            ("order_update", "en_US"),
            ("order_update", "es_MX"),
            ("spring_sale", "en_US"),
            ("spring_sale", "en_US"),
            ("verification_code", "en_US"),
            ("welcome", "en_US"),
            ("welcome", "en_US"),
        ],
        "all lines mixed, by name then language"
    );
    let mut owners: Vec<(String, String)> =
        list.iter().map(|t| (t["id"].as_str().unwrap().to_string(), t["channel_id"].as_str().unwrap().to_string())).collect();
    owners.sort();
    let c = cloud.id.as_str().to_string();
    let s = sandbox.id.as_str().to_string();
    assert_eq!(
        owners,
        [
            ("1000001".to_string(), c.clone()),
            ("1000002".to_string(), c.clone()),
            ("1000003".to_string(), c.clone()),
            ("1000004".to_string(), c.clone()),
            (format!("{SANDBOX_WABA}001"), s.clone()),
            (format!("{SANDBOX_WABA}002"), s.clone()),
            (format!("{SANDBOX_WABA}003"), s.clone()),
            (format!("{SANDBOX_WABA}004"), s.clone()),
            (format!("{SANDBOX_WABA}005"), s.clone()),
            (format!("{SANDBOX_WABA}006"), s.clone()),
        ]
    );
    for t in list {
        assert!(t["components"].as_array().unwrap().iter().all(|c| c["type"].is_string()), "{t}");
        assert_timestamp_shape(&t["created_at"]);
    }

    let r = app.get("/v1/templates/1000001", &app.a.secret).await;
    r.assert_status(200);
    let t = r.data();
    assert_eq!(
        (&t["id"], &t["name"], &t["language"], &t["status"], &t["category"], &t["channel_id"]),
        (&json!("1000001"), &json!("order_update"), &json!("en_US"), &json!("APPROVED"), &json!("UTILITY"), &json!(c))
    );
    assert_eq!(t["parameter_format"], "POSITIONAL");
    assert_eq!(
        t["components"],
        json!([
            {"type": "HEADER", "format": "TEXT", "text": "Order {{1}}"},
            {"type": "BODY", "text": "Hi {{1}}, your order {{2}} ships on {{3}}."},
            {"type": "FOOTER", "text": "Demo Shop"},
            {"type": "BUTTONS", "buttons": [
                {"type": "URL", "text": "Track order", "url": "https://shop.example.com/track/{{1}}"},
                {"type": "QUICK_REPLY", "text": "Thanks!"}
            ]}
        ])
    );
    assert_eq!(list.iter().find(|x| x["id"] == "1000001").unwrap(), t, "the single fetch equals the list item");
    app.get("/v1/templates/424242", &app.a.secret).await.assert_error(404, "NOT_FOUND");

    // The line's listing: approved templates of that line only.
    let r = app.get(&format!("/v1/lines/{c}/templates"), &app.a.secret).await;
    r.assert_status(200);
    let ids: Vec<&str> = r.data().as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["1000001", "1000004", "1000002"], "approved only, by name then language");
    // The older path answers the same.
    let older = app.get(&format!("/v1/channels/{c}/templates"), &app.a.secret).await;
    assert_eq!(older.data(), r.data(), "/v1/channels/{{channel_id}}/templates is an alias");
    app.get("/v1/lines/chn_unknown/templates", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    let r = app.get(&format!("/v1/channels/{s}/templates"), &app.a.secret).await;
    let ids: Vec<&str> = r.data().as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    let sandbox_id = |n: u32| format!("{SANDBOX_WABA}{n:03}");
    assert_eq!(ids, [sandbox_id(5), sandbox_id(4), sandbox_id(1), sandbox_id(6), sandbox_id(2)]);
    app.get("/v1/channels/chn_unknown/templates", &app.a.secret).await.assert_error(404, "NOT_FOUND");

    // Upstream drops es_MX: the next sync removes it here; the sandbox line is untouched.
    let _single = Mock::given(method("GET"))
        .and(path(templates_path(CLOUD_WABA)))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [
            order_update_wire("1000001", "en_US"),
            body_only_wire("1000002", "welcome", "APPROVED", "MARKETING", "Welcome {{1}}!"),
            body_only_wire("1000003", "spring_sale", "PENDING", "MARKETING", "Sale {{1}}")
        ]})))
        .expect(1)
        .mount_as_scoped(&server)
        .await;
    assert_eq!(app.state.lines.sync_line(&cloud).await.unwrap(), 3);
    app.get("/v1/templates/1000004", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    let r = app.get("/v1/templates", &app.a.secret).await;
    let ids: Vec<&str> = r.data().as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 9, "{ids:?}");
    assert!(!ids.contains(&"1000004"));
    let r = app.get(&format!("/v1/channels/{c}/templates"), &app.a.secret).await;
    let ids: Vec<&str> = r.data().as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["1000001", "1000002"]);
    server.verify().await;
}

// ---------- 2. sends ----------

async fn send_with_parameters_posts_the_exact_graph_request_and_creates_a_pending_contact(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let wamid = "wamid.HBgLMTQxNTU1NTAxMDAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA";
    let _campaign_send = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .and(header("content-type", "application/json"))
        .and(body_json(order_wire("14155550100", Some("orders-2026.05"))))
        .respond_with(accepted("14155550100", wamid))
        .expect(1)
        .mount_as_scoped(&server)
        .await;
    // welcome is a MARKETING template: sent through the Marketing Messages API.
    let _plain_send = Mock::given(method("POST"))
        .and(path(format!("/v23.0/{CLOUD_PHONE}/marketing_messages")))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .and(body_json(json!({
            "messaging_product": "whatsapp", "recipient_type": "individual", "to": "14155550100", "type": "template",
            "template": {"name": "welcome", "language": {"code": "en_US"},
                "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]}
        })))
        .respond_with(accepted("14155550100", "wamid.second"))
        .expect(1)
        .mount_as_scoped(&server)
        .await;

    let r = app.post(&send_uri("9001"), &app.a.secret, order_send("+1 415-555-0100", Some("orders-2026.05"))).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"data": {"message_sent": true, "message_id": wamid, "parsed_message": ORDER_PARSED}}));

    // The execution of a campaign send.
    let r = app.get(&executions_uri("orders-2026.05", ""), &app.a.secret).await;
    r.assert_status(200);
    let list = r.data().as_array().unwrap();
    assert_eq!(list.len(), 1, "{}", r.body);
    let e = &list[0];
    assert!(e["id"].as_str().unwrap().starts_with("exe_"), "{e}");
    assert_eq!(
        (&e["to"], &e["template_id"], &e["message_id"], &e["status"], &e["error_message"], &e["delivered_at"], &e["read_at"]),
        (&json!("14155550100"), &json!("9001"), &json!(wamid), &json!("sent"), &Value::Null, &Value::Null, &Value::Null)
    );
    assert_timestamp_shape(&e["sent_at"]);
    assert_timestamp_shape(&e["updated_at"]);

    // Someone new: a WhatsApp contact and a pending activity.
    let r = app.get("/v1/contacts", &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.data().as_array().unwrap().len(), 1, "{}", r.body);
    let contact = &r.data()[0];
    assert_eq!(
        contact["channels"],
        json!([{"channel_id": "14155550100", "channel_type": "whatsapp", "user_id": null, "parent_user_id": null, "username": null}])
    );
    let r = app.get("/v1/activities?search=14155550100", &app.a.secret).await;
    r.assert_status(200);
    let acts = r.data().as_array().unwrap();
    assert_eq!(acts.len(), 1, "{}", r.body);
    assert_eq!(acts[0]["status"], "pending");
    assert_eq!(acts[0]["channel_identifiers"], json!(["14155550100"]));

    // Without a campaign: no biz_opaque_callback_data; the same person keeps one contact and activity.
    let body = json!({"to": "14155550100", "components": [{"type": "body", "parameters": [{"type": "text", "text": "Demo Shop"}]}]});
    let r = app.post(&send_uri("9002"), &app.a.secret, body).await;
    r.assert_status(200);
    assert_eq!(
        r.body,
        json!({"data": {"message_sent": true, "message_id": "wamid.second", "parsed_message": "Welcome to Demo Shop! Reply to this message to chat with us."}})
    );
    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.data().as_array().unwrap().len(), 1);
    assert_eq!(app.get("/v1/activities", &app.a.secret).await.data().as_array().unwrap().len(), 1);
    assert_eq!(app.get(&executions_uri("orders-2026.05", ""), &app.a.secret).await.data().as_array().unwrap().len(), 1);
    server.verify().await;
}

async fn invalid_sends_are_400_naming_the_problem_and_reach_nothing(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let _no_send = Mock::given(method("POST")).respond_with(accepted("1", "wamid.never")).expect(0).mount_as_scoped(&server).await;

    let text = |t: &str| json!({"type": "text", "text": t});
    let header_c = json!({"type": "header", "parameters": [text("A-17")]});
    let body3 = json!({"type": "body", "parameters": [text("Ana"), text("A-17"), text("Friday")]});
    let button = json!({"type": "button", "sub_type": "url", "index": 0, "parameters": [text("A-17")]});
    let with = |to: Value, components: Value| json!({"to": to, "components": components});
    let cases: Vec<(Value, &str, &str)> = vec![
        // missing parameters
        (with(json!("14155550100"), json!([body3, button])), "components", "header needs 1"),
        (with(json!("14155550100"), json!([header_c, button])), "components", "body needs 3"),
        (with(json!("14155550100"), json!([header_c, body3])), "components", "button 0 needs 1"),
        (
            with(json!("14155550100"), json!([header_c, {"type": "body", "parameters": [text("Ana"), text("A-17")]}, button])),
            "components[1].parameters[2]",
            "is required: the template needs 3 parameter(s) here, got 2",
        ),
        // extra parameters
        (
            with(
                json!("14155550100"),
                json!([header_c, {"type": "body", "parameters": [text("a"), text("b"), text("c"), text("d")]}, button]),
            ),
            "components[1].parameters[3]",
            "is extra: the template needs 3 parameter(s) here, got 4",
        ),
        (
            with(json!("14155550100"), json!([{"type": "header", "parameters": [text("A"), text("B")]}, body3, button])),
            "components[0].parameters[1]",
            "is extra: the template needs 1 parameter(s) here, got 2",
        ),
        (with(json!("14155550100"), json!([header_c, body3, button, {"type": "footer", "parameters": []}])), "components[3].type", ""),
        // bad recipient
        (with(json!("12ab34"), json!([header_c, body3, button])), "to", ""),
        (with(json!("+1 415"), json!([header_c, body3, button])), "to", ""),
        (with(json!("1234567890123456"), json!([header_c, body3, button])), "to", ""),
        (json!({"components": [header_c, body3, button]}), "to", ""),
        // bad campaign
        (
            json!({"to": "14155550100", "components": [header_c, body3, button], "campaign": {"key": "has space", "name": "x"}}),
            "campaign.key",
            "",
        ),
        (
            json!({"to": "14155550100", "components": [header_c, body3, button], "campaign": {"key": "k".repeat(65), "name": "x"}}),
            "campaign.key",
            "",
        ),
        (json!({"to": "14155550100", "components": [header_c, body3, button], "campaign": {"key": "", "name": "x"}}), "campaign.key", ""),
        (json!({"to": "14155550100", "components": [header_c, body3, button], "campaign": {"key": "ok"}}), "campaign.name", ""),
        // unknown field
        (json!({"to": "14155550100", "components": [header_c, body3, button], "priority": "high"}), "priority", ""),
    ];
    for (body, field, issue) in cases {
        let r = app.post(&send_uri("9001"), &app.a.secret, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        let found = issues(&r);
        assert!(found.iter().any(|(f, i)| f == field && i.contains(issue)), "expected {field:?} ~ {issue:?} for {body}, got {found:?}");
    }
    // A button index that is neither an integer nor a string of digits is not JSON the API reads.
    for bad in [json!(0.5), json!("x"), json!("-1"), json!(""), json!("0.0"), json!(true)] {
        let mut body = order_send("14155550100", None);
        body["components"][2]["index"] = bad.clone();
        let r = app.post(&send_uri("9001"), &app.a.secret, body).await;
        assert_eq!((r.status, r.body["error"]["code"].as_str()), (400, Some("INVALID_JSON")), "index {bad}: {}", r.body);
    }
    // A value of the wrong type deep in the body is named by its exact place.
    let mut body = order_send("14155550100", None);
    body["components"][1]["parameters"][2]["text"] = json!(5);
    let r = app.post(&send_uri("9001"), &app.a.secret, body).await;
    r.assert_error(400, "INVALID_JSON");
    assert_eq!(issues(&r), [("components[1].parameters[2].text".to_string(), "invalid type: integer `5`, expected a string".to_string())]);
    let r = app.post(&send_uri("9001"), &app.a.secret, json!({"to": "14155550100", "components": {"type": "body"}})).await;
    r.assert_error(400, "INVALID_JSON");
    assert_eq!(issues(&r)[0].0, "components");

    // Only the named problem is reported for a send that is otherwise right.
    let r = app.post(&send_uri("9001"), &app.a.secret, order_send("12ab34", None)).await;
    assert_eq!(issues(&r).iter().map(|(f, _)| f.as_str()).collect::<Vec<_>>(), ["to"], "{}", r.body);

    assert_eq!(sends_received(&server).await, 0, "nothing reached the platform");
    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.data().as_array().unwrap().len(), 0, "no contact was created");
    app.get(&executions_uri("ok", ""), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    server.verify().await;
}

async fn a_template_that_is_not_approved_is_422_and_not_sent(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let _no_send = Mock::given(method("POST")).respond_with(accepted("1", "wamid.never")).expect(0).mount_as_scoped(&server).await;
    let body = json!({"to": "14155550100", "components": [{"type": "body", "parameters": [{"type": "text", "text": "Monday"}]}],
        "campaign": {"key": "spring", "name": "Spring"}});
    let r = app.post(&send_uri("9003"), &app.a.secret, body).await;
    r.assert_error(422, "TEMPLATE_NOT_APPROVED");
    assert_eq!(sends_received(&server).await, 0);
    app.get(&executions_uri("spring", ""), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.data().as_array().unwrap().len(), 0);
    app.post(&send_uri("424242"), &app.a.secret, order_send("14155550100", None)).await.assert_error(404, "NOT_FOUND");
    server.verify().await;
}

async fn template_notices_update_the_stored_template_at_once_and_are_announced(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let notice = |field: &str, value: Value| {
        json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "time": T0, "changes": [{"field": field, "value": value}]}]})
            .to_string()
    };
    async fn updated(app: &TestApp) -> Value {
        app.get("/v1/events?type=template.updated", &app.a.secret).await.body["pagination"]["total"].clone()
    }
    async fn template(app: &TestApp, id: &str) -> Value {
        app.get(&format!("/v1/templates/{id}"), &app.a.secret).await.data().clone()
    }
    assert_eq!(template(&app, "9003").await["status"], "PENDING");

    // Approved: sendable at once, without a sync.
    signed_webhook(
        &app,
        &notice(
            "message_template_status_update",
            json!({"event": "APPROVED", "message_template_id": 9003,
        "message_template_name": "spring_sale", "message_template_language": "en_US", "reason": "NONE"}),
        ),
    )
    .await;
    assert_eq!(template(&app, "9003").await["status"], "APPROVED");
    assert_eq!(updated(&app).await, 1);
    // Paused: refused at once.
    signed_webhook(
        &app,
        &notice(
            "message_template_status_update",
            json!({"event": "PAUSED", "message_template_id": "9001",
        "message_template_name": "order_update", "message_template_language": "en_US", "reason": "LOW_QUALITY"}),
        ),
    )
    .await;
    app.post(&send_uri("9001"), &app.a.secret, order_send("14155550100", None)).await.assert_error(422, "TEMPLATE_NOT_APPROVED");
    // A new category.
    signed_webhook(
        &app,
        &notice(
            "template_category_update",
            json!({"message_template_id": 9002, "message_template_name": "welcome",
        "message_template_language": "en_US", "previous_category": "MARKETING", "new_category": "UTILITY"}),
        ),
    )
    .await;
    assert_eq!(template(&app, "9002").await["category"], "UTILITY");
    assert_eq!(updated(&app).await, 3);

    // The same notice again, a quality notice, an unknown template, another account, or a
    // notice of another shape: answered, nothing changes, nothing announced.
    for body in [
        notice("template_category_update", json!({"message_template_id": 9002, "new_category": "UTILITY"})),
        notice("message_template_quality_update", json!({"message_template_id": 9001, "new_quality_score": "RED"})),
        notice("message_template_status_update", json!({"event": "REJECTED", "message_template_id": 424242})),
        notice("message_template_status_update", json!({"event": ["odd"], "message_template_id": 9001})),
        notice("template_category_update", json!("odd")),
        json!({"object": "whatsapp_business_account", "entry": [{"id": B_WABA, "changes": [{"field": "message_template_status_update",
            "value": {"event": "REJECTED", "message_template_id": 9001}}]}]})
        .to_string(),
    ] {
        signed_webhook(&app, &body).await;
    }
    assert_eq!(updated(&app).await, 3);
    assert_eq!(template(&app, "9001").await["status"], "PAUSED");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

// ---------- 5. platform errors ----------

pub(crate) fn graph_error(status: u16, code: i64, message: &str, details: Option<&str>) -> ResponseTemplate {
    let mut error = json!({"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "AbCdEf123"});
    if let Some(d) = details {
        error["error_data"] = json!({"messaging_product": "whatsapp", "details": d});
    }
    ResponseTemplate::new(status).set_body_json(json!({"error": error}))
}

/// Mounts `response` as the only answer to sends (exactly one request expected), sends, and
/// returns the API's reply.
async fn send_against(app: &TestApp, server: &MockServer, response: ResponseTemplate, campaign: Option<&str>) -> Reply {
    server.reset().await;
    let mock =
        Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(response).expect(1).mount_as_scoped(server).await;
    let r = app.post(&send_uri("9001"), &app.a.secret, order_send("14155550100", campaign)).await;
    drop(mock); // verifies: exactly one attempt, never retried
    r
}

async fn platform_refusals_are_422_message_rejected_with_the_platform_code(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;

    let r = send_against(&app, &server, graph_error(400, 131026, "(#131026) Message undeliverable", None), None).await;
    r.assert_error(422, "MESSAGE_REJECTED");
    let d = issues(&r);
    assert!(d.iter().any(|(f, i)| f.contains("code") && i == "131026"), "details name the platform code: {d:?}");
    assert!(d.iter().any(|(_, i)| i.contains("Message undeliverable")), "and its text: {d:?}");

    let details = "body: number of localizable_params (2) does not match the expected number of params (3)";
    let r = send_against(
        &app,
        &server,
        graph_error(400, 132000, "(#132000) Number of parameters does not match the expected number of params", Some(details)),
        None,
    )
    .await;
    r.assert_error(422, "MESSAGE_REJECTED");
    let d = issues(&r);
    assert!(d.iter().any(|(f, i)| f.contains("code") && i == "132000"), "{d:?}");
    assert!(d.iter().any(|(_, i)| i == details), "error_data.details reach the caller: {d:?}");

    let r = send_against(
        &app,
        &server,
        graph_error(401, 190, "Error validating access token: Session has expired on Friday, 01-May-26 10:00:00 PDT.", None),
        None,
    )
    .await;
    r.assert_error(422, "MESSAGE_REJECTED");
    let d = issues(&r);
    assert!(d.iter().any(|(f, i)| f.contains("code") && i == "190"), "{d:?}");
    assert!(!r.body.to_string().contains(TOKEN), "the token never leaks");

    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.data().as_array().unwrap().len(), 0, "refused sends create no contact");
}

async fn platform_failures_and_timeouts_are_502_upstream_error(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;

    let r = send_against(&app, &server, graph_error(500, 1, "An unknown error occurred", None), None).await;
    r.assert_error(502, "UPSTREAM_ERROR");
    let r = send_against(&app, &server, ResponseTemplate::new(503).set_body_string("<html>Service Unavailable</html>"), None).await;
    r.assert_error(502, "UPSTREAM_ERROR");

    let started = Instant::now();
    let slow = accepted("14155550100", "wamid.late").set_delay(Duration::from_millis(2000));
    let r = send_against(&app, &server, slow, None).await;
    r.assert_error(502, "UPSTREAM_ERROR");
    assert!(started.elapsed() < Duration::from_millis(1900), "the 800 ms timeout cut the wait: {:?}", started.elapsed());
    assert_eq!(app.get("/v1/contacts", &app.a.secret).await.data().as_array().unwrap().len(), 0);
}

async fn a_refusal_under_a_campaign_records_a_failed_execution_and_an_outage_records_nothing(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;

    let r = send_against(&app, &server, graph_error(400, 131026, "(#131026) Message undeliverable", None), Some("refused-1")).await;
    r.assert_error(422, "MESSAGE_REJECTED");
    let r = app.get(&executions_uri("refused-1", ""), &app.a.secret).await;
    r.assert_status(200);
    let list = r.data().as_array().unwrap();
    assert_eq!(list.len(), 1, "{}", r.body);
    let e = &list[0];
    assert_eq!(
        (&e["status"], &e["message_id"], &e["to"], &e["template_id"], &e["sent_at"], &e["delivered_at"], &e["read_at"]),
        (&json!("failed"), &Value::Null, &json!("14155550100"), &json!("9001"), &Value::Null, &Value::Null, &Value::Null),
        "{e}"
    );
    let reason = e["error_message"].as_str().unwrap_or_else(|| panic!("a failed execution carries its reason: {e}"));
    assert!(reason.contains("131026") && reason.contains("Message undeliverable"), "{reason}");
    assert_timestamp_shape(&e["updated_at"]);

    let r = send_against(&app, &server, ResponseTemplate::new(500), Some("outage-1")).await;
    r.assert_error(502, "UPSTREAM_ERROR");
    app.get(&executions_uri("outage-1", ""), &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

// ---------- 6. idempotency ----------

/// `0` (client libraries), `"0"` (the platform's own examples) and `0.0` (Python's `json.dumps`
/// of a float) name the same button: each sends the exact same wire body.
async fn a_button_index_as_a_number_a_string_or_an_integral_float_is_the_same_button(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let _send = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .and(body_json(order_wire("14155550100", None)))
        .respond_with(accepted("14155550100", "wamid.same"))
        .expect(3)
        .mount_as_scoped(&server)
        .await;
    for index in [json!(0), json!("0"), json!(0.0)] {
        let mut body = order_send("14155550100", None);
        body["components"][2]["index"] = index.clone();
        let r = app.post(&send_uri("9001"), &app.a.secret, body).await;
        assert_eq!(r.status, 200, "index {index}: {}", r.body);
    }
    server.verify().await;
}

async fn an_idempotent_retry_sends_once_and_replays_the_first_answer(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let _send = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(accepted("14155550100", "wamid.once"))
        .expect(1)
        .mount_as_scoped(&server)
        .await;
    let send = |body: Value, key: &'static str| {
        TestRequest::post()
            .uri("/v1/templates/9001/send")
            .insert_header(("X-API-Key", app.a.secret.as_str()))
            .insert_header(("Idempotency-Key", key))
            .set_json(body)
    };
    let first = app.call(send(order_send("14155550100", Some("idem")), "retry-7f3a")).await;
    first.assert_status(200);
    assert_eq!(first.header("idempotent-replayed"), None);
    assert_eq!(first.data()["message_id"], "wamid.once");
    let second = app.call(send(order_send("14155550100", Some("idem")), "retry-7f3a")).await;
    second.assert_status(200);
    assert_eq!(second.body, first.body, "the first answer again");
    assert_eq!(second.header("idempotent-replayed"), Some("true"));

    let other = app.call(send(order_send("14155550199", Some("idem")), "retry-7f3a")).await;
    other.assert_error(409, "CONFLICT");

    assert_eq!(sends_received(&server).await, 1, "one message upstream");
    assert_eq!(app.get(&executions_uri("idem", ""), &app.a.secret).await.data().as_array().unwrap().len(), 1, "one execution");
    server.verify().await;
}

/// A first request still unanswered after the lease was cut (a crash, a shutdown past its
/// deadline): a retry must not send again, and is answered 502 with why, which later retries
/// replay. Here the first is only slow, and the clock is moved past the lease while it waits.
async fn a_retry_after_a_cut_first_request_is_502_and_never_sends_again(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let slow = accepted("14155550100", "wamid.slow").set_delay(Duration::from_millis(600));
    let _send =
        Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(slow).expect(1).mount_as_scoped(&server).await;
    let send = || {
        TestRequest::post()
            .uri("/v1/templates/9001/send")
            .insert_header(("X-API-Key", app.a.secret.as_str()))
            .insert_header(("Idempotency-Key", "cut-1"))
            .set_json(order_send("14155550100", None))
    };
    let retries = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let running = app.call(send()).await;
        app.clock.advance(parley_domain::services::IdempotencyService::LEASE + chrono::TimeDelta::seconds(1));
        let cut = app.call(send()).await;
        let replayed = app.call(send()).await;
        (running, cut, replayed)
    };
    let (first, (running, cut, replayed)) = tokio::join!(app.call(send()), retries);
    running.assert_error(409, "CONFLICT");
    assert!(running.body["error"]["message"].as_str().unwrap().contains("still being processed"), "{}", running.body);
    cut.assert_error(502, "UPSTREAM_ERROR");
    assert!(cut.body["error"]["message"].as_str().unwrap().contains("interrupted"), "{}", cut.body);
    assert_eq!(cut.header("idempotent-replayed"), None, "the first answer given for the key");
    assert_eq!((replayed.status, &replayed.body), (502, &cut.body), "later retries replay it");
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    first.assert_status(200);
    assert_eq!(sends_received(&server).await, 1, "one message upstream, whatever the retries");
}

// ---------- 7. webhooks ----------

async fn the_webhook_handshake_echoes_the_challenge_only_for_the_verify_token(backend: &str) {
    let (_server, app) = start(backend).await;
    let get = |q: &str| app.call(TestRequest::get().uri(&format!("/webhooks/whatsapp?{q}")));
    let r = get("hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=123").await;
    r.assert_status(200);
    assert_eq!(r.body, json!(123), "the body is exactly the challenge");
    let r = get("hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444").await;
    assert_eq!((r.status, r.body.clone()), (200, json!(1158201444u64)));

    // The refusal says what was wrong with the handshake: no API key is involved here.
    for (query, says) in [
        ("hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=123", "hub.verify_token does not match"),
        ("hub.mode=subscribe&hub.challenge=123", "hub.verify_token does not match"),
        ("hub.mode=unsubscribe&hub.verify_token=verify-me&hub.challenge=123", "needs hub.mode=subscribe and a hub.challenge"),
        ("hub.mode=subscribe&hub.verify_token=verify-me", "needs hub.mode=subscribe and a hub.challenge"),
    ] {
        let r = get(query).await;
        r.assert_error(403, "FORBIDDEN");
        let message = r.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(says) && !message.contains("key"), "{query}: {message}");
    }
}

async fn unsigned_or_badly_signed_webhooks_are_401_and_change_nothing(backend: &str) {
    let (server, app) = start(backend).await;
    let line = cloud_line(&app, &server, standard_templates()).await;
    accept_sends_to(&server, "14155550100", "wamid.sig").await;
    app.post(&send_uri("9001"), &app.a.secret, order_send("14155550100", Some("sig"))).await.assert_status(200);

    let read = parley_adapters_whatsapp::status_webhook(&line, "wamid.sig", "read", "14155550100", Some("sig"), T0 + 60);
    let inbound = inbound_webhook(CLOUD_PHONE, "16315551234", "Kerry Fisher", "wamid.in", T0);
    for body in [&read, &inbound] {
        let good = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, body.as_bytes());
        let other_secret = parley_adapters_whatsapp::webhook_auth::sign("not-the-secret", body.as_bytes());
        let other_body = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, format!("{body} ").as_bytes());
        let bad = [
            None,
            Some(other_secret.as_str()),
            Some(other_body.as_str()),
            Some(good.trim_start_matches("sha256=")),
            Some("sha256=zz"),
            Some("sha1=0123456789abcdef0123456789abcdef01234567"),
        ];
        for sig in bad {
            let r = post_webhook(&app, body, sig).await;
            r.assert_error(401, "UNAUTHORIZED");
            // Deliveries are authenticated by their signature; an API key would not help.
            let message = r.body["error"]["message"].as_str().unwrap();
            assert!(message.contains("X-Hub-Signature-256") && !message.contains("X-API-Key"), "{message}");
        }
    }
    // A properly signed delivered comes after: had any refused read been stored, it would have
    // been processed first and the record would read `read`.
    app.tick();
    signed_webhook(&app, &parley_adapters_whatsapp::status_webhook(&line, "wamid.sig", "delivered", "14155550100", Some("sig"), T0 + 30))
        .await;
    let list = poll(&app, &executions_uri("sig", ""), |d| d[0]["status"] != "sent").await;
    assert_eq!((&list[0]["status"], &list[0]["read_at"]), (&json!("delivered"), &Value::Null), "{list}");
    assert_eq!(list[0]["delivered_at"], ts(T0 + 30));
    assert!(contact_on(app.get("/v1/contacts", &app.a.secret).await.data(), "16315551234").is_none(), "the inbound was not stored");
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty());
}

/// A delivery over 1 MiB is 413 in the API's error shape (it was actix's plain text), whether
/// its length is announced or only found out while reading; one just under the limit is taken.
async fn webhooks_over_one_mib_are_413_in_the_error_shape(backend: &str) {
    let (_server, app) = start(backend).await;
    let big = format!("{{\"object\":\"{}\"}}", "x".repeat(1024 * 1024));
    let signature = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, big.as_bytes());
    let announced = TestRequest::post()
        .uri("/webhooks/whatsapp")
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("X-Hub-Signature-256", signature.clone()))
        .set_payload(big.clone());
    app.call(announced).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    let streamed = TestRequest::post()
        .uri("/webhooks/whatsapp")
        .insert_header(("Content-Type", "application/json"))
        .insert_header(("X-Hub-Signature-256", signature))
        .set_payload(big.clone());
    let mut streamed = streamed.to_request();
    streamed.headers_mut().remove("content-length");
    let r = app.call_request(streamed).await;
    r.assert_error(413, "PAYLOAD_TOO_LARGE");
    let just_fits = format!("{{\"object\":\"{}\"}}", "x".repeat(1024 * 1024 - 20));
    signed_webhook(&app, &just_fits).await;
}

async fn status_webhooks_move_executions_forward_once_each_whatever_their_order(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let key = "spring-2026";
    for (to, wamid) in [("14155550101", "wamid.m1"), ("14155550102", "wamid.m2"), ("14155550103", "wamid.m3")] {
        accept_sends_to(&server, to, wamid).await;
        app.post(&send_uri("9001"), &app.a.secret, order_send(to, Some(key))).await.assert_status(200);
    }
    let status = |changes: &[(&str, &str, i64)]| statuses_webhook(CLOUD_PHONE, CLOUD_WABA, key, changes);

    // Initial state; `since` = the newest updated_at seen.
    let r = app.get(&executions_uri(key, ""), &app.a.secret).await;
    r.assert_status(200);
    let initial = r.data().clone();
    let ids: Vec<&str> = initial.as_array().unwrap().iter().map(|e| e["message_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["wamid.m1", "wamid.m2", "wamid.m3"], "by updated_at ascending");
    let sent_at: Vec<Value> = initial.as_array().unwrap().iter().map(|e| e["sent_at"].clone()).collect();
    let mut since = initial[2]["updated_at"].as_str().unwrap().to_string();

    // Polls with `since` until something changed; asserts it is exactly `expected` (message ids)
    // and that polling again right away returns nothing.
    async fn changes(app: &TestApp, key: &str, since: &mut String, expected: &[&str]) -> Vec<Value> {
        let uri = executions_uri(key, &format!("since={since}"));
        let seen = poll(app, &uri, |d| !d.as_array().unwrap().is_empty()).await;
        let ids: Vec<&str> = seen.as_array().unwrap().iter().map(|e| e["message_id"].as_str().unwrap()).collect();
        assert_eq!(ids, expected, "each change exactly once: {seen}");
        let newest = seen.as_array().unwrap().last().unwrap()["updated_at"].as_str().unwrap().to_string();
        assert!(newest > *since, "updated_at moves forward: {newest} after {since}");
        *since = newest;
        let again = app.get(&executions_uri(key, &format!("since={since}")), &app.a.secret).await;
        again.assert_status(200);
        assert_eq!(again.data(), &json!([]), "nothing new since {since}");
        seen.as_array().unwrap().clone()
    }
    let r = app.get(&executions_uri(key, &format!("since={since}")), &app.a.secret).await;
    assert_eq!(r.data(), &json!([]), "nothing changed yet");

    // delivered, then read.
    signed_webhook(&app, &status(&[("wamid.m1", "delivered", T0 + 10)])).await;
    let seen = changes(&app, key, &mut since, &["wamid.m1"]).await;
    assert_eq!(
        (&seen[0]["status"], &seen[0]["delivered_at"], &seen[0]["read_at"]),
        (&json!("delivered"), &json!(ts(T0 + 10)), &Value::Null)
    );
    signed_webhook(&app, &status(&[("wamid.m1", "read", T0 + 20)])).await;
    let seen = changes(&app, key, &mut since, &["wamid.m1"]).await;
    assert_eq!(
        (&seen[0]["status"], &seen[0]["delivered_at"], &seen[0]["read_at"]),
        (&json!("read"), &json!(ts(T0 + 10)), &json!(ts(T0 + 20)))
    );

    // read before delivered: delivered_at = the read time.
    signed_webhook(&app, &status(&[("wamid.m2", "read", T0 + 30)])).await;
    let seen = changes(&app, key, &mut since, &["wamid.m2"]).await;
    assert_eq!(
        (&seen[0]["status"], &seen[0]["delivered_at"], &seen[0]["read_at"]),
        (&json!("read"), &json!(ts(T0 + 30)), &json!(ts(T0 + 30)))
    );
    // The delivered report processed after it carries the real, earlier time: delivered_at is
    // the earliest time known delivered, the status stays read.
    signed_webhook(&app, &status(&[("wamid.m2", "delivered", T0 + 25)])).await;
    let seen = changes(&app, key, &mut since, &["wamid.m2"]).await;
    assert_eq!(
        (&seen[0]["status"], &seen[0]["delivered_at"], &seen[0]["read_at"]),
        (&json!("read"), &json!(ts(T0 + 25)), &json!(ts(T0 + 30)))
    );

    // Late and duplicated reports change nothing; a later change to m3 is the only news.
    signed_webhook(
        &app,
        &status(&[
            ("wamid.m2", "delivered", T0 + 25),
            ("wamid.m2", "delivered", T0 + 28),
            ("wamid.m1", "delivered", T0 + 10),
            ("wamid.m1", "read", T0 + 20),
            ("wamid.m1", "sent", T0),
        ]),
    )
    .await;
    signed_webhook(&app, &status(&[("wamid.m2", "read", T0 + 30), ("wamid.m1", "delivered", T0 + 50)])).await;
    app.tick();
    signed_webhook(&app, &status(&[("wamid.m3", "delivered", T0 + 40)])).await;
    let seen = changes(&app, key, &mut since, &["wamid.m3"]).await;
    assert_eq!((&seen[0]["status"], &seen[0]["delivered_at"]), (&json!("delivered"), &json!(ts(T0 + 40))));

    // failed, with errors[0] as the reason; failed is final.
    let failed = json!({"object": "whatsapp_business_account", "entry": [{"id": CLOUD_WABA, "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "15550001111", "phone_number_id": CLOUD_PHONE},
        "statuses": [{"id": "wamid.m3", "status": "failed", "timestamp": (T0 + 45).to_string(), "recipient_id": "14155550103",
            "biz_opaque_callback_data": key,
            "errors": [{"code": 131047, "title": "Re-engagement message", "message": "Re-engagement message",
                "error_data": {"details": "Message failed to send because more than 24 hours have passed since the customer last replied."}}]}]
    }}]}]})
    .to_string();
    signed_webhook(&app, &failed).await;
    let seen = changes(&app, key, &mut since, &["wamid.m3"]).await;
    assert_eq!(seen[0]["status"], "failed");
    let reason = seen[0]["error_message"].as_str().unwrap_or_else(|| panic!("errors[0] becomes error_message: {}", seen[0]));
    assert!(reason.contains("131047") && reason.contains("Re-engagement message") && reason.contains("more than 24 hours"), "{reason}");

    // The whole picture: statuses never went backwards, sent_at never changed.
    let all = app.get(&executions_uri(key, ""), &app.a.secret).await.data().clone();
    let m1 = by_message(&all, "wamid.m1");
    let m2 = by_message(&all, "wamid.m2");
    let m3 = by_message(&all, "wamid.m3");
    assert_eq!((&m1["status"], &m1["delivered_at"], &m1["read_at"]), (&json!("read"), &json!(ts(T0 + 10)), &json!(ts(T0 + 20))));
    assert_eq!((&m2["status"], &m2["delivered_at"], &m2["read_at"]), (&json!("read"), &json!(ts(T0 + 25)), &json!(ts(T0 + 30))));
    assert_eq!((&m3["status"], &m3["delivered_at"], &m3["read_at"]), (&json!("failed"), &json!(ts(T0 + 40)), &Value::Null));
    let order: Vec<&str> = all.as_array().unwrap().iter().map(|e| e["message_id"].as_str().unwrap()).collect();
    assert_eq!(order, ["wamid.m1", "wamid.m2", "wamid.m3"], "by updated_at ascending");
    assert_eq!(all.as_array().unwrap().iter().map(|e| e["sent_at"].clone()).collect::<Vec<_>>(), sent_at);
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty(), "every webhook was processed");
}

// ---------- 8. inbound messages ----------

async fn inbound_messages_create_or_reopen_the_contact_and_ignore_unknown_lines(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;

    // Someone new writes: a WhatsApp contact with their profile name and an open activity.
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "16315551234", "Kerry Fisher", "wamid.in1", T0)).await;
    let contacts = poll(&app, "/v1/contacts", |d| contact_on(d, "16315551234").is_some()).await;
    let contact = contact_on(&contacts, "16315551234").unwrap();
    assert_eq!(contact["profile_name"], "Kerry Fisher");
    assert_eq!(
        contact["channels"],
        json!([{"channel_id": "16315551234", "channel_type": "whatsapp", "user_id": null, "parent_user_id": null, "username": null}])
    );
    // Processing is asynchronous: the contact is written before its activity.
    let acts = poll(&app, "/v1/activities?search=16315551234", |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    let acts = acts.as_array().unwrap();
    assert_eq!(acts.len(), 1, "{acts:?}");
    assert_eq!(acts[0]["status"], "open");
    let r = app.get(&format!("/v1/activities/{}", acts[0]["id"].as_str().unwrap()), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.data()["last_inbound_at"], ts(T0), "the event's time");
    assert_eq!(r.data()["contact_id"], contact["id"]);

    // A known contact with a closed activity writes: the same activity reopens.
    let (contact_id, activity_id) = app.conversation(&app.a, "Lee", ("whatsapp", "14155550123"), ActivityStatus::Closed).await;
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "14155550123", "Lee Park", "wamid.in2", T0 + 120)).await;
    let activity_uri = format!("/v1/activities/{activity_id}");
    let a = poll(&app, &activity_uri, |d| d["status"] == "open").await;
    assert_eq!(a["last_inbound_at"], ts(T0 + 120));
    assert_eq!(a["profile_name"], "Lee Park", "the profile name is kept current");
    assert_eq!(app.get(&format!("/v1/contacts/{contact_id}"), &app.a.secret).await.data()["profile_name"], "Lee Park");
    assert_eq!(app.get("/v1/activities?search=14155550123", &app.a.secret).await.data().as_array().unwrap().len(), 1, "no second activity");

    // A line nobody has: 200, and nothing changes anywhere.
    let stranger = inbound_webhook("999000999000999", "16505550000", "Stranger", "wamid.in3", T0);
    let r = post_webhook(&app, &stranger, Some(&parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, stranger.as_bytes()))).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"received": true}));
    app.tick();
    signed_webhook(&app, &inbound_webhook(CLOUD_PHONE, "16505550001", "Marker", "wamid.in4", T0)).await;
    let contacts = poll(&app, "/v1/contacts", |d| contact_on(d, "16505550001").is_some()).await;
    assert!(contact_on(&contacts, "16505550000").is_none(), "{contacts}");
    assert_eq!(contacts.as_array().unwrap().len(), 3, "Kerry, Lee and the marker: {contacts}");
    assert_eq!(app.get("/v1/contacts", &app.b.secret).await.data(), &json!([]));
    assert!(app.state.inbound.failed(10).await.unwrap().is_empty(), "an unknown line is not a failure");
}

// ---------- 9. executions endpoint ----------

async fn the_executions_endpoint_validates_since_and_limit_and_orders_by_updated_at(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    app.get(&executions_uri("never-used", ""), &app.a.secret).await.assert_error(404, "NOT_FOUND");

    let tos = ["14155550111", "14155550112", "14155550113"];
    for (i, to) in tos.iter().enumerate() {
        accept_sends_to(&server, to, &format!("wamid.o{i}")).await;
        app.post(&send_uri("9001"), &app.a.secret, order_send(to, Some("orders"))).await.assert_status(200);
        app.tick();
    }
    let r = app.get(&executions_uri("orders", ""), &app.a.secret).await;
    r.assert_status(200);
    let all = r.data().as_array().unwrap().clone();
    let to_order: Vec<&str> = all.iter().map(|e| e["to"].as_str().unwrap()).collect();
    assert_eq!(to_order, tos, "updated_at ascending by default");
    let stamps: Vec<&str> = all.iter().map(|e| e["updated_at"].as_str().unwrap()).collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "{stamps:?}");

    for q in ["since=yesterday", "since=2026-01-01", "since=2026-01-01T00:00:00", "since=1767225600", "since="] {
        let r = app.get(&executions_uri("orders", q), &app.a.secret).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(issues(&r)[0].0, "since", "{q}: {}", r.body);
    }
    for q in ["limit=0", "limit=1001", "limit=-1", "limit=ten", "limit=1.5"] {
        let r = app.get(&executions_uri("orders", q), &app.a.secret).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(issues(&r)[0].0, "limit", "{q}: {}", r.body);
    }
    let r = app.get(&executions_uri("orders", "limit=2"), &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().iter().map(|e| e["to"].as_str().unwrap()).collect::<Vec<_>>(), &tos[..2]);
    assert_eq!(app.get(&executions_uri("orders", "limit=1000"), &app.a.secret).await.data().as_array().unwrap().len(), 3);
    let r = app.get(&executions_uri("orders", "since=2000-01-01T00:00:00%2B02:00&limit=1"), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.data().as_array().unwrap().len(), 1);
    let r = app.get(&executions_uri("orders", &format!("since={}", stamps[0])), &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 2, "strictly after since: {}", r.body);
    let r = app.get(&executions_uri("orders", "since=2100-01-01T00:00:00.000Z"), &app.a.secret).await;
    assert_eq!((r.status, r.data()), (200, &json!([])), "{}", r.body);
    // Any valid RFC 3339 time is a valid `since`, however far ahead.
    let r = app.get(&executions_uri("orders", "since=2999-01-01T00:00:00.000Z"), &app.a.secret).await;
    assert_eq!((r.status, r.data()), (200, &json!([])), "{}", r.body);
}

// ---------- 10. sandbox ----------

async fn a_sandbox_send_moves_to_delivered_and_read_without_the_network(backend: &str) {
    let (server, app) = start(backend).await;
    let line = app.state.lines.add(&app.a.agent, SANDBOX_PHONE, SANDBOX_WABA, None).await.unwrap();
    assert_eq!(app.state.lines.sync_line(&line).await.unwrap(), 6);
    let r = app.get(&format!("/v1/channels/{}/templates", line.id.as_str()), &app.a.secret).await;
    let names: Vec<&str> = r.data().as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["cart_reminder", "new_arrival", "order_update", "verification_code", "welcome"]);

    let template = format!("{SANDBOX_WABA}001");
    let r = app.post(&send_uri(&template), &app.a.secret, order_send("+44 7700 900123", Some("sandbox-demo"))).await;
    r.assert_status(200);
    assert_eq!(r.data()["message_sent"], true);
    assert_eq!(r.data()["parsed_message"], ORDER_PARSED);
    let message_id = r.data()["message_id"].as_str().unwrap().to_string();
    assert!(message_id.starts_with("wamid.") && message_id.len() > 20, "{message_id}");

    let list = poll(&app, &executions_uri("sandbox-demo", ""), |d| d[0]["status"] == "read").await;
    let e = &list.as_array().unwrap()[0];
    assert_eq!((&e["message_id"], &e["to"], &e["template_id"]), (&json!(message_id), &json!("447700900123"), &json!(template)));
    assert_timestamp_shape(&e["delivered_at"]);
    assert_timestamp_shape(&e["read_at"]);
    // The platform's event times have whole seconds.
    assert!(e["sent_at"].as_str().unwrap()[..19] <= e["delivered_at"].as_str().unwrap()[..19], "{e}");
    assert!(e["delivered_at"].as_str().unwrap() <= e["read_at"].as_str().unwrap(), "{e}");
    assert_eq!(e["error_message"], Value::Null);

    // A not-approved sandbox template is refused like a real one.
    let body = json!({"to": "447700900123", "components": [{"type": "body", "parameters": [{"type": "text", "text": "Monday"}]}]});
    app.post(&send_uri(&format!("{SANDBOX_WABA}003")), &app.a.secret, body).await.assert_error(422, "TEMPLATE_NOT_APPROVED");
    assert!(server.received_requests().await.unwrap_or_default().is_empty(), "the sandbox never touches the network");
}

// ---------- 11. tenants and keys ----------

async fn other_tenants_get_404_and_publishable_keys_403(backend: &str) {
    let (server, app) = start(backend).await;
    let line = cloud_line(&app, &server, standard_templates()).await;
    accept_sends_to(&server, "14155550100", "wamid.a").await;
    app.post(&send_uri("9001"), &app.a.secret, order_send("14155550100", Some("a-campaign"))).await.assert_status(200);

    // B has a line of its own (another phone number id) with other templates.
    let b_line = app.state.lines.add(&app.b.agent, B_PHONE, B_WABA, Some("EAAG-b-token")).await.unwrap();
    let _b_templates = Mock::given(method("GET"))
        .and(path(templates_path(B_WABA)))
        .and(header("authorization", "Bearer EAAG-b-token"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"data": [body_only_wire("8001", "hello", "APPROVED", "UTILITY", "Hello")]})),
        )
        .mount_as_scoped(&server)
        .await;
    assert_eq!(app.state.lines.sync_line(&b_line).await.unwrap(), 1);

    let b = &app.b.secret;
    let r = app.get("/v1/templates", b).await;
    assert_eq!(r.data().as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect::<Vec<_>>(), ["8001"]);
    app.get("/v1/templates/9001", b).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/channels/{}/templates", line.id.as_str()), b).await.assert_error(404, "NOT_FOUND");
    app.get(&executions_uri("a-campaign", ""), b).await.assert_error(404, "NOT_FOUND");
    app.post(&send_uri("9001"), b, order_send("14155550100", Some("b-campaign"))).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/templates/8001", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get(&format!("/v1/channels/{}/templates", b_line.id.as_str()), &app.a.secret).await.assert_error(404, "NOT_FOUND");
    assert_eq!(sends_received(&server).await, 1, "B's attempt sent nothing");
    app.get(&executions_uri("b-campaign", ""), b).await.assert_error(404, "NOT_FOUND");

    // Publishable keys cannot use messaging.
    let pk = &app.a.publishable;
    app.get("/v1/templates", pk).await.assert_error(403, "FORBIDDEN");
    app.get("/v1/templates/9001", pk).await.assert_error(403, "FORBIDDEN");
    app.get(&format!("/v1/channels/{}/templates", line.id.as_str()), pk).await.assert_error(403, "FORBIDDEN");
    app.get(&executions_uri("a-campaign", ""), pk).await.assert_error(403, "FORBIDDEN");
    app.post(&send_uri("9001"), pk, order_send("14155550100", None)).await.assert_error(403, "FORBIDDEN");
    assert_eq!(sends_received(&server).await, 1);
    app.get("/v1/templates", "sk_not_a_real_key_000000000000000000").await.assert_error(401, "UNAUTHORIZED");
}

backend_tests!(
    template_notices_update_the_stored_template_at_once_and_are_announced,
    sync_follows_paging_lists_all_lines_templates_and_drops_removed_ones,
    send_with_parameters_posts_the_exact_graph_request_and_creates_a_pending_contact,
    invalid_sends_are_400_naming_the_problem_and_reach_nothing,
    a_template_that_is_not_approved_is_422_and_not_sent,
    platform_refusals_are_422_message_rejected_with_the_platform_code,
    platform_failures_and_timeouts_are_502_upstream_error,
    a_refusal_under_a_campaign_records_a_failed_execution_and_an_outage_records_nothing,
    a_button_index_as_a_number_a_string_or_an_integral_float_is_the_same_button,
    an_idempotent_retry_sends_once_and_replays_the_first_answer,
    a_retry_after_a_cut_first_request_is_502_and_never_sends_again,
    the_webhook_handshake_echoes_the_challenge_only_for_the_verify_token,
    unsigned_or_badly_signed_webhooks_are_401_and_change_nothing,
    webhooks_over_one_mib_are_413_in_the_error_shape,
    status_webhooks_move_executions_forward_once_each_whatever_their_order,
    inbound_messages_create_or_reopen_the_contact_and_ignore_unknown_lines,
    the_executions_endpoint_validates_since_and_limit_and_orders_by_updated_at,
    a_sandbox_send_moves_to_delivered_and_read_without_the_network,
    other_tenants_get_404_and_publishable_keys_403,
);
