//! Rate limits through the real app: per key over every endpoint, per key on search on top, per
//! client address for bad keys; then across two `parley serve` processes sharing Redis, and
//! the fallback to per-process limits while Redis is away. Small quotas (a few per minute), so
//! no test waits for a cell to come back.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_adapters_diesel::testing::TestDb;
use parley_api::runtime::config::ApiConfig;
use parley_api::runtime::limits::RateLimitConfig;
use parley_domain::model::KeyKind;
use serde_json::{Value, json};

fn limits(per_minute: u32, search_per_minute: u32, bad_key_per_minute: u32) -> ApiConfig {
    ApiConfig {
        rate_limits: RateLimitConfig { per_minute, search_per_minute, bad_key_per_minute, ..Default::default() },
        ..ApiConfig::default()
    }
}

async fn app(per_minute: u32, search_per_minute: u32, bad_key_per_minute: u32) -> TestApp {
    TestApp::with_config("sqlite", limits(per_minute, search_per_minute, bad_key_per_minute)).await
}

/// `(limit, remaining, reset)` from the `RateLimit-*` headers, `None` when absent.
fn rate(r: &Reply) -> Option<(u64, u64, u64)> {
    let n = |h: &str| r.header(h).map(|v| v.parse::<u64>().unwrap_or_else(|_| panic!("{h}: {v:?} is not a number")));
    match (n("ratelimit-limit"), n("ratelimit-remaining"), n("ratelimit-reset")) {
        (Some(l), Some(rem), Some(reset)) => Some((l, rem, reset)),
        (None, None, None) => None,
        other => panic!("RateLimit headers come together: {other:?}"),
    }
}

fn from(address: &str) -> SocketAddr {
    format!("{address}:40000").parse().unwrap()
}

async fn get_from(app: &TestApp, address: &str, path: &str, key: Option<&str>) -> Reply {
    let mut req = TestRequest::get().uri(path).peer_addr(from(address));
    if let Some(key) = key {
        req = req.insert_header(("X-API-Key", key));
    }
    app.call(req).await
}

/// Seconds in `Retry-After`, checked against the interval of the policy that refused: the wait
/// is the interval less the time the test took since the quota started being spent, rounded up,
/// so it is `interval` on a quick run; a slow machine may take a few seconds off, never add any.
#[track_caller]
fn assert_retry_after(value: Option<&str>, interval: u64) -> u64 {
    let secs: u64 = value.unwrap_or_else(|| panic!("no Retry-After")).parse().expect("Retry-After is whole seconds");
    assert!((interval.saturating_sub(3).max(1)..=interval).contains(&secs), "Retry-After {secs}, interval {interval}");
    secs
}

#[track_caller]
fn assert_rate_limited(r: &Reply, interval: u64) {
    r.assert_error(429, "RATE_LIMITED");
    let secs = assert_retry_after(r.header("retry-after"), interval);
    let message = r.body["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("retry after {secs} seconds")), "the message names the wait: {message}");
}

#[actix_web::test]
async fn every_authenticated_response_counts_down_in_its_headers() {
    let app = app(5, 0, 0).await;
    // 60 s / 5: a cell comes back every 12 s, so Reset grows by 12 with every request spent.
    let ok = app.get("/v1/tags", &app.a.secret).await;
    assert_eq!(rate(ok.assert_status(200)), Some((5, 4, 12)));
    let not_found = app.patch("/v1/tags/tag_missing", &app.a.secret, json!({"name": "x"})).await;
    assert_eq!(rate(&not_found), Some((5, 3, 24)), "handler errors carry the headers too");
    let forbidden = app.get("/v1/tags", &app.a.publishable).await;
    forbidden.assert_error(403, "FORBIDDEN");
    assert_eq!(rate(&forbidden), Some((5, 4, 12)), "another key, its own count");
    let bad_body = app.post("/v1/tags", &app.a.secret, json!({"name": 5})).await;
    assert_eq!((bad_body.status, rate(&bad_body)), (400, Some((5, 2, 36))), "extractor errors carry the headers too");
    let unauthenticated = app.get("/v1/tags", "sk_nope").await;
    assert_eq!((unauthenticated.status, rate(&unauthenticated)), (401, None), "no key, no key's quota to report");
}

#[actix_web::test]
async fn past_the_limit_the_answer_is_429_with_retry_after_in_the_error_shape() {
    let app = app(5, 0, 0).await;
    for left in (0..5).rev() {
        assert_eq!(rate(app.get("/v1/activities", &app.a.secret).await.assert_status(200)).map(|r| r.1), Some(left));
    }
    let refused = app.get("/v1/activities", &app.a.secret).await;
    assert_rate_limited(&refused, 12);
    assert_eq!(rate(&refused), Some((5, 0, 60)), "the headers come with the 429 too");
    // Refusals are not counted: asking again does not push the wait further.
    assert_rate_limited(&app.get("/v1/contacts", &app.a.secret).await, 12);
}

#[actix_web::test]
async fn search_has_a_tighter_limit_on_top_of_the_key_limit() {
    let app = app(10, 3, 0).await;
    app.import_demo_catalog(&app.a).await;
    let search = "/v1/products/search?q=warm%20socks";
    for left in (0..3).rev() {
        let r = app.get(search, &app.a.publishable).await;
        assert_eq!(rate(r.assert_status(200)), Some((3, left, (3 - left) * 20)), "the tighter policy is reported");
    }
    let refused = app.get(search, &app.a.publishable).await;
    assert_rate_limited(&refused, 20);
    assert_eq!(rate(&refused).map(|r| r.0), Some(3), "the policy that refused is reported");
    // Other endpoints only answer to the key's limit. The refused search passed the key's limit
    // before the search limit refused it, so it was counted there: 10 − 4 − 1 left.
    let list = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(rate(list.assert_status(200)).map(|r| (r.0, r.1)), Some((10, 5)));
    // When the key's limit is the tighter one, a search reports it.
    for _ in 0..5 {
        app.get("/v1/categories", &app.a.publishable).await.assert_status(200);
    }
    assert_rate_limited(&app.get(search, &app.a.publishable).await, 6);
}

#[actix_web::test]
async fn each_key_has_its_own_quota() {
    let app = app(3, 0, 0).await;
    for _ in 0..3 {
        app.get("/v1/tags", &app.a.secret).await.assert_status(200);
    }
    assert_rate_limited(&app.get("/v1/tags", &app.a.secret).await, 20);
    let same_agent = app.get("/v1/products", &app.a.publishable).await;
    assert_eq!(rate(same_agent.assert_status(200)).map(|r| r.1), Some(2), "the agent's other key is untouched");
    let other_agent = app.get("/v1/tags", &app.b.secret).await;
    assert_eq!(rate(other_agent.assert_status(200)).map(|r| r.1), Some(2), "another agent's key is untouched");
}

/// A member of the agent, signed in with its one-time password changed; returns its session
/// cookie and anti-forgery token.
async fn member_session(app: &TestApp, email: &str) -> (String, String) {
    let input = parley_domain::services::NewMemberInput { email: Some(email.into()), name: Some("Member".into()), role: None };
    let added = app.state.members.add(&app.a.agent, input).await.unwrap();
    let r = app.call(TestRequest::post().uri("/v1/sign_in").set_json(json!({"email": email, "password": added.one_time_password}))).await;
    r.assert_status(200);
    let cookie = r.header("set-cookie").unwrap().split(';').next().unwrap().trim_start_matches("parley_session=").to_string();
    let csrf = r.data()["csrf_token"].as_str().unwrap().to_string();
    let change = json!({"current_password": added.one_time_password, "new_password": "a long new passphrase"});
    let req = TestRequest::post()
        .uri("/v1/session/password")
        .cookie(actix_web::cookie::Cookie::new("parley_session", cookie.clone()))
        .insert_header(("X-CSRF-Token", csrf.as_str()))
        .set_json(change);
    app.call(req).await.assert_status(200);
    (cookie, csrf)
}

#[actix_web::test]
async fn each_member_session_has_its_own_quota() {
    let app = app(3, 0, 20).await;
    let (ana, _) = member_session(&app, "ana@shop.example").await;
    let (bea, _) = member_session(&app, "bea@shop.example").await;
    let tags =
        |cookie: &str| TestRequest::get().uri("/v1/tags").cookie(actix_web::cookie::Cookie::new("parley_session", cookie.to_string()));
    // The password change above counted one request of each session.
    for _ in 0..2 {
        app.call(tags(&ana)).await.assert_status(200);
    }
    assert_rate_limited(&app.call(tags(&ana)).await, 20);
    let other_member = app.call(tags(&bea)).await;
    assert_eq!(rate(other_member.assert_status(200)).map(|r| r.1), Some(1), "the agent's other member is untouched");
    let key = app.get("/v1/tags", &app.a.secret).await;
    assert_eq!(rate(key.assert_status(200)).map(|r| r.1), Some(2), "and so is the agent's key");
}

#[actix_web::test]
async fn zero_turns_a_limit_off() {
    let off = TestApp::new("sqlite").await;
    for _ in 0..150 {
        let r = off.get("/v1/tags", &off.a.secret).await;
        assert_eq!((r.status, rate(&r)), (200, None), "no limit by default in tests, and no headers without one");
    }
    for _ in 0..30 {
        off.get("/v1/tags", "sk_wrong").await.assert_error(401, "UNAUTHORIZED");
    }

    let search_only = app(0, 2, 0).await;
    assert_eq!(rate(search_only.get("/v1/products", &search_only.a.publishable).await.assert_status(200)), None);
    let search = "/v1/products/search?q=tea";
    assert_eq!(rate(search_only.get(search, &search_only.a.publishable).await.assert_status(200)), Some((2, 1, 30)));
}

#[actix_web::test]
async fn bad_keys_are_limited_per_client_address_whatever_the_key() {
    let app = app(100, 0, 3).await;
    let (attacker, neighbour) = ("203.0.113.7", "198.51.100.9");
    for key in [Some("sk_guess1"), None, Some(&*app.a.secret.replace("sk_", "pk_"))] {
        let r = get_from(&app, attacker, "/v1/tags", key).await;
        r.assert_error(401, "UNAUTHORIZED");
        assert_eq!(rate(&r), None);
    }
    let refused = get_from(&app, attacker, "/v1/tags", Some("sk_guess4")).await;
    assert_rate_limited(&refused, 20);
    assert_eq!(rate(&refused), None, "bad keys have no key quota to report");
    // A valid key from that address is refused alike, so a right guess cannot be told apart.
    let valid = get_from(&app, attacker, "/v1/tags", Some(&app.a.secret)).await;
    assert_rate_limited(&valid, 20);
    assert_eq!(rate(&valid), None);
    assert_eq!(valid.body["error"]["message"].as_str().map(|m| m.split(';').next()), Some(Some("too many requests")));
    // Other addresses are not affected, with a valid key or a bad one.
    get_from(&app, neighbour, "/v1/tags", Some(&app.a.secret)).await.assert_status(200);
    get_from(&app, neighbour, "/v1/tags", Some("sk_typo")).await.assert_error(401, "UNAUTHORIZED");
}

/// Two `X-API-Key` headers are refused, not resolved by taking the first (which is what a
/// proxy adding its own key, or a client probing, would rely on): 401 saying to send one, and
/// counted against the address like any bad key, even when both keys are valid.
#[actix_web::test]
async fn two_keys_are_refused_and_counted_as_a_bad_key() {
    let app = app(100, 0, 2).await;
    let address = "203.0.113.8";
    let twice = |first: &str, second: &str| {
        TestRequest::get()
            .uri("/v1/tags")
            .peer_addr(from(address))
            .append_header(("X-API-Key", first.to_string()))
            .append_header(("X-API-Key", second.to_string()))
    };
    for (first, second) in [(app.a.secret.clone(), app.a.secret.clone()), (app.a.secret.clone(), "sk_guess".to_string())] {
        let r = app.call(twice(&first, &second)).await;
        r.assert_error(401, "UNAUTHORIZED");
        assert_eq!(r.body["error"]["message"], "send exactly one key: one X-API-Key header, or one Authorization: Bearer header");
        assert_eq!(rate(&r), None, "no single key to report a quota for");
    }
    assert_rate_limited(&app.call(twice("sk_guess", &app.a.secret)).await, 30);
    assert_rate_limited(&get_from(&app, address, "/v1/tags", Some(&app.a.secret)).await, 30);
}

/// An unknown `/v1` path is behind the key like every other: 401 without a valid key, and with
/// one a 404 that is counted and carries the `RateLimit-*` headers (it was neither).
#[actix_web::test]
async fn unknown_v1_routes_are_counted_against_the_key() {
    let app = app(5, 0, 0).await;
    let first = app.get("/v1/nope", &app.a.secret).await;
    first.assert_error(404, "NOT_FOUND");
    assert_eq!(rate(&first), Some((5, 4, 12)));
    let second = app.get("/v1/tags/x/y/z", &app.a.secret).await;
    second.assert_error(404, "NOT_FOUND");
    assert_eq!(rate(&second), Some((5, 3, 24)), "counted");
    app.get("/v1/nope", "sk_nope").await.assert_error(401, "UNAUTHORIZED");
    app.call(TestRequest::get().uri("/v1/nope")).await.assert_error(401, "UNAUTHORIZED");
    assert_eq!(rate(app.get("/v1/tags", &app.a.secret).await.assert_status(200)), Some((5, 2, 36)));
}

/// `GET /v1/tags` from peer `peer` with `X-Forwarded-For: forwarded` and key `key`.
fn forwarded_by(peer: &str, forwarded: &str, key: &str) -> TestRequest {
    TestRequest::get()
        .uri("/v1/tags")
        .peer_addr(from(peer))
        .insert_header(("X-Forwarded-For", forwarded.to_string()))
        .insert_header(("X-API-Key", key.to_string()))
}

/// Behind a trusted proxy, each client it forwards has its own bad-key budget, and what a client
/// writes into `X-Forwarded-For` itself is not believed; a peer that is not a trusted proxy is
/// counted by its own address, whatever it forwards.
#[actix_web::test]
async fn behind_a_trusted_proxy_bad_keys_are_limited_per_forwarded_client() {
    let mut config = limits(100, 0, 2);
    config.rate_limits.trusted_proxies = parley_api::runtime::limits::client::TrustedProxies::parse("10.0.0.0/8").unwrap();
    let app = TestApp::with_config("sqlite", config).await;
    let via_proxy = |forwarded: &str| forwarded_by("10.0.0.2", forwarded, "sk_guess");
    // The attacker rotates the address it writes; the proxy appends the one it saw.
    for spoofed in ["1.1.1.1", "2.2.2.2"] {
        app.call(via_proxy(&format!("{spoofed}, 203.0.113.7"))).await.assert_error(401, "UNAUTHORIZED");
    }
    assert_rate_limited(&app.call(via_proxy("3.3.3.3, 203.0.113.7")).await, 30);
    // Another client of the same proxy is not affected.
    app.call(via_proxy("198.51.100.9")).await.assert_error(401, "UNAUTHORIZED");
    app.call(forwarded_by("10.0.0.2", "198.51.100.9", &app.a.secret)).await.assert_status(200);

    // Not a trusted proxy: its forwarding is ignored, so rotating it does not help.
    let direct = |forwarded: &str| forwarded_by("192.0.2.50", forwarded, "sk_guess");
    for forwarded in ["4.4.4.4", "5.5.5.5"] {
        app.call(direct(forwarded)).await.assert_error(401, "UNAUTHORIZED");
    }
    assert_rate_limited(&app.call(direct("6.6.6.6")).await, 30);
}

// ---- Two processes, one Redis ----

fn redis_url() -> String {
    std::env::var("PARLEY_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// A key prefix no other test run uses.
fn unique_prefix(test: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("parley-test:{test}:{}:{nanos}:", std::process::id())
}

/// One HTTP/1.1 GET over a fresh connection: `(status, lowercase headers, body)`.
fn http_get(port: u16, path: &str, key: Option<&str>) -> (u16, Vec<(String, String)>, Value) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let key = key.map(|k| format!("X-API-Key: {k}\r\n")).unwrap_or_default();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{key}Connection: close\r\n\r\n").unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("not an HTTP answer: {raw:?}"));
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())).collect();
    (status, headers, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn remaining(headers: &[(String, String)]) -> Option<u64> {
    header(headers, "ratelimit-remaining").map(|v| v.parse().unwrap())
}

/// How many log lines of `server` contain `needle`, once at least one does (lines reach the
/// test through a pipe and a thread, a moment after the server wrote them).
fn times_logged(server: &ParleyServer, needle: &str) -> usize {
    let deadline = Instant::now() + Duration::from_secs(5);
    while server.logged(needle).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    server.logged(needle).len()
}

fn serve(database_url: &str, env: &[(&str, &str)]) -> ParleyServer {
    ParleyServer::start_on(database_url, free_port(), env, |l| l.starts_with("Parley is serving"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_over_one_redis_enforce_one_limit() {
    let db = TestDb::postgres().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Scaled out").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let fresh_key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let storefront = state.keys.issue_key(&agent, KeyKind::Publishable).await.unwrap().plaintext;
    let (url, prefix) = (redis_url(), unique_prefix("two-instances"));
    let env = [
        ("REDIS_URL", url.as_str()),
        ("PARLEY_REDIS_KEY_PREFIX", prefix.as_str()),
        ("PARLEY_RATE_LIMIT_PER_MINUTE", "6"),
        ("PARLEY_SEARCH_RATE_LIMIT_PER_MINUTE", "2"),
        ("PARLEY_BAD_KEY_RATE_LIMIT_PER_MINUTE", "2"),
    ];
    let servers = [serve(&db.url, &env), serve(&db.url, &env)];

    // Alternating between the instances, the six requests of the quota count down one quota.
    for (i, left) in (0..6).rev().enumerate() {
        let (status, headers, body) = http_get(servers[i % 2].port, "/v1/tags", Some(&key));
        assert_eq!((status, remaining(&headers)), (200, Some(left)), "request {i} on instance {}: {body}", i % 2);
    }
    for server in &servers {
        let (status, headers, body) = http_get(server.port, "/v1/tags", Some(&key));
        assert_eq!((status, body["error"]["code"].as_str()), (429, Some("RATE_LIMITED")), "{body}");
        assert_retry_after(header(&headers, "retry-after"), 10); // 60 s / 6, from the shared counter
    }

    // Search: its own, tighter quota, checked in the same script call as the key's.
    let search = "/v1/products/search?q=tea";
    for (i, left) in [1, 0].into_iter().enumerate() {
        let (status, headers, body) = http_get(servers[i].port, search, Some(&storefront));
        assert_eq!((status, header(&headers, "ratelimit-limit"), remaining(&headers)), (200, Some("2"), Some(left)), "{body}");
    }
    let (status, headers, _) = http_get(servers[0].port, search, Some(&storefront));
    assert_eq!(status, 429);
    assert_retry_after(header(&headers, "retry-after"), 30); // 60 s / 2, from the shared counter
    let (status, headers, _) = http_get(servers[1].port, "/v1/products", Some(&storefront));
    assert_eq!((status, remaining(&headers)), (200, Some(2)), "the key's own quota: 6 − 3 searches − this one");

    // Bad keys: two on one instance spend the address's budget for both.
    for _ in 0..2 {
        assert_eq!(http_get(servers[0].port, "/v1/tags", Some("sk_guess")).0, 401);
    }
    assert_eq!(http_get(servers[1].port, "/v1/tags", Some("sk_guess")).0, 429, "the other instance knows");
    let (status, headers, _) = http_get(servers[0].port, "/v1/tags", Some(&fresh_key));
    assert_eq!((status, remaining(&headers)), (429, None), "and refuses even a valid, unspent key from that address");
    let blocked = "too many requests with a bad key from one client address";
    assert_eq!(times_logged(&servers[1], blocked), 1, "the instance that refused the first request over the limit says so, once");
    assert!(servers[1].logged(blocked)[0].contains("127.0.0.1"), "naming the address: {:?}", servers[1].logged(blocked));
    assert!(servers[0].logged(blocked).is_empty(), "requests refused during the block are not logged one by one");
    for server in &servers {
        assert!(server.logged("Redis is unreachable").is_empty(), "Redis answered all along");
    }
}

/// `redis-server` on a port of its own, without persistence, killed when dropped.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed");
        let deadline = Instant::now() + Duration::from_secs(10);
        while !redis_cli(port, &["ping"]).contains("PONG") {
            assert!(Instant::now() < deadline, "redis-server never answered on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self { child, port }
    }

    fn keys(&self, prefix: &str) -> Vec<String> {
        redis_cli(self.port, &["--scan", "--pattern", &format!("{prefix}*")]).lines().map(str::to_string).collect()
    }

    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn redis_cli(port: u16, args: &[&str]) -> String {
    let out = Command::new("redis-cli").args(["-h", "127.0.0.1", "-p", &port.to_string()]).args(args).output().expect("redis-cli runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_redis_each_instance_limits_on_its_own_and_warns_once() {
    let db = TestDb::sqlite().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("No Redis").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let nowhere = format!("redis://127.0.0.1:{}", free_port());
    let server = serve(&db.url, &[("REDIS_URL", nowhere.as_str()), ("PARLEY_RATE_LIMIT_PER_MINUTE", "4")]);

    for left in (0..4).rev() {
        let (status, headers, body) = http_get(server.port, "/v1/tags", Some(&key));
        assert_eq!((status, remaining(&headers)), (200, Some(left)), "{body}");
    }
    let (status, headers, _) = http_get(server.port, "/v1/tags", Some(&key));
    assert_eq!(status, 429, "the process still enforces the limit");
    assert_retry_after(header(&headers, "retry-after"), 15);
    assert_eq!(times_logged(&server, "Redis is unreachable"), 1, "one warning, not one per request");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_redis_goes_away_requests_are_served_and_it_is_used_again_once_back() {
    let db = TestDb::sqlite().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Flaky Redis").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Secret).await.unwrap().plaintext;
    let port = free_port();
    let redis = RedisServer::start(port);
    let (url, prefix) = (format!("redis://127.0.0.1:{port}"), unique_prefix("flaky"));
    let env = [
        ("REDIS_URL", url.as_str()),
        ("PARLEY_REDIS_KEY_PREFIX", prefix.as_str()),
        ("PARLEY_RATE_LIMIT_PER_MINUTE", "100"),
        ("PARLEY_LOG", "info"),
    ];
    let server = serve(&db.url, &env);

    assert_eq!(http_get(server.port, "/v1/tags", Some(&key)).0, 200);
    assert_eq!(redis.keys(&prefix).len(), 1, "the count lives in Redis");

    redis.kill();
    for i in 0..10 {
        let (status, headers, body) = http_get(server.port, "/v1/tags", Some(&key));
        assert_eq!(status, 200, "request {i} while Redis is away: {body}");
        assert!(remaining(&headers).is_some(), "still limited, by this process");
    }
    assert_eq!(times_logged(&server, "Redis is unreachable"), 1, "one warning, not one per request");

    let redis = RedisServer::start(port);
    let deadline = Instant::now() + Duration::from_secs(15);
    while redis.keys(&prefix).is_empty() {
        assert!(Instant::now() < deadline, "the limits never went back to Redis");
        assert_eq!(http_get(server.port, "/v1/tags", Some(&key)).0, 200);
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(times_logged(&server, "Redis answers again"), 1);
}

#[actix_web::test]
async fn browsers_may_read_the_rate_limit_headers() {
    let app = app(5, 0, 0).await;
    let r = app
        .call(
            TestRequest::get()
                .uri("/v1/products")
                .insert_header(("X-API-Key", app.a.publishable.as_str()))
                .insert_header(("Origin", "https://shop.example.com")),
        )
        .await;
    assert_eq!(rate(r.assert_status(200)), Some((5, 4, 12)));
    let exposed = r.header("access-control-expose-headers").unwrap_or_default().to_ascii_lowercase();
    for name in ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "retry-after"] {
        assert!(exposed.contains(name), "{name} is not exposed to scripts: {exposed}");
    }
}

/// The same requests through both stores get the same answers: the Lua script and governor run
/// one quota, so a process falling back to its own counters (or coming back) behaves alike.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_and_redis_stores_agree() {
    use parley_api::runtime::limits::memory::MemoryStore;
    use parley_api::runtime::limits::redis::RedisStore;
    use parley_api::runtime::limits::{Admit, Bucket, LimitStore, RedisConfig, Tally};

    let redis = RedisConfig { url: redis_url(), key_prefix: unique_prefix("agree") };
    let config =
        RateLimitConfig { per_minute: 4, search_per_minute: 2, bad_key_per_minute: 2, redis: Some(redis.clone()), ..Default::default() };
    let stores: [Box<dyn LimitStore>; 2] = [Box::new(MemoryStore::new(&config)), Box::new(RedisStore::new(&redis, &config).unwrap())];
    // Waits shrink with the time the test takes: compare them rounded up to 5 s (the intervals
    // here are multiples of 5 s), which a slow machine cannot cross.
    let secs = |wait: std::time::Duration| wait.as_micros().div_ceil(5_000_000) * 5;
    let coarse = |admit: Admit| match admit {
        Admit::Blocked { retry_after } => format!("blocked {}", secs(retry_after)),
        Admit::Counted(tallies) => tallies
            .iter()
            .map(|t| match t {
                Tally::Allowed { remaining } => format!("allowed {remaining}"),
                Tally::Refused { retry_after } => format!("refused {}", secs(*retry_after)),
            })
            .collect::<Vec<_>>()
            .join(", "),
    };
    let both = [Bucket::Key, Bucket::Search];
    let mut answers: [Vec<String>; 2] = Default::default();
    for (store, answers) in stores.iter().zip(&mut answers) {
        for _ in 0..3 {
            answers.push(coarse(store.admit("192.0.2.1", "key_a", &both).await.unwrap()));
        }
        for _ in 0..3 {
            answers.push(coarse(store.admit("192.0.2.1", "key_a", &[Bucket::Key]).await.unwrap()));
        }
        answers.push(coarse(store.admit("192.0.2.1", "key_b", &[Bucket::Key]).await.unwrap()));
        for _ in 0..3 {
            answers.push(coarse(store.bad_key("192.0.2.1").await.unwrap()));
        }
        answers.push(coarse(store.admit("192.0.2.1", "key_b", &[Bucket::Key]).await.unwrap()));
        answers.push(coarse(store.admit("192.0.2.2", "key_b", &[Bucket::Key]).await.unwrap()));
    }
    let expected = [
        "allowed 3, allowed 1",
        "allowed 2, allowed 0",
        "allowed 1, refused 30",
        "allowed 0",
        "refused 15",
        "refused 15",
        "allowed 3",
        "allowed 1",
        "allowed 0",
        "refused 30",
        "blocked 30",
        "allowed 2",
    ];
    assert_eq!(answers[0], expected, "memory");
    assert_eq!(answers[1], expected, "redis");
}
