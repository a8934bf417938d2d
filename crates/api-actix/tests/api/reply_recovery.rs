//! Replies survive a crash: a reply is recorded (`sending`) before the platform is called, a
//! refusal removes it, an outage keeps it `sending`, the platform's statuses settle it through
//! `biz_opaque_callback_data`, and a retry with the same `Idempotency-Key` after a cut first
//! request answers the recorded reply instead of 409. In process on both backends, and with the
//! real binary killed (SIGKILL) while the fake Graph API holds its send.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::TestApp;
use crate::common::server::{ParleyServer, free_port};
use crate::messaging::{
    APP_SECRET, CLOUD_PHONE, CLOUD_WABA, TOKEN, accepted, cloud_line, inbound_webhook, messages_path, poll, sends_received, signed_webhook,
    start, statuses_webhook,
};
use actix_web::test::TestRequest;
use parley_adapters_diesel::testing::{TestDb, execute};
use parley_domain::model::KeyKind;
use parley_domain::services::IdempotencyService;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

backend_tests!(
    a_refused_reply_leaves_nothing_and_an_outage_leaves_it_sending_until_its_status_names_it,
    a_retry_after_a_cut_reply_answers_the_recorded_reply_and_never_sends_again,
    a_retry_after_a_reply_cut_before_it_recorded_anything_sends_it,
);

const ANN: &str = "14155550100";

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Ann wrote just now on the Cloud line: returns her activity id.
async fn ann_wrote(app: &TestApp, server: &MockServer) -> String {
    cloud_line(app, server, vec![]).await;
    signed_webhook(app, &inbound_webhook(CLOUD_PHONE, ANN, "Ann Lee", "wamid.hello", now())).await;
    let found = poll(app, &format!("/v1/activities?search={ANN}"), |d| d.as_array().is_some_and(|a| !a.is_empty())).await;
    found[0]["id"].as_str().unwrap().to_string()
}

/// The activity as its detail shows it.
async fn detail(app: &TestApp, activity: &str) -> Value {
    app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await.data().clone()
}

fn replies(activity: &str) -> String {
    format!("/v1/activities/{activity}/messages")
}

fn reply_request(app: &TestApp, activity: &str, key: Option<&str>, body: &Value) -> TestRequest {
    let mut req = TestRequest::post().uri(&replies(activity)).insert_header(("X-API-Key", app.a.secret.as_str()));
    if let Some(key) = key {
        req = req.insert_header(("Idempotency-Key", key));
    }
    req.set_json(body)
}

/// The `biz_opaque_callback_data` of each send the fake Graph API received, in order.
async fn callback_data(server: &MockServer) -> Vec<Value> {
    let received = server.received_requests().await.unwrap_or_default();
    let sends = received.iter().filter(|r| r.method.as_str() == "POST");
    sends.map(|r| serde_json::from_slice::<Value>(&r.body).unwrap()["biz_opaque_callback_data"].clone()).collect()
}

async fn a_refused_reply_leaves_nothing_and_an_outage_leaves_it_sending_until_its_status_names_it(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let before = detail(&app, &activity).await;
    let hi = json!({"type": "text", "text": {"body": "On its way!"}});

    // A definitive refusal: 422, and nothing is left of the attempt, on the timeline or the activity.
    let refusal =
        ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "(#131026) Message undeliverable", "code": 131026}}));
    let refused = Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(refusal).mount_as_scoped(&server).await;
    app.tick();
    app.call(reply_request(&app, &activity, None, &hi)).await.assert_error(422, "MESSAGE_REJECTED");
    drop(refused);
    let timeline = app.get(&replies(&activity), &app.a.secret).await;
    assert_eq!(timeline.data().as_array().unwrap().len(), 1, "only Ann's message: {}", timeline.body);
    assert_eq!(timeline.body["pagination"]["total"], 1);
    let after = detail(&app, &activity).await;
    assert_eq!((&after["last_message"], &after["updated_at"]), (&before["last_message"], &before["updated_at"]), "the activity as it was");
    let sent_as = callback_data(&server).await;
    assert!(sent_as[0].as_str().is_some_and(|d| d.starts_with("msg_")), "the send named the recorded reply: {sent_as:?}");

    // An outage: 502, and the reply stays on the timeline as `sending` (it may have gone out).
    let outage = Mock::given(method("POST"))
        .and(path(messages_path(CLOUD_PHONE)))
        .respond_with(ResponseTemplate::new(503))
        .mount_as_scoped(&server)
        .await;
    app.tick();
    app.call(reply_request(&app, &activity, None, &hi)).await.assert_error(502, "UPSTREAM_ERROR");
    drop(outage);
    let timeline = app.get(&replies(&activity), &app.a.secret).await;
    let pending = timeline.data()[0].clone();
    assert_eq!(
        (&pending["status"], &pending["direction"], &pending["text"]),
        (&json!("sending"), &json!("outbound"), &json!("On its way!"))
    );
    assert_eq!((&pending["platform_message_id"], &pending["sent_at"]), (&Value::Null, &Value::Null));
    assert_eq!(callback_data(&server).await[1], pending["id"], "the send carried its id");
    assert_eq!(detail(&app, &activity).await["last_message"]["id"], pending["id"]);

    // The platform did send it: its status report names it by the callback data.
    let at = now();
    let id = pending["id"].as_str().unwrap();
    signed_webhook(&app, &statuses_webhook(CLOUD_PHONE, CLOUD_WABA, id, &[("wamid.lost", "delivered", at)])).await;
    let uri = format!("{}/{id}", replies(&activity));
    let settled = poll(&app, &uri, |m| m["status"] == "delivered").await;
    assert_eq!(settled["platform_message_id"], "wamid.lost");
    assert_eq!(settled["sent_at"], settled["created_at"], "sent when it was recorded and went out");
    assert!(settled["delivered_at"].is_string());
    // From then on it is found by its platform id, as any reply.
    signed_webhook(&app, &statuses_webhook(CLOUD_PHONE, CLOUD_WABA, "", &[("wamid.lost", "read", at + 1)])).await;
    poll(&app, &uri, |m| m["status"] == "read").await;
}

/// The first request is only slow here (the fake Graph API holds its answer), and the clock is
/// moved past the lease while it waits: the retry answers the recorded reply, `sending`, and
/// sends nothing; later retries replay that answer.
async fn a_retry_after_a_cut_reply_answers_the_recorded_reply_and_never_sends_again(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    let slow = accepted(ANN, "wamid.slow").set_delay(Duration::from_millis(600));
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(slow).expect(1).mount(&server).await;
    let body = json!({"type": "text", "text": {"body": "On its way!"}});
    let send = || app.call(reply_request(&app, &activity, Some("reply-cut-1"), &body));
    let retries = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let running = send().await;
        app.clock.advance(IdempotencyService::LEASE + chrono::TimeDelta::seconds(1));
        let cut = send().await;
        let replayed = send().await;
        (running, cut, replayed)
    };
    let (first, (running, cut, replayed)) = tokio::join!(send(), retries);
    running.assert_error(409, "CONFLICT");
    cut.assert_status(201);
    let recovered = cut.data();
    assert_eq!((&recovered["status"], &recovered["text"]), (&json!("sending"), &json!("On its way!")), "{recovered}");
    assert_eq!(cut.header("idempotent-replayed"), None, "the first answer given for the key");
    assert_eq!((replayed.status, &replayed.body), (201, &cut.body), "later retries replay it");
    assert_eq!(replayed.header("idempotent-replayed"), Some("true"));
    first.assert_status(201);
    assert_eq!(first.data()["id"], recovered["id"], "one reply");
    assert_eq!(first.data()["status"], "sent");
    assert_eq!(sends_received(&server).await, 1, "one message upstream, whatever the retries");
    let timeline = app.get(&replies(&activity), &app.a.secret).await;
    assert_eq!(timeline.body["pagination"]["total"], 2, "Ann's message and one reply: {}", timeline.body);
}

/// A claim cut before its request recorded anything (no recovery point): nothing reached the
/// platform, so the retry makes the reply.
async fn a_retry_after_a_reply_cut_before_it_recorded_anything_sends_it(backend: &str) {
    let (server, app) = start(backend).await;
    let activity = ann_wrote(&app, &server).await;
    Mock::given(method("POST")).and(path(messages_path(CLOUD_PHONE))).respond_with(accepted(ANN, "wamid.late")).mount(&server).await;
    let body = json!({"type": "text", "text": {"body": "On its way!"}});
    // The claim the first request made, as the handler fingerprints it, six minutes ago.
    let dto: parley_api::http::dto::SendReply = serde_json::from_value(body.clone()).unwrap();
    let fingerprint = hex::encode(Sha256::digest(format!("{activity}\n{}", serde_json::to_string(&dto).unwrap())));
    let then = parley_domain::ports::Clock::now(&*app.clock) - chrono::TimeDelta::minutes(6);
    let claim = app.db.store.repositories().idempotency.claim(&app.a.agent, "reply-cut-2", &fingerprint, then, then).await.unwrap();
    assert_eq!(claim, parley_domain::model::IdempotencyClaim::Claimed);

    let r = app.call(reply_request(&app, &activity, Some("reply-cut-2"), &body)).await;
    r.assert_status(201);
    assert_eq!((&r.data()["status"], &r.data()["platform_message_id"]), (&json!("sent"), &json!("wamid.late")));
    assert_eq!(sends_received(&server).await, 1);
    let again = app.call(reply_request(&app, &activity, Some("reply-cut-2"), &body)).await;
    assert_eq!((again.status, &again.body, again.header("idempotent-replayed")), (201, &r.body, Some("true")));
}

// ---------- the real binary, killed while its send is held ----------

const SERVING: fn(&str) -> bool = |l| l.starts_with("Parley is serving");
const PHONE: &str = "106540352240042";
const WABA: &str = "102290129340042";

fn serve(db: &TestDb, graph: &MockServer, port: u16) -> ParleyServer {
    let env = [("PARLEY_WHATSAPP_API_BASE", graph.uri()), ("PARLEY_WHATSAPP_APP_SECRET", APP_SECRET.to_string())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ParleyServer::start_on(&db.url, port, &env, SERVING)
}

fn curl(args: &[&str]) -> (u16, Value, String) {
    let out = Command::new("curl").args(["-s", "-i"]).args(args).output().expect("curl runs");
    parse_curl(&String::from_utf8_lossy(&out.stdout))
}

/// `(status, JSON body, headers)` of `curl -i` output.
fn parse_curl(text: &str) -> (u16, Value, String) {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, serde_json::from_str(body).unwrap_or(Value::Null), head.to_ascii_lowercase())
}

fn reply_curl(server: &ParleyServer, key: &str, activity: &str, body: &Value) -> Vec<String> {
    let url = format!("{}/v1/activities/{activity}/messages", server.url());
    [
        "-X",
        "POST",
        "-H",
        &format!("X-API-Key: {key}"),
        "-H",
        "Idempotency-Key: crash-1",
        "-H",
        "Content-Type: application/json",
        "-d",
        &body.to_string(),
        &url,
    ]
    .map(String::from)
    .to_vec()
}

fn get(server: &ParleyServer, key: &str, path: &str) -> Value {
    curl(&["-H", &format!("X-API-Key: {key}"), &format!("{}{path}", server.url())]).1
}

/// Polls `path` on `server` until `done(data)` holds (10 s at most).
fn poll_get(server: &ParleyServer, key: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = get(server, key, path);
        if done(&answer["data"]) {
            return answer["data"].clone();
        }
        assert!(Instant::now() < deadline, "gave up polling {path}: {answer}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

async fn sends(graph: &MockServer) -> Vec<Request> {
    graph.received_requests().await.unwrap_or_default().into_iter().filter(|r| r.method.as_str() == "POST").collect()
}

async fn a_reply_cut_by_a_crash_is_on_the_timeline_answered_to_its_retry_and_settled_by_its_status(db: TestDb) {
    // A fake Graph API that takes the send and holds its answer far longer than the test waits.
    let graph = MockServer::start().await;
    let held = accepted(ANN, "wamid.crash").set_delay(Duration::from_secs(120));
    Mock::given(method("POST")).and(path(messages_path(PHONE))).respond_with(held).mount(&graph).await;
    // The template sync each start makes: no templates.
    Mock::given(method("GET")).respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": []}))).mount(&graph).await;

    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Crash").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    state.lines.add(&agent, PHONE, WABA, Some(TOKEN)).await.unwrap();
    let port = free_port();
    let first = serve(&db, &graph, port);
    let inbound = inbound_webhook(PHONE, ANN, "Ann Lee", "wamid.hello", now()).replace(CLOUD_WABA, WABA);
    let signature = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, inbound.as_bytes());
    let (status, _, _) = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("X-Hub-Signature-256: {signature}"),
        "-d",
        &inbound,
        &format!("{}/webhooks/whatsapp", first.url()),
    ]);
    assert_eq!(status, 200);
    let activities = poll_get(&first, &key, "/v1/activities", |d| d.as_array().is_some_and(|a| !a.is_empty()));
    let activity = activities[0]["id"].as_str().unwrap().to_string();

    // The reply goes out; the platform has it; the process dies before it hears back.
    let body = json!({"type": "text", "text": {"body": "On its way!"}});
    let mut request: Child = Command::new("curl")
        .args(["-s", "-i"])
        .args(reply_curl(&first, &key, &activity, &body))
        .stdout(Stdio::piped())
        .spawn()
        .expect("curl runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while sends(&graph).await.is_empty() {
        assert!(Instant::now() < deadline, "the send never reached the fake Graph API");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.crash();
    let cut = request.wait_with_output_in_place();
    assert_eq!(cut.0, 0, "the client's request was cut, unanswered: {cut:?}");

    // A new process: the reply is on the timeline, `sending`, named in the send it made.
    let second = serve(&db, &graph, port);
    let timeline = get(&second, &key, &format!("/v1/activities/{activity}/messages"));
    let reply = timeline["data"][0].clone();
    assert_eq!(
        (&reply["status"], &reply["text"], &reply["direction"]),
        (&json!("sending"), &json!("On its way!"), &json!("outbound")),
        "{timeline}"
    );
    assert_eq!(timeline["pagination"]["total"], 2);
    let sent = sends(&graph).await;
    let wire: Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(wire["biz_opaque_callback_data"], reply["id"], "{wire}");

    // A retry at once: the first claim is still within its lease (no process can tell a dead
    // request from a slow one), so 409; once the lease has run out (the claim is aged here, as
    // five minutes would), the retry answers the reply as it is now, and sends nothing.
    let retry = |server: &ParleyServer| curl(&reply_curl(server, &key, &activity, &body).iter().map(String::as_str).collect::<Vec<_>>());
    let (status, early, _) = retry(&second);
    assert_eq!(status, 409, "{early}");
    let lease = IdempotencyService::LEASE.num_milliseconds() + 1000;
    let aged = execute(&db.store, &format!("UPDATE idempotency_keys SET created_at = created_at - {lease} WHERE key = 'crash-1'")).await;
    assert_eq!(aged, 1);
    let (status, answered, headers) = retry(&second);
    assert_eq!(status, 201, "not 409 for good: {answered}");
    assert_eq!(answered["data"], reply, "the recorded reply, as it is now");
    assert!(!headers.contains("idempotent-replayed"), "{headers}");
    let (status, replayed, headers) = retry(&second);
    assert_eq!((status, &replayed), (201, &answered));
    assert!(headers.contains("idempotent-replayed: true"), "{headers}");
    assert_eq!(sends(&graph).await.len(), 1, "never sent twice");

    // The platform reports it delivered, naming it by the callback data: it is settled.
    let id = reply["id"].as_str().unwrap();
    let status_body = statuses_webhook(PHONE, WABA, id, &[("wamid.crash", "delivered", now())]);
    let signature = parley_adapters_whatsapp::webhook_auth::sign(APP_SECRET, status_body.as_bytes());
    let (status, _, _) = curl(&[
        "-X",
        "POST",
        "-H",
        &format!("X-Hub-Signature-256: {signature}"),
        "-d",
        &status_body,
        &format!("{}/webhooks/whatsapp", second.url()),
    ]);
    assert_eq!(status, 200);
    let settled = poll_get(&second, &key, &format!("/v1/activities/{activity}/messages/{id}"), |m| m["status"] == "delivered");
    assert_eq!(settled["platform_message_id"], "wamid.crash");
    assert!(settled["delivered_at"].is_string());
}

/// `Child::wait_with_output` for a child whose stdout is piped: its status code from `curl -i`
/// (0 when it got no answer at all) and what it printed.
trait WaitInPlace {
    fn wait_with_output_in_place(&mut self) -> (u16, String);
}

impl WaitInPlace for Child {
    fn wait_with_output_in_place(&mut self) -> (u16, String) {
        use std::io::Read;
        let mut printed = String::new();
        self.stdout.take().unwrap().read_to_string(&mut printed).unwrap();
        self.wait().unwrap();
        (parse_curl(&printed).0, printed)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_cut_by_a_crash_survives_on_postgres() {
    a_reply_cut_by_a_crash_is_on_the_timeline_answered_to_its_retry_and_settled_by_its_status(TestDb::postgres().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_cut_by_a_crash_survives_on_sqlite() {
    a_reply_cut_by_a_crash_is_on_the_timeline_answered_to_its_retry_and_settled_by_its_status(TestDb::sqlite().await).await;
}
