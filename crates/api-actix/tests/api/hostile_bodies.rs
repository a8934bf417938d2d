//! Hostile input over HTTP: every endpoint that reads a JSON body or query parameters gets
//! arbitrary JSON (wrong types, huge numbers, deep nesting, unicode, nulls), raw bytes that are
//! barely JSON, and near-valid bodies (a valid body with one field changed, removed or added).
//! Whatever arrives, the answer is a documented status: a success, or a 4xx in the error shape
//! of docs/api-conventions.md (#errors) with a known code. Never a 5xx, never a panic.
//!
//! Each property runs on both backends (one app per test, proptest driving it through one
//! actix runtime): PostgreSQL refuses what SQLite stores (a NUL byte), so a rule enforced only
//! by one backend shows up as a 5xx on the other.

use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_domain::model::ActivityStatus;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Map, Value, json};

/// Cases per endpoint: enough to find the shapes that break, small enough for a debug build
/// to run the file in seconds.
const CASES: u32 = 256;

/// Status → the error codes it may carry (the table in docs/api-conventions.md, #errors), for the
/// endpoints these properties exercise.
fn documented_code(status: u16, code: &str) -> bool {
    matches!(
        (status, code),
        (400, "INVALID_JSON" | "VALIDATION_ERROR")
            | (401, "UNAUTHORIZED")
            | (403, "FORBIDDEN")
            | (404, "NOT_FOUND")
            | (405, "METHOD_NOT_ALLOWED")
            | (409, "CONFLICT")
            | (410, "CART_EXPIRED")
            | (413, "PAYLOAD_TOO_LARGE")
            | (415, "UNSUPPORTED_MEDIA_TYPE")
            | (422, "TEMPLATE_NOT_APPROVED" | "MESSAGE_REJECTED")
    )
}

/// The reply is one of `allowed`, and an error reply has the documented shape.
fn check(what: &str, r: &Reply, allowed: &[u16]) -> Result<(), TestCaseError> {
    if r.status >= 500 || !allowed.contains(&r.status) {
        return Err(TestCaseError::fail(format!("{what}: status {} (allowed {allowed:?}), body {}", r.status, r.body)));
    }
    if r.status >= 400 {
        let e = &r.body["error"];
        let code = e["code"].as_str().unwrap_or_default();
        let shaped = documented_code(r.status, code)
            && e["message"].as_str().is_some_and(|m| !m.is_empty())
            && e["request_id"].as_str().is_some()
            && e["request_id"].as_str() == r.header("x-request-id")
            && e.as_object().is_some_and(|o| o.keys().all(|k| ["code", "message", "details", "request_id"].contains(&k.as_str())))
            && (e.get("details").is_none()
                || e["details"].as_array().is_some_and(|d| d.iter().all(|x| x["field"].is_string() && x["issue"].is_string())));
        if !shaped {
            return Err(TestCaseError::fail(format!("{what}: {} without the documented error shape: {}", r.status, r.body)));
        }
    } else if !r.body["data"].is_object() && !r.body["data"].is_array() {
        return Err(TestCaseError::fail(format!("{what}: success without data: {}", r.body)));
    }
    Ok(())
}

// ---------- generators ----------

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-zA-Z0-9 #@+.-]{0,24}",
        Just(String::new()),
        Just("   ".to_string()),
        "[\u{0}-\u{1f}\u{7f}\u{85}\u{2028}\u{202e}é漢\u{1F600}]{1,8}",
        (1usize..3000).prop_map(|n| "é".repeat(n)),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        (-3i64..120).prop_map(|n| json!(n)),
        Just(json!(2.5)),
        Just(json!(-0.0)),
        Just(json!(1e300)),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![Just(Value::Null), any::<bool>().prop_map(Value::Bool), number(), text().prop_map(Value::String)];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(text(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Bodies that are not JSON, or JSON at its limits: serde's recursion limit, numbers past
/// f64 and u64, truncation, invalid UTF-8, a byte-order mark.
fn raw_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (1usize..4000).prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes()),
        (1usize..4000).prop_map(|n| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n)).into_bytes()),
        "[0-9]{20,400}".prop_map(|d| format!("{{\"name\":{d},\"limit\":-{d}e999}}").into_bytes()),
        Just(b"{\"name\":1e400}".to_vec()),
        Just(b"\xef\xbb\xbf{\"name\":\"bom\"}".to_vec()),
        Just(b"{\"name\":\"\xff\xfe\"}".to_vec()),
        Just(b"{\"name\":\"a\\u0000b\"}".to_vec()),
        Just(b"{\"name\":\"a\x00b\"}".to_vec()),
        Just(b"{\"name\":\"\\ud800\"}".to_vec()),
        Just(b"{\"name\":\"a\"".to_vec()),
        Just(b"{\"name\":\"a\",\"name\":\"b\"}".to_vec()),
        Just(format!("{{\"name\":\"{}\"}}", "a".repeat(300 * 1024)).into_bytes()),
        Just(Vec::new()),
        Just(b"null".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..64),
    ]
}

/// A valid body with one thing changed: a field's value replaced, a field removed, or an
/// unknown field added.
fn near(valid: Value) -> impl Strategy<Value = Value> {
    let keys: Vec<String> = valid.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    let n = keys.len().max(1);
    (0..3u8, 0..n, json_value(), text()).prop_map(move |(how, i, replacement, extra)| {
        let mut body: Map<String, Value> = valid.as_object().cloned().unwrap_or_default();
        match (how, keys.get(i)) {
            (0, Some(k)) => {
                body.insert(k.clone(), replacement);
            }
            (1, Some(k)) => {
                body.remove(k);
            }
            _ => {
                body.insert(extra, replacement);
            }
        }
        Value::Object(body)
    })
}

/// A valid body with one string, at any depth (a cart item's id, a tag id in a list, a
/// parameter's text), replaced by arbitrary text: control characters and NUL reach every string
/// the body carries, not only its top-level fields.
fn nested(valid: Value) -> impl Strategy<Value = Value> {
    fn strings(v: &Value) -> usize {
        match v {
            Value::String(_) => 1,
            Value::Array(items) => items.iter().map(strings).sum(),
            Value::Object(m) => m.values().map(strings).sum(),
            _ => 0,
        }
    }
    fn replace(v: &mut Value, n: &mut usize, with: &str) {
        match v {
            Value::String(s) => {
                if *n == 0 {
                    *s = with.to_string();
                }
                *n = n.wrapping_sub(1);
            }
            Value::Array(items) => items.iter_mut().for_each(|x| replace(x, n, with)),
            Value::Object(m) => m.values_mut().for_each(|x| replace(x, n, with)),
            _ => {}
        }
    }
    let count = strings(&valid).max(1);
    (0..count, text()).prop_map(move |(i, with)| {
        let mut body = valid.clone();
        replace(&mut body, &mut { i }, &with);
        body
    })
}

/// Any body for an endpoint whose valid body is `valid`.
fn body(valid: Value) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => near(valid.clone()).prop_map(|v| v.to_string().into_bytes()),
        2 => nested(valid.clone()).prop_map(|v| v.to_string().into_bytes()),
        2 => json_value().prop_map(|v| v.to_string().into_bytes()),
        1 => raw_bytes(),
        1 => Just(valid.to_string().into_bytes()),
    ]
}

/// A query-string value: text, numbers, and the characters that need escaping.
fn query_value() -> impl Strategy<Value = String> {
    prop_oneof![
        text(),
        // NUL and its neighbours, often: PostgreSQL refuses NUL where SQLite matches nothing.
        "[a-z_]{0,4}[\u{0}-\u{1f}\u{7f}\u{80}-\u{9f}][a-z_]{0,4}",
        Just("tag_\u{0}".to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| format!("{n}{n}")),
        (-2i64..120).prop_map(|n| n.to_string()),
        Just("1.5".to_string()),
        Just("2026-11-21T10:00:00.000Z".to_string()),
        Just("+262143-12-31T23:59:59Z".to_string()),
        Just("9999-12-31T23:59:59.999999999+23:59".to_string()),
    ]
}

/// A query string over `names` (each present or not, some twice), plus raw mistakes.
fn query(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    let pairs = proptest::collection::vec((proptest::sample::select(names), query_value()), 0..5).prop_map(|pairs| {
        let mut s = String::new();
        for (name, value) in pairs {
            s.push(if s.is_empty() { '?' } else { '&' });
            s.push_str(name);
            s.push('=');
            s.push_str(&percent_encode(&value));
        }
        s
    });
    prop_oneof![
        4 => pairs,
        1 => Just("?limit=%ff%fe".to_string()),
        1 => Just("?limit&offset=".to_string()),
        1 => Just("?%zz=1&limit=%".to_string()),
        1 => Just("?limit[]=1&limit[]=2".to_string()),
    ]
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

// ---------- the app ----------

struct World {
    app: TestApp,
    tag: String,
    contact: String,
    activity: String,
    template: String,
}

async fn world(backend: &str) -> World {
    let app = TestApp::new(backend).await;
    let tag = app.tag(&app.a, "Existing").await;
    let (contact, activity) = app.conversation(&app.a, "Iris Chen", ("whatsapp", "+1 415 555 0100"), ActivityStatus::Open).await;
    app.import_demo_catalog(&app.a).await;
    let line = app.state.lines.add(&app.a.agent, "200000000000001", "300000000000001", None).await.unwrap();
    app.state.lines.sync_line(&line).await.unwrap();
    let templates = app.get("/v1/templates", &app.a.secret).await;
    let template = templates
        .data()
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "order_update" && t["status"] == "APPROVED")
        .expect("the sandbox's order_update")["id"]
        .as_str()
        .unwrap()
        .to_string();
    // One delivery record, so the executions listing has a campaign to read.
    let sent = app.post(&format!("/v1/templates/{template}/send"), &app.a.secret, valid_send()).await;
    sent.assert_status(200);
    World { app, tag, contact, activity, template }
}

fn valid_send() -> Value {
    json!({
        "to": "+1 415 555 0100",
        "components": [
            {"type": "header", "parameters": [{"type": "text", "text": "A-17"}]},
            {"type": "body", "parameters": [{"type": "text", "text": "Iris"}, {"type": "text", "text": "A-17"}, {"type": "text", "text": "Friday"}]},
            {"type": "button", "sub_type": "url", "index": 0, "parameters": [{"type": "text", "text": "A-17"}]}
        ],
        "campaign": {"key": "hostile", "name": "Hostile"}
    })
}

fn runner() -> TestRunner {
    TestRunner::new(Config { cases: CASES, failure_persistence: None, ..Config::default() })
}

/// Runs `CASES` bodies from `strategy` against `method path` with `key`.
fn bodies(sys: &actix_rt::SystemRunner, w: &World, method: &str, path: &str, key: &str, valid: Value, allowed: &[u16]) {
    let result = runner().run(&body(valid), |bytes| {
        let req = TestRequest::default()
            .method(method.parse().unwrap())
            .uri(path)
            .insert_header(("X-API-Key", key))
            .insert_header(("Content-Type", "application/json"))
            .set_payload(bytes.clone());
        let r = sys.block_on(w.app.call(req));
        let what = format!("{method} {path} {}", String::from_utf8_lossy(&bytes).chars().take(300).collect::<String>());
        // Only an object can be a body: anything else is refused, never read by position.
        if serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| !v.is_object()) && r.status != 400 {
            return Err(TestCaseError::fail(format!("{what}: a non-object body answered {}", r.status)));
        }
        check(&what, &r, allowed)
    });
    if let Err(e) = result {
        panic!("{method} {path}: {e}");
    }
}

/// Runs `CASES` query strings over `names` against `GET`/`DELETE` `path`.
fn queries(sys: &actix_rt::SystemRunner, w: &World, method: &str, path: &str, key: &str, names: &'static [&'static str], allowed: &[u16]) {
    let result = runner().run(&query(names), |q| {
        let uri = format!("{path}{q}");
        let req = TestRequest::default().method(method.parse().unwrap()).uri(&uri).insert_header(("X-API-Key", key));
        let r = sys.block_on(w.app.call(req));
        check(&format!("{method} {uri}"), &r, allowed)
    });
    if let Err(e) = result {
        panic!("{method} {path}: {e}");
    }
}

/// Expands each named `fn(&str)` into one test per storage backend.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $( #[test] fn $name() { super::$name("sqlite") } )*
        }
        mod postgres {
            $( #[test] fn $name() { super::$name("postgres") } )*
        }
    };
}

on_both_backends!(
    every_json_body_gets_a_documented_answer,
    every_query_string_gets_a_documented_answer,
    every_path_id_gets_a_documented_answer,
    signed_webhooks_with_any_body_get_a_documented_answer,
);

fn every_json_body_gets_a_documented_answer(backend: &str) {
    let sys = actix_rt::System::new();
    let w = sys.block_on(world(backend));
    let (sk, pk) = (w.app.a.secret.clone(), w.app.a.publishable.clone());
    let body_errors = [400, 413, 415];
    let with = |extra: &[u16]| [&body_errors[..], extra].concat();

    bodies(&sys, &w, "POST", "/v1/tags", &sk, json!({"name": "VIP", "color": "#a1b2c3", "description": "Big buyers"}), &with(&[201, 409]));
    bodies(
        &sys,
        &w,
        "PATCH",
        &format!("/v1/tags/{}", w.tag),
        &sk,
        json!({"name": "Renamed", "color": "#000000", "description": null}),
        &with(&[200, 409]),
    );
    bodies(
        &sys,
        &w,
        "POST",
        "/v1/contacts",
        &sk,
        json!({"channel_type": "whatsapp", "channel_id": "+52 55 1234 5678", "profile_name": "Ana", "email": "ana@example.com",
               "notes": "VIP", "custom_attributes": {"plan": "pro"}}),
        &with(&[201, 409]),
    );
    bodies(
        &sys,
        &w,
        "PATCH",
        &format!("/v1/contacts/{}", w.contact),
        &sk,
        json!({"profile_name": "Iris", "email": null, "notes": "n", "custom_attributes": {"plan": null, "tier": 2}}),
        &with(&[200]),
    );
    bodies(
        &sys,
        &w,
        "PATCH",
        &format!("/v1/activities/{}", w.activity),
        &sk,
        json!({"status": "closed", "assigned_to": "user_42", "profile_name": "Iris C."}),
        &with(&[200]),
    );
    bodies(&sys, &w, "POST", &format!("/v1/activities/{}/tags", w.activity), &sk, json!({"tag_ids": [w.tag]}), &with(&[200, 404]));
    bodies(&sys, &w, "POST", "/v1/carts", &pk, json!({"items": [{"id": "prd_thermos_500", "qty": 2}]}), &with(&[201]));
    bodies(&sys, &w, "POST", &format!("/v1/templates/{}/send", w.template), &sk, valid_send(), &with(&[200, 422]));
    bodies(
        &sys,
        &w,
        "PUT",
        "/v1/settings/business_hours",
        &sk,
        json!({"timezone": "Europe/Lisbon", "week": {"mon": [["09:00", "13:00"], ["14:00", "24:00"]]}, "closed_dates": ["2026-12-25"],
               "away_message": "Back at 9:00."}),
        &with(&[200]),
    );
}

fn every_query_string_gets_a_documented_answer(backend: &str) {
    let sys = actix_rt::System::new();
    let w = sys.block_on(world(backend));
    let (sk, pk) = (w.app.a.secret.clone(), w.app.a.publishable.clone());
    queries(&sys, &w, "GET", "/v1/activities", &sk, &["limit", "offset", "status", "tag", "search"], &[200, 400]);
    queries(&sys, &w, "GET", "/v1/contacts", &sk, &["limit", "offset"], &[200, 400]);
    queries(&sys, &w, "GET", "/v1/products", &pk, &["limit", "offset", "tag", "kind"], &[200, 400]);
    queries(&sys, &w, "GET", "/v1/products/search", &pk, &["q", "limit"], &[200, 400]);
    queries(&sys, &w, "GET", "/v1/campaigns/hostile/executions", &sk, &["since", "limit"], &[200, 400, 404]);
    queries(&sys, &w, "DELETE", &format!("/v1/activities/{}/tags", w.activity), &sk, &["tag_id"], &[200, 400, 404]);
}

/// Every path that names a resource by id, with any id in it: control characters (NUL
/// included), unicode, reserved characters, huge ones. A path id is 404 when nothing has it
/// (or 400 where its shape is documented, campaign keys), never a 5xx.
fn every_path_id_gets_a_documented_answer(backend: &str) {
    let sys = actix_rt::System::new();
    let w = sys.block_on(world(backend));
    let (sk, pk) = (w.app.a.secret.clone(), w.app.a.publishable.clone());
    // (method, path with `{}` for the id, key, body, statuses it may answer)
    type Route<'a> = (&'a str, String, &'a str, Option<Value>, &'a [u16]);
    let routes: Vec<Route> = vec![
        ("GET", "/v1/products/{}".into(), &pk, None, &[200, 404]),
        ("GET", "/v1/carts/{}".into(), &pk, None, &[200, 404, 410]),
        ("GET", "/v1/activities/{}".into(), &sk, None, &[200, 404]),
        ("PATCH", "/v1/activities/{}".into(), &sk, Some(json!({"assigned_to": "user_1"})), &[200, 404]),
        ("POST", "/v1/activities/{}/tags".into(), &sk, Some(json!({"tag_ids": [w.tag]})), &[200, 404]),
        ("DELETE", format!("/v1/activities/{{}}/tags?tag_id={}", w.tag), &sk, None, &[200, 404]),
        ("GET", "/v1/contacts/{}".into(), &sk, None, &[200, 404]),
        ("PATCH", "/v1/contacts/{}".into(), &sk, Some(json!({"notes": "n"})), &[200, 404]),
        ("PATCH", "/v1/tags/{}".into(), &sk, Some(json!({"description": "d"})), &[200, 404]),
        ("GET", "/v1/templates/{}".into(), &sk, None, &[200, 404]),
        ("GET", "/v1/channels/{}/templates".into(), &sk, None, &[200, 404]),
        ("GET", "/v1/campaigns/{}/executions".into(), &sk, None, &[200, 400, 404]),
    ];
    for (method, pattern, key, body, allowed) in routes {
        let result = runner().run(&text(), |id| {
            let uri = pattern.replacen("{}", &percent_encode(&id), 1);
            let mut req = TestRequest::default().method(method.parse().unwrap()).uri(&uri).insert_header(("X-API-Key", key));
            if let Some(body) = &body {
                req = req.set_json(body.clone());
            }
            let r = sys.block_on(w.app.call(req));
            // An id with a control character cannot be anybody's: refused alike on both backends.
            if id.chars().any(char::is_control) && r.status != 404 && !pattern.starts_with("/v1/campaigns") {
                return Err(TestCaseError::fail(format!("{method} {uri}: {} for an id with a control character", r.status)));
            }
            check(&format!("{method} {uri}"), &r, allowed)
        });
        if let Err(e) = result {
            panic!("{method} {pattern}: {e}");
        }
    }
}

/// Signed webhook deliveries with any body, on WhatsApp's and Instagram's routes: a text body is stored and answered 200 (processing
/// copes with what it cannot parse), bytes that are not UTF-8, or text with a NUL byte (never
/// JSON, and PostgreSQL's text cannot hold it), are 400, a bad signature 401. Never a 5xx; the
/// processor keeps running.
fn signed_webhooks_with_any_body_get_a_documented_answer(backend: &str) {
    const SECRET: &str = "hostile-app-secret";
    let sys = actix_rt::System::new();
    let config = parley_api::runtime::config::ApiConfig { whatsapp_app_secret: Some(SECRET.into()), ..Default::default() };
    let app = sys.block_on(TestApp::with_config(backend, config));
    // A line for the deliveries' phone number id (and an Instagram account), so their statuses
    // and messages are applied.
    sys.block_on(app.state.lines.add(&app.a.agent, "200000000000001", "300000000000001", None)).unwrap();
    sys.block_on(app.state.lines.add_instagram(&app.a.agent, "17841400000000001", None)).unwrap();
    let webhook = prop_oneof![
        2 => json_value().prop_map(|v| ("/webhooks/whatsapp", json!({"object": "whatsapp_business_account", "entry": [{"changes": [{"value": {"metadata": {"phone_number_id": "200000000000001"}, "statuses": [v.clone()], "messages": [v.clone()], "contacts": [v]}}]}]}).to_string().into_bytes())),
        2 => (json_value(), json_value()).prop_map(|(v, m)| ("/webhooks/instagram", json!({"object": "instagram", "entry": [{"id": "17841400000000001", "messaging": [
            v, {"sender": {"id": "1144"}, "recipient": {"id": "17841400000000001"}, "timestamp": 1_767_225_600_000_i64, "message": m.clone()},
            {"sender": {"id": "1144"}, "recipient": {"id": "17841400000000001"}, "timestamp": 1_767_225_600_000_i64, "reaction": m.clone(), "read": m}]}]}).to_string().into_bytes())),
        1 => json_value().prop_map(|v| ("/webhooks/instagram", v.to_string().into_bytes())),
        1 => json_value().prop_map(|v| ("/webhooks/whatsapp", v.to_string().into_bytes())),
        1 => raw_bytes().prop_map(|b| ("/webhooks/whatsapp", b)),
        1 => raw_bytes().prop_map(|b| ("/webhooks/instagram", b)),
    ];
    let result = runner().run(&(webhook, any::<bool>()), |((route, bytes), signed)| {
        let signature = if signed { parley_adapters_whatsapp::webhook_auth::sign(SECRET, &bytes) } else { "sha256=00".into() };
        let req = TestRequest::post()
            .uri(route)
            .insert_header(("Content-Type", "application/json"))
            .insert_header(("X-Hub-Signature-256", signature))
            .set_payload(bytes.clone());
        let r = sys.block_on(app.call(req));
        let expected = match (signed, std::str::from_utf8(&bytes).is_ok() && !bytes.contains(&0)) {
            (false, _) => 401,
            (true, true) => 200,
            (true, false) => 400,
        };
        if r.status != expected {
            return Err(TestCaseError::fail(format!("{route} (signed {signed}): {} instead of {expected}: {}", r.status, r.body)));
        }
        if r.status >= 400 {
            check("webhook", &r, &[400, 401])?;
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("POST /webhooks/…: {e}");
    }
    // The processor works through the stored deliveries; the API keeps answering meanwhile.
    sys.block_on(async {
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        app.get("/v1/activities", &app.a.secret).await.assert_status(200);
    });
}

// ---------- regressions: what schemathesis found ----------

fn nullable(schema: &Value) -> bool {
    let null = json!("null");
    schema["type"] == null
        || schema["type"].as_array().is_some_and(|t| t.contains(&null))
        || ["oneOf", "anyOf"].iter().any(|k| schema[*k].as_array().is_some_and(|alts| alts.iter().any(|a| a["type"] == null)))
}

/// RFC 9110: a 405 names the methods the path supports in `Allow` (schemathesis ST204).
#[actix_web::test]
async fn a_405_names_the_methods_the_path_allows() {
    let app = TestApp::new("sqlite").await;
    for (method, path, allow) in [
        ("TRACE", "/v1/tags", "GET, POST"),
        ("PUT", "/v1/tags/tag_x", "PATCH, DELETE"),
        ("DELETE", "/v1/activities/act_x", "GET, PATCH"),
        ("GET", "/v1/carts", "POST"),
        ("DELETE", "/webhooks/whatsapp", "GET, POST"),
        ("POST", "/v1/openapi.json", "GET"),
    ] {
        let r = app
            .call(TestRequest::default().method(method.parse().unwrap()).uri(path).insert_header(("X-API-Key", app.a.secret.as_str())))
            .await;
        r.assert_error(405, "METHOD_NOT_ALLOWED");
        assert_eq!(r.header("allow"), Some(allow), "{method} {path}");
    }
}

/// The OpenAPI document states what the API enforces, so schema-valid requests are accepted and
/// documented statuses are the ones answered (schemathesis ST103, ST201, ST202).
#[actix_web::test]
async fn the_document_states_the_body_and_query_rules_the_api_enforces() {
    let app = TestApp::new("sqlite").await;
    let doc = app.call(TestRequest::get().uri("/v1/openapi.json")).await.body;
    // Every body is refused with 413 when too large and 415 without the JSON content type.
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if op.get("requestBody").is_some() {
                for status in ["400", "413", "415"] {
                    assert!(op["responses"].get(status).is_some(), "{method} {path} documents {status}");
                }
            }
        }
    }
    let schemas = &doc["components"]["schemas"];
    // Required fields are required and not nullable.
    for (schema, field) in [
        ("CreateTag", "name"),
        ("CreateContact", "channel_type"),
        ("CreateContact", "channel_id"),
        ("AttachTags", "tag_ids"),
        ("CreateCart", "items"),
        ("CartItemBody", "id"),
        ("CartItemBody", "qty"),
        ("SendTemplate", "to"),
    ] {
        assert!(schemas[schema]["required"].as_array().is_some_and(|r| r.contains(&json!(field))), "{schema}.{field} is required");
        assert!(!nullable(&schemas[schema]["properties"][field]), "{schema}.{field} is not nullable");
    }
    // What PATCH cannot clear is not nullable; what it can clear is.
    for (schema, field, can_clear) in [
        ("UpdateTag", "name", false),
        ("UpdateTag", "color", false),
        ("UpdateTag", "description", true),
        ("UpdateActivity", "status", false),
        ("UpdateActivity", "assigned_to", true),
        ("UpdateActivity", "profile_name", false),
        ("UpdateContact", "custom_attributes", false),
        ("UpdateContact", "email", true),
    ] {
        assert_eq!(nullable(&schemas[schema]["properties"][field]), can_clear, "{schema}.{field}");
    }
    // And the API agrees: null on what cannot be cleared is 400, as are empty filters.
    let tag = app.tag(&app.a, "Kept").await;
    let (_, activity) = app.conversation(&app.a, "Ana", ("whatsapp", "+52 55 1234 5678"), ActivityStatus::Open).await;
    app.patch(&format!("/v1/tags/{tag}"), &app.a.secret, json!({"name": null})).await.assert_error(400, "VALIDATION_ERROR");
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"status": null})).await.assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/activities?status=", &app.a.secret).await.assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/products?kind=", &app.a.publishable).await.assert_error(400, "VALIDATION_ERROR");
    app.get("/v1/campaigns/%F3%95%82%A4/executions", &app.a.secret).await.assert_error(400, "VALIDATION_ERROR");
    // A body without the JSON content type is 415 in the error shape.
    let r =
        app.call(TestRequest::patch().uri(&format!("/v1/activities/{activity}")).insert_header(("X-API-Key", app.a.secret.as_str()))).await;
    r.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
}

/// serde's derive reads a struct from an array by position, so `["VIP"]` created a tag named
/// VIP and `[]` was an empty PATCH (schemathesis ST201). Bodies, and the objects inside them,
/// must be JSON objects: 400 `INVALID_JSON` otherwise, and nothing changes.
#[actix_web::test]
async fn arrays_are_not_objects_at_any_depth() {
    let app = TestApp::new("sqlite").await;
    app.import_demo_catalog(&app.a).await;
    let tag = app.tag(&app.a, "Kept").await;
    let (_, activity) = app.conversation(&app.a, "Ana", ("whatsapp", "+52 55 1234 5678"), ActivityStatus::Open).await;
    let raw = |method: &str, path: String, key: &str, body: &'static str| {
        TestRequest::default()
            .method(method.parse().unwrap())
            .uri(&path)
            .insert_header(("X-API-Key", key.to_string()))
            .insert_header(("Content-Type", "application/json"))
            .set_payload(body)
    };
    let sk = app.a.secret.as_str();
    for (method, path, key, body) in [
        ("POST", "/v1/tags".to_string(), sk, r##"["VIP", "#000000"]"##),
        ("PATCH", format!("/v1/tags/{tag}"), sk, "[]"),
        ("PATCH", format!("/v1/tags/{tag}"), sk, r#"["Renamed"]"#),
        ("POST", "/v1/contacts".to_string(), sk, r#"["whatsapp", "+1 415 555 0100"]"#),
        ("PATCH", format!("/v1/activities/{activity}"), sk, r#"["closed"]"#),
        ("POST", format!("/v1/activities/{activity}/tags"), sk, "[[]]"),
        ("POST", "/v1/carts".to_string(), app.a.publishable.as_str(), r#"{"items": [["prd_thermos_500", 2]]}"#),
        ("POST", "/v1/templates/1/send".to_string(), sk, r#"{"to": "+1 415 555 0100", "components": [["body", null, null, []]]}"#),
        ("POST", "/v1/templates/1/send".to_string(), sk, r#"{"to": "+1 415 555 0100", "campaign": ["k", "n"]}"#),
        (
            "POST",
            "/v1/templates/1/send".to_string(),
            sk,
            r#"{"to": "+1 415 555 0100", "components": [{"type": "body", "parameters": [["text", "x"]]}]}"#,
        ),
    ] {
        let r = app.call(raw(method, path.clone(), key, body)).await;
        assert_eq!((r.status, r.body["error"]["code"].as_str()), (400, Some("INVALID_JSON")), "{method} {path} {body}: {}", r.body);
    }
    let tags = app.get("/v1/tags", sk).await;
    assert_eq!(tags.data().as_array().unwrap().len(), 1, "no tag was created");
    assert_eq!(tags.data()[0]["name"], "Kept", "nor renamed");
}
