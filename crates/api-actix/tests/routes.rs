//! Routes through the real app on the in-memory backend: no database, no workers, each test in
//! milliseconds. For the HTTP mapping itself (auth, status codes, the error shape, tenant
//! scope); behaviour that needs a database stays in `tests/api`, on SQLite and PostgreSQL.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use actix_web::test::{self, TestRequest};
use actix_web::web::Data;
use parley_api::http::app;
use parley_api::runtime::config::ApiConfig;
use parley_api::runtime::wiring::{self, Adapters};
use parley_domain::model::KeyKind;
use serde_json::{Value, json};

/// One tenant's secret key.
struct Tenant {
    secret: String,
}

/// The app on a fresh memory store, with two tenants.
async fn memory_app()
-> (impl actix_web::dev::Service<actix_http::Request, Response = actix_web::dev::ServiceResponse, Error = actix_web::Error>, Tenant, Tenant)
{
    let state = Data::new(wiring::wire(
        Adapters::one_shot(parley_adapters_memory::repositories(), parley_api::http::dto::REPRESENTATIONS),
        ApiConfig::default(),
    ));
    let mut tenants = Vec::new();
    for name in ["Shop A", "Shop B"] {
        let agent = state.keys.create_agent(name).await.unwrap();
        let secret = state.keys.issue_key(&agent.id, KeyKind::Secret).await.unwrap().plaintext;
        tenants.push(Tenant { secret });
    }
    let b = tenants.pop().unwrap();
    let a = tenants.pop().unwrap();
    (test::init_service(app::build(state)).await, a, b)
}

async fn call(
    app: &impl actix_web::dev::Service<actix_http::Request, Response = actix_web::dev::ServiceResponse, Error = actix_web::Error>,
    req: TestRequest,
) -> (u16, Value) {
    let resp = test::call_service(app, req.to_request()).await;
    let status = resp.status().as_u16();
    let bytes = test::read_body(resp).await;
    (status, if bytes.is_empty() { Value::Null } else { serde_json::from_slice(&bytes).unwrap() })
}

fn with_key(req: TestRequest, key: &str) -> TestRequest {
    req.insert_header(("X-API-Key", key))
}

#[actix_web::test]
async fn a_tag_is_created_listed_renamed_and_deleted() {
    let (app, a, _) = memory_app().await;
    let (status, created) = call(&app, with_key(TestRequest::post().uri("/v1/tags"), &a.secret).set_json(json!({"name": "VIP"}))).await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_string();
    let (status, list) = call(&app, with_key(TestRequest::get().uri("/v1/tags"), &a.secret)).await;
    assert_eq!((status, list["data"][0]["name"].as_str()), (200, Some("VIP")), "{list}");
    let patch = TestRequest::patch().uri(&format!("/v1/tags/{id}")).set_json(json!({"name": "Gold"}));
    let (status, renamed) = call(&app, with_key(patch, &a.secret)).await;
    assert_eq!((status, renamed["data"]["name"].as_str()), (200, Some("Gold")), "{renamed}");
    let (status, deleted) = call(&app, with_key(TestRequest::delete().uri(&format!("/v1/tags/{id}")), &a.secret)).await;
    assert_eq!((status, &deleted["data"]), (200, &json!({"id": id, "deleted": true})));
    let (_, list) = call(&app, with_key(TestRequest::get().uri("/v1/tags"), &a.secret)).await;
    assert_eq!(list["data"], json!([]));
    let again = TestRequest::delete().uri(&format!("/v1/tags/{id}"));
    assert_eq!(call(&app, with_key(again, &a.secret)).await.0, 404, "deleted once");
}

#[actix_web::test]
async fn a_bad_key_is_401_and_another_tenants_tag_is_404() {
    let (app, a, b) = memory_app().await;
    let (status, body) = call(&app, with_key(TestRequest::get().uri("/v1/tags"), "sk_not_a_key")).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("UNAUTHORIZED")), "{body}");
    let (_, created) = call(&app, with_key(TestRequest::post().uri("/v1/tags"), &a.secret).set_json(json!({"name": "Mine"}))).await;
    let id = created["data"]["id"].as_str().unwrap();
    let theirs = TestRequest::patch().uri(&format!("/v1/tags/{id}")).set_json(json!({"name": "Taken"}));
    let (status, body) = call(&app, with_key(theirs, &b.secret)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("NOT_FOUND")), "{body}");
    let (_, list) = call(&app, with_key(TestRequest::get().uri("/v1/tags"), &b.secret)).await;
    assert_eq!(list["data"], json!([]), "B sees none of A's tags");
}

#[actix_web::test]
async fn bad_input_is_400_naming_its_field_and_writes_nothing() {
    let (app, a, _) = memory_app().await;
    let bad = TestRequest::post().uri("/v1/tags").set_json(json!({"name": "", "color": "blue"}));
    let (status, body) = call(&app, with_key(bad, &a.secret)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{body}");
    let fields: Vec<&str> = body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert!(fields.contains(&"name") && fields.contains(&"color"), "{body}");
    let (_, list) = call(&app, with_key(TestRequest::get().uri("/v1/tags"), &a.secret)).await;
    assert_eq!(list["data"], json!([]), "nothing was written");
}

#[actix_web::test]
async fn each_signed_platform_has_a_webhook_proven_by_its_verifier_and_no_other_platform_has_one() {
    // The one-shot wiring holds no Meta secret: every delivery and handshake is refused, and
    // the refusal does not say whether a secret is configured.
    let (app, _, _) = memory_app().await;
    for platform in ["whatsapp", "instagram"] {
        let post = TestRequest::post().uri(&format!("/webhooks/{platform}")).insert_header(("X-Hub-Signature-256", "sha256=00"));
        let (status, body) = call(&app, post.set_payload(r#"{"object":"x"}"#)).await;
        assert_eq!((status, body["error"]["code"].as_str()), (401, Some("UNAUTHORIZED")), "{platform}: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("X-Hub-Signature-256"), "{body}");
        let shake = TestRequest::get().uri(&format!("/webhooks/{platform}?hub.mode=subscribe&hub.verify_token=t&hub.challenge=42"));
        let (status, body) = call(&app, shake).await;
        assert_eq!((status, body["error"]["code"].as_str()), (403, Some("FORBIDDEN")), "{platform}: {body}");
    }
    for path in ["/webhooks/email", "/webhooks/telegram"] {
        let (status, body) = call(&app, TestRequest::post().uri(path).set_payload("{}")).await;
        assert_eq!((status, body["error"]["code"].as_str()), (404, Some("NOT_FOUND")), "{path}: {body}");
    }
}

#[actix_web::test]
async fn a_key_may_come_as_a_bearer_token_but_only_one_key_per_request() {
    let (app, a, b) = memory_app().await;
    let bearer = |value: String| TestRequest::get().uri("/v1/tags").insert_header(("Authorization", value));
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let (status, body) = call(&app, bearer(format!("{scheme} {}", a.secret))).await;
        assert_eq!(status, 200, "{scheme}: {body}");
    }
    let same = with_key(bearer(format!("Bearer {}", a.secret)), &a.secret);
    assert_eq!(call(&app, same).await.0, 200, "the same key both ways is one key");
    let two = with_key(bearer(format!("Bearer {}", b.secret)), &a.secret);
    let (status, body) = call(&app, two).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("UNAUTHORIZED")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("exactly one key"), "{body}");
    for other in [format!("Basic {}", a.secret), a.secret.clone(), "Bearer".to_string()] {
        let (status, body) = call(&app, bearer(other.clone())).await;
        assert_eq!((status, body["error"]["code"].as_str()), (401, Some("UNAUTHORIZED")), "{other}: {body}");
    }
}

#[actix_web::test]
async fn the_inbox_page_and_its_assets_are_served_with_a_policy_that_forbids_inline_script() {
    let (app, _, _) = memory_app().await;
    let page = test::call_service(&app, TestRequest::get().uri("/inbox?utm_source=mail").to_request()).await;
    assert_eq!(page.status(), 200, "no key needed, and a link's query is let through");
    let header = |name: &str| page.headers().get(name).map(|v| v.to_str().unwrap().to_string());
    assert_eq!(header("content-type").as_deref(), Some("text/html; charset=utf-8"));
    let csp = header("content-security-policy").unwrap();
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'") && !csp.contains("unsafe"), "{csp}");
    assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
    assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(header("cache-control").as_deref(), Some("no-cache"));
    let etag = header("etag").unwrap();
    let body = test::read_body(page).await;
    assert!(std::str::from_utf8(&body).unwrap().contains("<script type=\"module\" src=\"/inbox/assets/js/main.js\"></script>"));

    // The browser asks again with the tag it has: 304 and no body while the binary is the same.
    let again =
        test::call_service(&app, TestRequest::get().uri("/inbox").insert_header(("If-None-Match", etag.as_str())).to_request()).await;
    assert_eq!(again.status(), 304);
    assert!(test::read_body(again).await.is_empty());

    let script = test::call_service(&app, TestRequest::get().uri("/inbox/assets/js/main.js").to_request()).await;
    assert_eq!(
        (script.status().as_u16(), script.headers().get("content-type").unwrap().to_str().unwrap()),
        (200, "text/javascript; charset=utf-8")
    );
    let (status, body) = call(&app, TestRequest::get().uri("/inbox/assets/js/../../../Cargo.toml")).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("NOT_FOUND")), "only the embedded files: {body}");
    let refused = test::call_service(&app, TestRequest::post().uri("/inbox").to_request()).await;
    assert_eq!((refused.status().as_u16(), refused.headers().get("allow").unwrap().to_str().unwrap()), (405, "GET"));
}
