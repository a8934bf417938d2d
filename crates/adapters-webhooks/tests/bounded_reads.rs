//! A receiver that answers with 1 GiB: the delivery is its status, and the process does not
//! hold the body (it grows < 50 MB; a hostile answer once took it from 93 MB to 2,346 MB). Alone in its test binary,
//! because the figure is the whole process's.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::time::Duration;

use parley_adapters_http::testing::{Answer, Framing, GIB, HugeServer, measure};
use parley_adapters_webhooks::HttpWebhookSender;
use parley_domain::model::EndpointUrl;
use parley_domain::ports::{OutgoingDelivery, ReceiverAnswer, WebhookSender};

const MAX_GROWTH: u64 = 50 * 1000 * 1000;

fn a_huge_answer_is_still_a_delivery(framing: Framing) {
    let measured = measure(|| async {
        let server = HugeServer::start(move |_| Answer::zeros(200, GIB, framing)).await;
        let sender = HttpWebhookSender::new(true, Duration::from_secs(10)).unwrap();
        let url = EndpointUrl::new(&format!("{}/hook", server.url()), true).unwrap();
        let delivery =
            OutgoingDelivery { url: &url, id: "evt_1", timestamp: 1_700_000_000, signature: "v1,abc".into(), body: r#"{"id":"evt_1"}"# };
        (sender.send(&delivery).await, server.body_bytes_written())
    });
    let (answer, written) = &measured.output;
    println!("{framing:?}: grew {:.1} MiB in {:?}, {written} body bytes sent", measured.growth_mib(), measured.elapsed);
    assert_eq!(*answer, ReceiverAnswer::Status(200));
    assert!(measured.growth_bytes < MAX_GROWTH, "grew {:.1} MiB", measured.growth_mib());
    assert!(measured.elapsed < Duration::from_secs(3), "{:?}", measured.elapsed);
    assert!(*written < GIB / 8, "{written} bytes sent: the body was drained, not dropped");
}

#[test]
fn a_receiver_answering_1_gib_with_a_length_is_a_delivery_and_is_not_held() {
    a_huge_answer_is_still_a_delivery(Framing::Length);
}

#[test]
fn a_receiver_answering_1_gib_chunked_is_a_delivery_and_is_not_held() {
    a_huge_answer_is_still_a_delivery(Framing::Chunked);
}
