//! The sender against real local receivers (wiremock): headers, statuses, redirects not
//! followed, timeouts, and the address rules for names and written addresses.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::time::Duration;

use parley_adapters_webhooks::HttpWebhookSender;
use parley_domain::model::EndpointUrl;
use parley_domain::ports::{OutgoingDelivery, ReceiverAnswer, WebhookSender};
use wiremock::matchers::{body_string, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn send(sender: &HttpWebhookSender, url: &str) -> ReceiverAnswer {
    let url = EndpointUrl::new(url, true).unwrap();
    let delivery =
        OutgoingDelivery { url: &url, id: "evt_1", timestamp: 1_700_000_000, signature: "v1,abc".into(), body: r#"{"id":"evt_1"}"# };
    sender.send(&delivery).await
}

#[tokio::test]
async fn a_delivery_is_one_post_with_the_standard_webhooks_headers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/hook"))
        .and(header("content-type", "application/json"))
        .and(header("webhook-id", "evt_1"))
        .and(header("webhook-timestamp", "1700000000"))
        .and(body_string(r#"{"id":"evt_1"}"#))
        .respond_with(ResponseTemplate::new(204))
        .expect(1)
        .mount(&server)
        .await;
    let sender = HttpWebhookSender::new(true, Duration::from_secs(2)).unwrap();
    assert_eq!(send(&sender, &format!("{}/hook", server.uri())).await, ReceiverAnswer::Status(204));
    // Read whole: wiremock's header matcher would split the value at its comma.
    let received = server.received_requests().await.unwrap();
    assert_eq!(received[0].headers.get("webhook-signature").unwrap(), "v1,abc");
}

#[tokio::test]
async fn redirects_are_answers_not_followed() {
    let server = MockServer::start().await;
    Mock::given(path("/moved"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", format!("{}/elsewhere", server.uri())))
        .mount(&server)
        .await;
    Mock::given(path("/elsewhere")).respond_with(ResponseTemplate::new(200)).expect(0).mount(&server).await;
    let sender = HttpWebhookSender::new(true, Duration::from_secs(2)).unwrap();
    assert_eq!(send(&sender, &format!("{}/moved", server.uri())).await, ReceiverAnswer::Status(302));
}

#[tokio::test]
async fn a_receiver_slower_than_the_limit_is_no_answer() {
    let server = MockServer::start().await;
    Mock::given(path("/slow")).respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(3))).mount(&server).await;
    let sender = HttpWebhookSender::new(true, Duration::from_millis(300)).unwrap();
    let ReceiverAnswer::NoAnswer(why) = send(&sender, &format!("{}/slow", server.uri())).await else { panic!("answered") };
    assert!(why.contains("no answer"), "{why}");
}

#[tokio::test]
async fn private_addresses_are_refused_unless_allowed() {
    let server = MockServer::start().await;
    Mock::given(path("/hook")).respond_with(ResponseTemplate::new(200)).expect(0).mount(&server).await;
    let strict = HttpWebhookSender::new(false, Duration::from_secs(2)).unwrap();
    let port = server.address().port();
    for url in [format!("http://127.0.0.1:{port}/hook"), format!("http://localhost:{port}/hook")] {
        let ReceiverAnswer::NoAnswer(why) = send(&strict, &url).await else { panic!("{url} was sent") };
        assert!(why.contains("refused"), "{url}: {why}");
    }
}
