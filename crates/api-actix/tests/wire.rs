//! Wire conventions that hold on every route: authentication, error shapes, request ids,
//! unknown routes and methods, body limits, and the committed OpenAPI document.

mod common;

use actix_web::test::TestRequest;
use common::TestApp;
use parley_domain::model::KeyKind;
use serde_json::json;

async fn missing_malformed_unknown_and_revoked_keys_are_401(app: TestApp) {
    let no_key = app.call(TestRequest::get().uri("/v1/activities")).await;
    no_key.assert_error(401, "UNAUTHORIZED");
    for bad in ["", "nonsense", "sk_short", &format!("sk_{}", "x".repeat(40)), &format!("pk_{}", "x".repeat(40))] {
        app.get("/v1/activities", bad).await.assert_error(401, "UNAUTHORIZED");
    }
    let issued = app.state.keys.issue_key(&app.a.agent, KeyKind::Secret).await.unwrap();
    app.get("/v1/tags", &issued.plaintext).await.assert_status(200);
    app.state.keys.revoke(&issued.key.id).await.unwrap();
    app.get("/v1/tags", &issued.plaintext).await.assert_error(401, "UNAUTHORIZED");
    app.get("/v1/tags", &app.a.secret).await.assert_status(200);
}

async fn the_key_is_checked_before_the_body(app: TestApp) {
    let r = app
        .call(
            TestRequest::post()
                .uri("/v1/tags")
                .insert_header(("X-API-Key", "wrong"))
                .insert_header(("Content-Type", "application/json"))
                .set_payload("{not json"),
        )
        .await;
    r.assert_error(401, "UNAUTHORIZED");
}

async fn unknown_routes_are_404_and_wrong_methods_405_in_the_error_shape(app: TestApp) {
    app.get("/v1/nope", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.get("/nope", &app.a.secret).await.assert_error(404, "NOT_FOUND");
    app.call(TestRequest::put().uri("/v1/tags").insert_header(("X-API-Key", app.a.secret.as_str())))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    app.delete("/v1/activities", &app.a.secret).await.assert_error(405, "METHOD_NOT_ALLOWED");
}

async fn json_bodies_need_the_json_content_type(app: TestApp) {
    let r = app
        .call(
            TestRequest::post()
                .uri("/v1/tags")
                .insert_header(("X-API-Key", app.a.secret.as_str()))
                .insert_header(("Content-Type", "text/plain"))
                .set_payload(r#"{"name":"x"}"#),
        )
        .await;
    r.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let r = app
        .call(TestRequest::post().uri("/v1/tags").insert_header(("X-API-Key", app.a.secret.as_str())).set_payload(r#"{"name":"x"}"#))
        .await;
    r.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let r = app
        .call(
            TestRequest::post()
                .uri("/v1/tags")
                .insert_header(("X-API-Key", app.a.secret.as_str()))
                .insert_header(("Content-Type", "application/json; charset=utf-8"))
                .set_payload(r#"{"name":"charset"}"#),
        )
        .await;
    r.assert_status(201);
}

async fn bodies_over_256_kib_are_413(app: TestApp) {
    let big = json!({"name": "x", "description": "d".repeat(256 * 1024)});
    app.post("/v1/tags", &app.a.secret, big).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    let just_under = json!({"channel_type": "email", "channel_id": "a@b.co", "notes": "n".repeat(4000)});
    app.post("/v1/contacts", &app.a.secret, just_under).await.assert_status(201);
}

async fn request_ids_are_echoed_when_sane_and_minted_otherwise(app: TestApp) {
    let echoed = app
        .call(
            TestRequest::get()
                .uri("/v1/tags")
                .insert_header(("X-API-Key", app.a.secret.as_str()))
                .insert_header(("X-Request-Id", "trace-42.a:b_c")),
        )
        .await;
    assert_eq!(echoed.header("x-request-id"), Some("trace-42.a:b_c"));

    let replaced = app
        .call(
            TestRequest::get()
                .uri("/v1/tags")
                .insert_header(("X-API-Key", app.a.secret.as_str()))
                .insert_header(("X-Request-Id", "bad id!")),
        )
        .await;
    let minted = replaced.header("x-request-id").unwrap();
    assert!(minted.starts_with("req_") && minted.len() > 20, "{minted}");

    let failed = app.call(TestRequest::get().uri("/v1/tags").insert_header(("X-Request-Id", "err-7"))).await;
    assert_eq!(failed.body["error"]["request_id"], "err-7", "errors name the request id");
    assert_eq!(failed.header("x-request-id"), Some("err-7"));
}

async fn the_openapi_document_is_public_and_matches_the_committed_copy(app: TestApp) {
    let r = app.call(TestRequest::get().uri("/v1/openapi.json")).await;
    r.assert_status(200);
    assert_eq!(r.body["openapi"], "3.1.0");
    let committed: serde_json::Value = serde_json::from_str(include_str!("../../../docs/openapi.json")).expect("docs/openapi.json is JSON");
    assert!(r.body == committed, "docs/openapi.json is stale: run `cargo xtask codegen`");
    for path in [
        "/v1/tags",
        "/v1/tags/{id}",
        "/v1/activities",
        "/v1/activities/{id}",
        "/v1/activities/{id}/tags",
        "/v1/contacts",
        "/v1/contacts/{id}",
    ] {
        assert!(r.body["paths"][path].is_object(), "{path} is documented");
    }
}

http_tests!(
    missing_malformed_unknown_and_revoked_keys_are_401,
    the_key_is_checked_before_the_body,
    unknown_routes_are_404_and_wrong_methods_405_in_the_error_shape,
    json_bodies_need_the_json_content_type,
    bodies_over_256_kib_are_413,
    request_ids_are_echoed_when_sane_and_minted_otherwise,
    the_openapi_document_is_public_and_matches_the_committed_copy,
    health_and_readiness_need_no_key,
);

async fn health_and_readiness_need_no_key(app: TestApp) {
    let health = app.call(TestRequest::get().uri("/healthz")).await;
    health.assert_status(200);
    assert_eq!(health.body, json!({"status": "ok"}));
    let ready = app.call(TestRequest::get().uri("/readyz")).await;
    ready.assert_status(200);
    assert_eq!(ready.body["status"], "ready");
    assert!(matches!(ready.body["database"].as_str(), Some("sqlite" | "postgres")));
    app.call(TestRequest::post().uri("/healthz")).await.assert_error(405, "METHOD_NOT_ALLOWED");
}

mod unreachable_database {
    use actix_web::test::{self, TestRequest};
    use actix_web::web::Data;
    use parley_adapters_diesel::{PoolOptions, Store};
    use parley_api::{app, state::AppState};

    /// Readiness answers 503 quickly when the database cannot be reached.
    #[actix_web::test]
    async fn readiness_is_503_when_the_database_is_unreachable() {
        let store = Store::open(
            "postgres://nobody@127.0.0.1:1/none",
            PoolOptions { max_size: 1, wait_timeout: std::time::Duration::from_millis(500), ..PoolOptions::default() },
        )
        .unwrap();
        let state = Data::new(AppState::with_system(store.repositories()));
        let service = test::init_service(app::build(state)).await;
        let started = std::time::Instant::now();
        let resp = test::call_service(&service, TestRequest::get().uri("/readyz").to_request()).await;
        assert_eq!(resp.status().as_u16(), 503);
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "no hung probe");
        let body: serde_json::Value = test::read_body_json(resp).await;
        assert_eq!(body["error"]["code"], "UNAVAILABLE");
    }
}
