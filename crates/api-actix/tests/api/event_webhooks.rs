//! Webhook endpoints and the events list through the real app, with real local receivers
//! (wiremock): the endpoint API, signed deliveries verified by the Standard Webhooks library,
//! retries, timeouts, redelivery, secret rotation, the address rules and tenant isolation.

use std::time::Duration;

use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::common::standard_webhooks;
use crate::common::{Tenant, TestApp};
use parley_api::runtime::config::ApiConfig;

/// The app as tests and on-premise receivers run it: private addresses allowed, and a short
/// send limit so a hanging receiver is quick to see.
async fn app_with_receivers(backend: &str) -> TestApp {
    let config = ApiConfig { webhook_allow_private: true, webhook_send_timeout: Some(Duration::from_millis(500)), ..ApiConfig::default() };
    TestApp::with_config(backend, config).await
}

async fn receiver(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(status)).mount(&server).await;
    server
}

/// Registers `url` for `events`; returns (endpoint id, secret).
async fn endpoint(app: &TestApp, tenant: &Tenant, url: &str, events: Value) -> (String, String) {
    let r = app.post("/v1/webhook_endpoints", &tenant.secret, json!({"url": url, "events": events})).await;
    r.assert_status(201);
    (r.data()["id"].as_str().unwrap().to_string(), r.data()["secret"].as_str().unwrap().to_string())
}

/// Waits until the receiver has `n` requests (10 s at most) and returns them.
async fn received(server: &MockServer, n: usize) -> Vec<Request> {
    for _ in 0..200 {
        let got = server.received_requests().await.unwrap();
        if got.len() >= n {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the receiver got {} requests, expected {n}", server.received_requests().await.unwrap().len());
}

fn header<'a>(request: &'a Request, name: &str) -> &'a str {
    request.headers.get(name).unwrap_or_else(|| panic!("no {name} header")).to_str().unwrap()
}

/// Verifies a delivery with the Standard Webhooks library, as a receiver would.
fn verify(secret: &str, request: &Request) -> Result<(), String> {
    let body = String::from_utf8(request.body.clone()).unwrap();
    standard_webhooks::verify(
        secret,
        header(request, "webhook-id"),
        header(request, "webhook-timestamp"),
        header(request, "webhook-signature"),
        &body,
    )
}

/// Waits until the endpoint lists `n` attempts and returns them, newest first.
async fn attempts(app: &TestApp, tenant: &Tenant, endpoint: &str, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let r = app.get(&format!("/v1/webhook_endpoints/{endpoint}/deliveries"), &tenant.secret).await;
        r.assert_status(200);
        let list = r.data().as_array().unwrap().clone();
        if list.len() >= n {
            return list;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("fewer than {n} attempts recorded for {endpoint}");
}

async fn endpoints_are_made_listed_changed_and_deleted_with_the_secret_shown_once(app: TestApp) {
    let r = app
        .post(
            "/v1/webhook_endpoints",
            &app.a.secret,
            json!({"url": "https://93.184.216.34/hooks", "events": ["message.received", "contact.created"], "description": "CRM"}),
        )
        .await;
    r.assert_status(201);
    let made = r.data().clone();
    let id = made["id"].as_str().unwrap();
    assert!(id.starts_with("we_"), "{made}");
    assert!(made["secret"].as_str().unwrap().starts_with("whsec_"), "{made}");
    assert_eq!(made["events"], json!(["message.received", "contact.created"]));
    assert_eq!((made["enabled"].as_bool(), made["disabled_reason"].is_null()), (Some(true), true));

    let got = app.get(&format!("/v1/webhook_endpoints/{id}"), &app.a.secret).await;
    got.assert_status(200);
    assert!(got.data().get("secret").is_none(), "the secret is never shown again: {}", got.body);
    let listed = app.get("/v1/webhook_endpoints", &app.a.secret).await;
    assert_eq!((listed.body["pagination"]["total"].as_u64(), listed.data()[0]["id"].as_str()), (Some(1), Some(id)));

    let changed = app
        .patch(&format!("/v1/webhook_endpoints/{id}"), &app.a.secret, json!({"events": ["*"], "description": null, "enabled": false}))
        .await;
    changed.assert_status(200);
    assert_eq!(changed.data()["events"], json!(["*"]));
    assert!(changed.data()["description"].is_null());
    assert_eq!((changed.data()["enabled"].as_bool(), changed.data()["disabled_reason"].as_str()), (Some(false), Some("by_owner")));
    app.post(&format!("/v1/webhook_endpoints/{id}/test"), &app.a.secret, json!({})).await.assert_error(409, "CONFLICT");

    // Another tenant sees nothing of it.
    for r in [
        app.get(&format!("/v1/webhook_endpoints/{id}"), &app.b.secret).await,
        app.patch(&format!("/v1/webhook_endpoints/{id}"), &app.b.secret, json!({"enabled": true})).await,
        app.post(&format!("/v1/webhook_endpoints/{id}/rotate_secret"), &app.b.secret, json!({})).await,
        app.get(&format!("/v1/webhook_endpoints/{id}/deliveries"), &app.b.secret).await,
        app.delete(&format!("/v1/webhook_endpoints/{id}"), &app.b.secret).await,
    ] {
        r.assert_error(404, "NOT_FOUND");
    }
    assert_eq!(app.get("/v1/webhook_endpoints", &app.b.secret).await.body["pagination"]["total"], 0);
    app.get("/v1/webhook_endpoints", &app.a.publishable).await.assert_error(403, "FORBIDDEN");

    app.delete(&format!("/v1/webhook_endpoints/{id}"), &app.a.secret).await.assert_status(200);
    app.get(&format!("/v1/webhook_endpoints/{id}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

async fn endpoints_refuse_http_and_non_public_addresses(app: TestApp) {
    let refused = |url: &'static str| {
        let app = &app;
        async move {
            let r = app.post("/v1/webhook_endpoints", &app.a.secret, json!({"url": url, "events": ["*"]})).await;
            r.assert_error(400, "VALIDATION_ERROR");
            assert_eq!(r.body["error"]["details"][0]["field"], "url", "{url}: {}", r.body);
            r.body["error"]["details"][0]["issue"].as_str().unwrap().to_string()
        }
    };
    assert!(refused("http://example.com/hooks").await.contains("https"));
    assert!(refused("https://127.0.0.1/hooks").await.contains("non-public"));
    assert!(refused("https://10.0.0.1/hooks").await.contains("non-public"));
    assert!(refused("https://169.254.169.254/latest/meta-data").await.contains("non-public"));
    // A name is resolved: localhost reaches loopback (::1 or 127.0.0.1).
    assert!(refused("https://localhost/hooks").await.contains("non-public"));
    let r = app.post("/v1/webhook_endpoints", &app.a.secret, json!({"url": "https://93.184.216.34/", "events": ["nope"]})).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "events[0]");
    assert_eq!(app.get("/v1/webhook_endpoints", &app.a.secret).await.body["pagination"]["total"], 0, "nothing half-made");
}

async fn a_test_ping_is_delivered_signed_as_standard_webhooks_verify_it(app: TestApp) {
    let server = receiver(204).await;
    let (id, secret) = endpoint(&app, &app.a, &format!("{}/hooks", server.uri()), json!(["contact.created"])).await;
    let r = app.post(&format!("/v1/webhook_endpoints/{id}/test"), &app.a.secret, json!({})).await;
    r.assert_status(202);
    let event = r.data().clone();
    assert_eq!((event["type"].as_str(), event["data"]["object"]["id"].as_str()), (Some("ping"), Some(id.as_str())));

    let got = received(&server, 1).await;
    let delivery = &got[0];
    assert_eq!(header(delivery, "content-type"), "application/json");
    assert_eq!(header(delivery, "webhook-id"), event["id"].as_str().unwrap());
    verify(&secret, delivery).unwrap_or_else(|e| panic!("the Standard Webhooks library refused the delivery: {e}"));
    let wrong = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    assert!(verify(wrong, delivery).is_err(), "another secret does not verify");
    let body: Value = serde_json::from_slice(&delivery.body).unwrap();
    assert_eq!(body, event, "the delivery is the event as the API shows it");

    let listed = attempts(&app, &app.a, &id, 1).await;
    assert_eq!((listed[0]["response_status"].as_u64(), listed[0]["attempt"].as_u64()), (Some(204), Some(1)));
    assert!(listed[0]["error"].is_null() && listed[0]["next_attempt_at"].is_null(), "{}", listed[0]);

    // The events list has it, for this tenant only.
    let events = app.get("/v1/events?type=ping", &app.a.secret).await;
    assert_eq!(events.data()[0]["id"], event["id"]);
    let path = format!("/v1/events/{}", event["id"].as_str().unwrap());
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &event);
    app.get(&path, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.get("/v1/events", &app.b.secret).await.body["pagination"]["total"], 0);
    app.get("/v1/events?type=nope", &app.a.secret).await.assert_error(400, "VALIDATION_ERROR");
}

async fn a_failed_delivery_is_retried_with_backoff_and_then_delivered(app: TestApp) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500)).up_to_n_times(1).mount(&server).await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200)).mount(&server).await;
    let (id, _) = endpoint(&app, &app.a, &server.uri(), json!(["*"])).await;
    app.post(&format!("/v1/webhook_endpoints/{id}/test"), &app.a.secret, json!({})).await.assert_status(202);

    let first = attempts(&app, &app.a, &id, 1).await;
    assert_eq!((first[0]["response_status"].as_u64(), first[0]["error"].as_str()), (Some(500), Some("the endpoint answered 500")));
    let next = first[0]["next_attempt_at"].as_str().expect("a retry is scheduled");
    let wait = chrono::DateTime::parse_from_rfc3339(next).unwrap()
        - chrono::DateTime::parse_from_rfc3339(first[0]["attempted_at"].as_str().unwrap()).unwrap();
    assert!((48..=72).contains(&wait.num_seconds()), "about a minute, with jitter: {wait}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(server.received_requests().await.unwrap().len(), 1, "not before its time");

    app.clock.advance(chrono::TimeDelta::seconds(75));
    let both = attempts(&app, &app.a, &id, 2).await;
    assert_eq!((both[0]["attempt"].as_u64(), both[0]["response_status"].as_u64()), (Some(2), Some(200)));
    assert!(both[0]["next_attempt_at"].is_null());
    let received = received(&server, 2).await;
    assert_eq!(header(&received[0], "webhook-id"), header(&received[1], "webhook-id"), "the same event id on every try");
}

async fn a_hanging_receiver_times_out_and_is_retried(app: TestApp) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(5))).mount(&server).await;
    let (id, _) = endpoint(&app, &app.a, &server.uri(), json!(["*"])).await;
    app.post(&format!("/v1/webhook_endpoints/{id}/test"), &app.a.secret, json!({})).await.assert_status(202);
    let listed = attempts(&app, &app.a, &id, 1).await;
    assert!(listed[0]["response_status"].is_null(), "{}", listed[0]);
    assert!(listed[0]["error"].as_str().unwrap().contains("no answer"), "{}", listed[0]);
    assert!(listed[0]["next_attempt_at"].is_string());
    assert!(listed[0]["duration_ms"].as_u64().unwrap() < 3000, "cut at the limit: {}", listed[0]);
}

async fn events_are_redelivered_on_request_and_rotated_secrets_sign_beside_the_new_one(app: TestApp) {
    let server = receiver(200).await;
    let (id, old_secret) = endpoint(&app, &app.a, &server.uri(), json!(["*"])).await;
    let ping =
        app.post(&format!("/v1/webhook_endpoints/{id}/test"), &app.a.secret, json!({})).await.data()["id"].as_str().unwrap().to_string();
    // Recorded first: a redelivery asked while an attempt is in flight takes its place.
    attempts(&app, &app.a, &id, 1).await;

    let rotated = app.post(&format!("/v1/webhook_endpoints/{id}/rotate_secret"), &app.a.secret, json!({})).await;
    rotated.assert_status(200);
    let new_secret = rotated.data()["secret"].as_str().unwrap().to_string();
    assert_ne!(new_secret, old_secret);

    let r = app.post(&format!("/v1/events/{ping}/redeliver?endpoint={id}"), &app.a.secret, json!({})).await;
    r.assert_status(202);
    let got = received(&server, 2).await;
    let again = &got[1];
    assert_eq!(header(again, "webhook-id"), ping);
    assert_eq!(header(again, "webhook-signature").split(' ').count(), 2, "both secrets sign for a day");
    verify(&new_secret, again).unwrap();
    verify(&old_secret, again).unwrap();
    assert_eq!(attempts(&app, &app.a, &id, 2).await[0]["attempt"], 2, "attempts count on");

    app.post(&format!("/v1/events/{ping}/redeliver"), &app.a.secret, json!({})).await.assert_error(400, "VALIDATION_ERROR");
    app.post(&format!("/v1/events/{ping}/redeliver?endpoint={id}"), &app.b.secret, json!({})).await.assert_error(404, "NOT_FOUND");
    app.post(&format!("/v1/events/evt_nope/redeliver?endpoint={id}"), &app.a.secret, json!({})).await.assert_error(404, "NOT_FOUND");
}

http_tests!(endpoints_are_made_listed_changed_and_deleted_with_the_secret_shown_once, endpoints_refuse_http_and_non_public_addresses);

/// Tests with real local receivers, on [`app_with_receivers`], one per backend.
macro_rules! receiver_tests {
    ($($name:ident),* $(,)?) => {
        mod with_receivers {
            mod sqlite {
                $( #[actix_web::test] async fn $name() { super::super::$name(super::super::app_with_receivers("sqlite").await).await; } )*
            }
            mod postgres {
                $( #[actix_web::test] async fn $name() { super::super::$name(super::super::app_with_receivers("postgres").await).await; } )*
            }
        }
    };
}

receiver_tests!(
    a_test_ping_is_delivered_signed_as_standard_webhooks_verify_it,
    a_failed_delivery_is_retried_with_backoff_and_then_delivered,
    a_hanging_receiver_times_out_and_is_retried,
    events_are_redelivered_on_request_and_rotated_secrets_sign_beside_the_new_one,
);

mod hanging {
    #[actix_web::test]
    async fn sqlite() {
        super::a_hanging_endpoint_never_holds_up_another("sqlite").await
    }
    #[actix_web::test]
    async fn postgres() {
        super::a_hanging_endpoint_never_holds_up_another("postgres").await
    }
}

/// With the real 10-second limit: a receiver that takes 8 s holds its endpoint's slots that long.
async fn a_hanging_endpoint_never_holds_up_another(backend: &str) {
    let app = TestApp::with_config(backend, ApiConfig { webhook_allow_private: true, ..ApiConfig::default() }).await;
    let hanging = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(8))).mount(&hanging).await;
    let healthy = receiver(204).await;
    endpoint(&app, &app.a, &hanging.uri(), json!(["contact.created"])).await;
    endpoint(&app, &app.a, &healthy.uri(), json!(["contact.created"])).await;
    let started = std::time::Instant::now();
    for n in 0..40 {
        let body = json!({"channel_type": "whatsapp", "channel_id": format!("52155500{n:02}")});
        app.post("/v1/contacts", &app.a.secret, body).await.assert_status(201);
    }
    // The hanging endpoint holds its own slots, 8 s each; the healthy one gets every event
    // meanwhile, long before the hanging one's first attempts end.
    received(&healthy, 40).await;
    assert!(started.elapsed() < Duration::from_secs(6), "the healthy endpoint waited: {:?}", started.elapsed());
    assert_eq!(hanging.received_requests().await.unwrap().len(), 16, "the hanging one holds its 16 slots, no more");
}
