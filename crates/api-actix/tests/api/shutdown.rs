//! Graceful shutdown of the real binary: SIGTERM while a request is in flight (a template send
//! whose fake Graph API answers slowly) lets that request finish, refuses new connections, and
//! the process exits 0 right after, logging each step; readiness turns 503 once shutting down.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const PHONE: &str = "106540352242922";
const WABA: &str = "102290129340398";
/// How long the fake platform takes to accept a message.
const SLOW: Duration = Duration::from_millis(2500);

fn parley(db: &str, graph: &str, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(args)
        .env("DATABASE_URL", db)
        .env("PARLEY_WHATSAPP_API_BASE", graph)
        .env("PARLEY_LOG", "warn")
        .env("SHUTDOWN_TEST_TOKEN", "EAAG-test-token")
        .output()
        .expect("parley runs");
    assert!(out.status.success(), "parley {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn curl(args: &[&str]) -> (u16, Value) {
    let out = Command::new("curl").args(["-s", "-w", "\n%{http_code}"]).args(args).output().expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (code.trim().parse().unwrap_or(0), serde_json::from_str(body).unwrap_or(Value::Null))
}

/// What happened around a SIGTERM sent while a slow send was in flight.
struct Outcome {
    /// The send's status (0: the connection was cut) and body.
    status: u16,
    reply: Value,
    /// From SIGTERM to the send's answer, and to the process's exit.
    answered: Duration,
    exited: Duration,
    exit: std::process::ExitStatus,
    /// Whether a new request after SIGTERM was served.
    new_request_served: bool,
    logs: Vec<String>,
}

/// Serves with `PARLEY_SHUTDOWN_TIMEOUT_SECS=timeout_secs`, sends a template whose platform takes
/// [`SLOW`] to answer, and sends SIGTERM once the platform has the message.
async fn sigterm_during_a_slow_send(timeout_secs: &'static str) -> Outcome {
    let graph = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path(format!("/v23.0/{WABA}/message_templates")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": [
            {"id": "9002", "name": "welcome", "language": "en_US", "status": "APPROVED", "category": "MARKETING",
             "components": [{"type": "BODY", "text": "Welcome to {{1}}!"}]}
        ]})))
        .mount(&graph)
        .await;
    // A marketing template: sent through the Marketing Messages API.
    Mock::given(method("POST"))
        .and(path(format!("/v23.0/{PHONE}/marketing_messages")))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"messaging_product": "whatsapp", "contacts": [{"input": "14155550100", "wa_id": "14155550100"}],
                    "messages": [{"id": "wamid.slow"}]}))
                .set_delay(SLOW),
        )
        .mount(&graph)
        .await;
    let graph_uri = graph.uri();
    let rt = tokio::runtime::Handle::current();

    tokio::task::spawn_blocking(move || {
        // The send is in flight once the fake platform has received it.
        let reached_platform = || rt.block_on(graph.received_requests()).unwrap_or_default().iter().any(|r| r.method.as_str() == "POST");
        let dir = tempfile::tempdir().unwrap();
        let db = format!("sqlite://{}", dir.path().join("parley.db").display());
        let agent = parley(&db, &graph_uri, &["agents", "create", "--name", "Shutdown Shop"]);
        let agent = agent["id"].as_str().unwrap();
        let key = parley(&db, &graph_uri, &["keys", "create", "--agent", agent])["key"].as_str().unwrap().to_string();
        parley(
            &db,
            &graph_uri,
            &[
                "channels",
                "add",
                "--agent",
                agent,
                "--phone-number-id",
                PHONE,
                "--waba-id",
                WABA,
                "--access-token-env",
                "SHUTDOWN_TEST_TOKEN",
            ],
        );

        let port = free_port();
        let env =
            [("PARLEY_WHATSAPP_API_BASE", graph_uri.as_str()), ("PARLEY_LOG", "info"), ("PARLEY_SHUTDOWN_TIMEOUT_SECS", timeout_secs)];
        let mut server = ParleyServer::start_on(&db, port, &env, |l| l.starts_with("Parley is serving"));
        let base = server.url();

        // The send waits on the slow platform; SIGTERM arrives while it does.
        let send_url = format!("{base}/v1/templates/9002/send");
        let auth = format!("X-API-Key: {key}");
        let body =
            json!({"to": "14155550100", "components": [{"type": "body", "parameters": [{"type": "text", "text": "Shop"}]}]}).to_string();
        let in_flight =
            std::thread::spawn(move || curl(&["-X", "POST", "-H", &auth, "-H", "Content-Type: application/json", "-d", &body, &send_url]));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !reached_platform() {
            assert!(Instant::now() < deadline, "the send never reached the platform");
            std::thread::sleep(Duration::from_millis(20));
        }
        let signalled = Instant::now();
        server.terminate();

        // New connections are refused while the request in flight finishes.
        std::thread::sleep(Duration::from_millis(200));
        let (new_status, _) = curl(&["--max-time", "1", &format!("{base}/healthz")]);

        let (status, reply) = in_flight.join().unwrap();
        let answered = signalled.elapsed();
        let exit = server.wait_exit(Duration::from_secs(5)).expect("the process exits");
        let exited = signalled.elapsed();
        let logs = server.logs.lock().unwrap().clone();
        Outcome { status, reply, answered, exited, exit, new_request_served: new_status == 200, logs }
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_the_request_in_flight_finish_then_exits_0() {
    let o = sigterm_during_a_slow_send("10").await;
    assert!(!o.new_request_served, "no new requests are served once shutting down");
    assert_eq!(o.status, 200, "the request in flight completes: {}", o.reply);
    assert_eq!(o.reply["data"]["message_id"], "wamid.slow");
    assert!(o.exit.success(), "exit status {:?}", o.exit);
    assert!(
        o.exited < o.answered + Duration::from_secs(2),
        "exited {:?} after SIGTERM, the request ended after {:?}",
        o.exited,
        o.answered
    );
    for step in
        ["shutting down", "HTTP server stopped: every in-flight request finished", "background workers stopped", "shutdown complete"]
    {
        assert!(o.logs.iter().any(|l| l.contains(step)), "the log says {step:?}: {:?}", o.logs);
    }
    // A clean shutdown reads the backlog it leaves: the database is there to the end.
    assert!(!o.logs.iter().any(|l| l.contains("unavailable") || l.contains("could not be counted")), "{:?}", o.logs);
    eprintln!("request in flight answered {:?} after SIGTERM; process exited after {:?}", o.answered, o.exited);
}

/// A request that outlasts the deadline is cut, the log says so, and the process still exits 0
/// at the deadline rather than waiting for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_bounds_the_shutdown() {
    let o = sigterm_during_a_slow_send("1").await;
    assert_ne!(o.status, 200, "the send outlasting the deadline is cut: {}", o.reply);
    assert!(o.exit.success(), "exit status {:?}", o.exit);
    assert!(o.exited < SLOW, "exited {:?} after SIGTERM: at the 1 s deadline, not when the send would have ended", o.exited);
    assert!(o.logs.iter().any(|l| l.contains("shutdown deadline reached: 1 request(s) still running were cut")), "{:?}", o.logs);
    assert!(o.logs.iter().any(|l| l.contains("shutdown complete")), "{:?}", o.logs);
}

/// Once a shutdown starts, readiness answers 503 so load balancers stop routing here over the
/// connections they keep open; liveness still answers 200.
async fn readiness_is_503_once_shutting_down(app: crate::common::TestApp) {
    app.call(actix_web::test::TestRequest::get().uri("/readyz")).await.assert_status(200);
    app.state.lifecycle.begin_shutdown();
    let ready = app.call(actix_web::test::TestRequest::get().uri("/readyz")).await;
    ready.assert_error(503, "UNAVAILABLE");
    assert_eq!(ready.header("retry-after"), Some("1"));
    app.call(actix_web::test::TestRequest::get().uri("/healthz")).await.assert_status(200);
}

http_tests!(readiness_is_503_once_shutting_down);
