//! A line the platform says is over its throughput (WhatsApp's 130429) is held back and the
//! send tried again, instead of the message failing: over HTTP on both backends, against a
//! fake Graph API that refuses twice, then accepts.

use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::messaging::{
    CLOUD_PHONE, accepted, cloud_line, graph_error, messages_path, order_send, sends_received, standard_templates, start,
};

backend_tests!(a_send_refused_for_throughput_is_retried_after_the_line_is_held);

async fn a_send_refused_for_throughput_is_retried_after_the_line_is_held(backend: &str) {
    let (server, app) = start(backend).await;
    cloud_line(&app, &server, standard_templates()).await;
    let throttled: ResponseTemplate =
        graph_error(429, 130429, "(#130429) Rate limit hit", Some("Cloud API message throughput has been reached."));
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(throttled)
        .up_to_n_times(2)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(accepted("14155550401", "wamid.paced"))
        .mount(&server)
        .await;

    let started = std::time::Instant::now();
    let r = app.post("/v1/templates/9001/send", &app.a.secret, order_send("+1 415 555 0401", Some("paced"))).await;
    r.assert_status(200);
    assert_eq!(r.data()["message_id"], "wamid.paced");
    assert_eq!(sends_received(&server).await, 3, "refused twice, then taken");
    // Held one second after the first refusal and two after the second.
    assert!(started.elapsed() >= std::time::Duration::from_secs(3), "{:?}", started.elapsed());
    let executions = app.get("/v1/campaigns/paced/executions", &app.a.secret).await;
    let executions = executions.data().as_array().unwrap().clone();
    assert_eq!(executions.len(), 1, "one outcome, the send's: {executions:?}");
    assert_eq!(executions[0]["status"], "sent");
}
