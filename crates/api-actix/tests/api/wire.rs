//! Wire conventions that hold on every route: authentication, error shapes, request ids,
//! unknown routes and methods, body limits, and the committed OpenAPI document.

use crate::common::TestApp;
use actix_web::test::TestRequest;
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
    let committed: serde_json::Value =
        serde_json::from_str(include_str!("../../../../docs/openapi.json")).expect("docs/openapi.json is JSON");
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

/// JSON is UTF-8: a body declared in another charset is refused, not misread as UTF-8.
async fn json_bodies_in_another_charset_are_415(app: TestApp) {
    let post = |content_type: &'static str, name: &str| {
        TestRequest::post()
            .uri("/v1/tags")
            .insert_header(("X-API-Key", app.a.secret.as_str()))
            .insert_header(("Content-Type", content_type))
            .set_payload(json!({ "name": name }).to_string())
    };
    for content_type in ["application/json; charset=utf-16", "application/json; charset=UTF-16LE", "application/json;charset=iso-8859-1"] {
        let r = app.call(post(content_type, "refused")).await;
        r.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
        assert!(r.body["error"]["message"].as_str().unwrap().contains("UTF-8"), "{}", r.body);
    }
    for (content_type, name) in [("application/json; charset=UTF-8", "a"), ("application/json; charset=\"utf-8\"", "b")] {
        app.call(post(content_type, name)).await.assert_status(201);
    }
    let names: Vec<_> = app.get("/v1/tags", &app.a.secret).await.data().as_array().unwrap().iter().map(|t| t["name"].clone()).collect();
    assert_eq!(names, [json!("a"), json!("b")], "nothing refused was created");
}

/// NUL and the other control characters (C0, DEL, C1) in an id, a query value or a body string
/// are refused before storage sees them, the same on both backends: PostgreSQL answered 500
/// ("invalid byte sequence for encoding UTF8: 0x00") where SQLite found nothing. A path id is
/// 404 like an unknown one; everything else 400 naming the field. Free text keeps newline and tab.
async fn control_characters_are_refused_at_the_boundary(app: TestApp) {
    app.import_demo_catalog(&app.a).await;
    let tag = app.tag(&app.a, "Kept").await;
    let (contact, activity) =
        app.conversation(&app.a, "Ana", ("whatsapp", "+52 55 1234 5678"), parley_domain::model::ActivityStatus::Open).await;
    let (sk, pk) = (app.a.secret.as_str(), app.a.publishable.as_str());
    let call = |method: &str, path: String, key: &str, body: Option<serde_json::Value>| {
        let mut req = TestRequest::default().method(method.parse().unwrap()).uri(&path).insert_header(("X-API-Key", key.to_string()));
        if let Some(body) = body {
            req = req.set_json(body);
        }
        app.call(req)
    };
    for bad in ["a%00b", "%00", "tag_%01", "x%7F", "%C2%85", "%0A"] {
        for (method, path, key, body) in [
            ("GET", format!("/v1/products/{bad}"), pk, None),
            ("GET", format!("/v1/activities/{bad}"), sk, None),
            ("PATCH", format!("/v1/activities/{bad}"), sk, Some(json!({"status": "closed"}))),
            ("POST", format!("/v1/activities/{bad}/tags"), sk, Some(json!({"tag_ids": [tag]}))),
            ("DELETE", format!("/v1/activities/{bad}/tags?tag_id={tag}"), sk, None),
            ("GET", format!("/v1/contacts/{bad}"), sk, None),
            ("PATCH", format!("/v1/contacts/{bad}"), sk, Some(json!({"notes": "n"}))),
            ("PATCH", format!("/v1/tags/{bad}"), sk, Some(json!({"name": "x"}))),
            ("DELETE", format!("/v1/tags/{bad}"), sk, None),
            ("GET", format!("/v1/templates/{bad}"), sk, None),
            ("POST", format!("/v1/templates/{bad}/send"), sk, Some(json!({"to": "+1 415 555 0100"}))),
            ("GET", format!("/v1/channels/{bad}/templates"), sk, None),
            ("GET", format!("/v1/carts/{bad}"), pk, None),
        ] {
            let r = call(method, path.clone(), key, body).await;
            assert_eq!((r.status, r.body["error"]["code"].as_str()), (404, Some("NOT_FOUND")), "{method} {path}: {}", r.body);
        }
        for (method, path, key) in [
            ("GET", format!("/v1/activities?tag={bad}"), sk),
            ("GET", format!("/v1/activities?search={bad}"), sk),
            ("GET", format!("/v1/activities?status=open&limit=1{bad}"), sk),
            ("DELETE", format!("/v1/activities/{activity}/tags?tag_id={bad}"), sk),
            ("GET", format!("/v1/contacts?offset={bad}"), sk),
            ("GET", format!("/v1/products?tag={bad}"), pk),
            ("GET", format!("/v1/products?kind={bad}"), pk),
            ("GET", format!("/v1/products/search?q={bad}"), pk),
            ("GET", format!("/v1/campaigns/{bad}/executions"), sk),
            ("GET", format!("/v1/campaigns/spring/executions?since={bad}"), sk),
        ] {
            let r = call(method, path.clone(), key, None).await;
            assert_eq!((r.status, r.body["error"]["code"].as_str()), (400, Some("VALIDATION_ERROR")), "{method} {path}: {}", r.body);
        }
    }
    for bad in ["a\u{0}b", "\u{0}", "x\u{1}", "\u{7f}", "a\u{85}b", "a\rb"] {
        for (method, path, key, body, field) in [
            ("POST", format!("/v1/activities/{activity}/tags"), sk, json!({"tag_ids": [tag, bad]}), "tag_ids[1]"),
            ("POST", "/v1/carts".to_string(), pk, json!({"items": [{"id": bad, "qty": 1}]}), "items[0].id"),
            ("POST", "/v1/tags".to_string(), sk, json!({"name": bad}), "name"),
            ("PATCH", format!("/v1/tags/{tag}"), sk, json!({"description": bad}), "description"),
            ("POST", "/v1/contacts".to_string(), sk, json!({"channel_type": "webchat", "channel_id": bad}), "channel_id"),
            (
                "POST",
                "/v1/contacts".to_string(),
                sk,
                json!({"channel_type": "webchat", "channel_id": "w1", "custom_attributes": {bad: 1}}),
                "custom_attributes",
            ),
            ("PATCH", format!("/v1/contacts/{contact}"), sk, json!({"notes": bad}), "notes"),
            ("PATCH", format!("/v1/contacts/{contact}"), sk, json!({"custom_attributes": {"k": {"deep": [bad]}}}), "custom_attributes"),
            ("PATCH", format!("/v1/activities/{activity}"), sk, json!({"assigned_to": bad}), "assigned_to"),
        ] {
            let r = call(method, path.clone(), key, Some(body.clone())).await;
            r.assert_error(400, "VALIDATION_ERROR");
            assert!(
                r.body["error"]["details"].as_array().unwrap().iter().any(|d| d["field"] == field),
                "{method} {path} {body}: {}",
                r.body
            );
        }
    }
    // Nothing refused changed anything; free text keeps its newlines and tabs.
    let tags = app.get("/v1/tags", sk).await;
    assert_eq!(tags.data().as_array().unwrap().len(), 1, "{}", tags.body);
    let kept = app
        .patch(&format!("/v1/contacts/{contact}"), sk, json!({"notes": "line one\n\tline two", "custom_attributes": {"k": "a\nb"}}))
        .await;
    assert_eq!(kept.assert_status(200).data()["notes"], "line one\n\tline two");
    // A well-formed id nobody has is still 404, and an empty filter still matches nothing.
    app.get("/v1/products/prd_nobody", pk).await.assert_error(404, "NOT_FOUND");
    app.get("/v1/activities?tag=", sk).await.assert_status(200);
}

http_tests!(
    json_bodies_in_another_charset_are_415,
    control_characters_are_refused_at_the_boundary,
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
    use parley_api::http::app;

    /// Readiness answers 503 quickly when the database cannot be reached.
    #[actix_web::test]
    async fn readiness_is_503_when_the_database_is_unreachable() {
        let store = Store::open(
            "postgres://nobody@127.0.0.1:1/none",
            PoolOptions { max_size: 1, wait_timeout: std::time::Duration::from_millis(500), ..PoolOptions::default() },
        )
        .unwrap();
        let state = Data::new(crate::common::system_state(store.repositories()));
        let service = test::init_service(app::build(state)).await;
        let started = std::time::Instant::now();
        let resp = test::call_service(&service, TestRequest::get().uri("/readyz").to_request()).await;
        assert_eq!(resp.status().as_u16(), 503);
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "no hung probe");
        let body: serde_json::Value = test::read_body_json(resp).await;
        assert_eq!(body["error"]["code"], "UNAVAILABLE");
    }
}
