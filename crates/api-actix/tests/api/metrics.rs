//! `GET /metrics` through the real app on both backends: requests by route pattern (never the
//! raw path) and status, latency histograms, the pool, the webhook backlog, embedder time; and,
//! on the real binary, metrics on their own address (`metrics_bind` from a settings file).

use std::process::Command;

use crate::common::TestApp;
use crate::common::server::{ParleyServer, free_port};
use actix_web::test::TestRequest;
use parley_domain::model::{ChannelType, InboundDelivery};

async fn scrape(app: &TestApp) -> String {
    let reply = app.call(TestRequest::get().uri("/metrics")).await;
    reply.assert_status(200);
    assert_eq!(reply.header("content-type"), Some(parley_api::runtime::metrics::CONTENT_TYPE_OPENMETRICS));
    reply.body.as_str().expect("metrics are text").to_string()
}

/// The value of the sample line that starts with `prefix` (name and labels).
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines().find(|l| l.starts_with(prefix)).and_then(|l| l.rsplit(' ').next()).and_then(|v| v.parse().ok())
}

async fn requests_are_counted_by_route_pattern_and_status(app: TestApp) {
    let tag = app.tag(&app.a, "Metered").await;
    let patch = serde_json::json!({"description": "counted"});
    app.patch(&format!("/v1/tags/{tag}"), &app.a.secret, patch.clone()).await.assert_status(200);
    app.patch(&format!("/v1/tags/{tag}"), &app.a.secret, patch.clone()).await.assert_status(200);
    app.patch("/v1/tags/tag_doesnotexist", &app.a.secret, patch).await.assert_status(404);
    app.get("/no/such/path/12345", &app.a.secret).await.assert_status(404);

    let text = scrape(&app).await;
    assert_eq!(sample(&text, r#"parley_http_requests_total{method="PATCH",route="/v1/tags/{id}",status="200"}"#), Some(2.0), "{text}");
    assert_eq!(sample(&text, r#"parley_http_requests_total{method="PATCH",route="/v1/tags/{id}",status="404"}"#), Some(1.0), "{text}");
    assert_eq!(sample(&text, r#"parley_http_requests_total{method="POST",route="/v1/tags",status="201"}"#), Some(1.0), "{text}");
    assert!(!text.contains(&tag) && !text.contains("12345") && !text.contains("doesnotexist"), "raw paths never become labels: {text}");
    assert!(text.contains(r#"route="unmatched""#), "{text}");
    assert_eq!(sample(&text, r#"parley_http_request_duration_seconds_count{method="PATCH",route="/v1/tags/{id}"}"#), Some(3.0), "{text}");
    assert!(
        text.contains(r#"parley_http_request_duration_seconds_bucket{le="0.001",method="PATCH",route="/v1/tags/{id}"}"#)
            || text.contains(r#"parley_http_request_duration_seconds_bucket{method="PATCH",route="/v1/tags/{id}",le="0.001"}"#),
        "{text}"
    );
    assert_eq!(sample(&text, "parley_http_requests_in_flight"), Some(1.0), "the scrape itself is in flight");
    assert!(text.trim_end().ends_with("# EOF"));
}

async fn pool_backlog_and_embedder_are_reported(app: TestApp) {
    // A delivery stored but not due for an hour: in the backlog, not processed meanwhile.
    let now = chrono::Utc::now();
    let event = InboundDelivery {
        id: "whk_metrics_backlog".into(),
        platform: ChannelType::Whatsapp,
        body: "{}".into(),
        received_at: now,
        attempts: 1,
        last_error: Some("later".into()),
        next_attempt_at: Some(now + chrono::TimeDelta::hours(1)),
        processed_at: None,
        failed_at: None,
        set_aside: Vec::new(),
    };
    app.db.store.repositories().inbound.insert(&event).await.unwrap();
    // A delivery given up on: counted apart, never as backlog.
    let given_up = InboundDelivery { id: "whk_metrics_failed".into(), failed_at: Some(now), next_attempt_at: None, ..event };
    app.db.store.repositories().inbound.insert(&given_up).await.unwrap();
    app.import_demo_catalog(&app.a).await;
    app.get("/v1/products/search?q=hiking%20boots", &app.a.publishable).await.assert_status(200);

    let text = scrape(&app).await;
    assert_eq!(sample(&text, "parley_inbound_backlog"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "parley_inbound_failed"), Some(1.0), "{text}");
    // The older names, kept for dashboards, report the same series.
    assert_eq!(sample(&text, "parley_webhook_backlog"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "parley_webhook_failed"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "parley_database_up"), Some(1.0), "{text}");
    assert!(sample(&text, "parley_db_pool_max_connections").is_some_and(|n| n >= 1.0), "{text}");
    let open = sample(&text, "parley_db_pool_connections").unwrap();
    let idle = sample(&text, "parley_db_pool_available_connections").unwrap();
    assert!(open >= 1.0 && idle <= open, "open {open}, idle {idle}");
    assert_eq!(sample(&text, "parley_db_pool_waiting_requests"), Some(0.0));
    let calls = text.lines().find(|l| l.starts_with("parley_embedder_duration_seconds_count")).expect("embedder timed");
    assert!(calls.rsplit(' ').next().unwrap().parse::<f64>().unwrap() >= 2.0, "the import and the search: {calls}");
    assert!(text.lines().any(|l| l.starts_with("parley_embedder_texts_total") && !l.ends_with(" 0")), "{text}");
}

async fn metrics_need_no_key_and_are_read_only(app: TestApp) {
    scrape(&app).await;
    app.call(TestRequest::post().uri("/metrics")).await.assert_error(405, "METHOD_NOT_ALLOWED");
}

http_tests!(
    requests_are_counted_by_route_pattern_and_status,
    pool_backlog_and_embedder_are_reported,
    metrics_need_no_key_and_are_read_only
);

/// With `metrics_bind` (here from a settings file), metrics are served there and not on the API's address.
#[test]
fn metrics_bind_moves_metrics_to_their_own_address() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parley.db");
    let (port, metrics_port) = (free_port(), free_port());
    let config = dir.path().join("parley.toml");
    std::fs::write(&config, format!("metrics_bind = \"127.0.0.1:{metrics_port}\"\nshutdown_timeout_secs = 5\n")).unwrap();
    let server = ParleyServer::start(&db, port, &[("PARLEY_CONFIG", config.to_str().unwrap())], |l| l.trim_start().starts_with("export "));
    assert!(server.banner.iter().any(|l| l.contains(&format!("127.0.0.1:{metrics_port}/metrics"))), "{:?}", server.banner);

    let status = |url: String| {
        let out = Command::new("curl").args(["-s", "-o", "/dev/null", "-w", "%{http_code}", &url]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert_eq!(status(format!("http://127.0.0.1:{metrics_port}/metrics")), "200");
    assert_eq!(status(format!("{}/metrics", server.url())), "404", "not on the API's address");
    assert_eq!(status(format!("http://127.0.0.1:{metrics_port}/v1/tags")), "404", "the metrics address serves only metrics");
    assert_eq!(status(format!("{}/healthz", server.url())), "200");
}

/// A settings file with an unknown key stops the binary at once, naming the key.
#[test]
fn a_bad_settings_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("parley.toml");
    std::fs::write(&config, "bnd = \"127.0.0.1:1\"\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_parley")).args(["--config", config.to_str().unwrap(), "migrate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown setting `bnd`") && err.contains("bind"), "{err}");
}
