//! The OpenAPI document against the running app: every operation's documented answers to a
//! publishable key, and the document readable from a browser on another origin.

use crate::common::TestApp;
use actix_web::test::TestRequest;
use serde_json::{Value, json};

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// Each operation's method, path (ids filled with an unknown one) and documented statuses.
fn operations(document: &Value) -> Vec<(String, String, Vec<String>)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for method in METHODS {
            if let Some(op) = item.get(method) {
                let filled: String =
                    path.split('/').map(|s| if s.starts_with('{') { "unknown_1" } else { s }).collect::<Vec<_>>().join("/");
                found.push((method.to_uppercase(), filled, op["responses"].as_object().unwrap().keys().cloned().collect()));
            }
        }
    }
    found
}

/// A publishable key is refused with 403 exactly where the document lists 403, and nowhere
/// else: the document's security (which keys an operation takes) is the app's.
async fn a_publishable_key_is_403_exactly_where_the_document_says(app: TestApp) {
    let document: Value = serde_json::from_str(parley_api::http::openapi::document()).unwrap();
    let ops = operations(&document);
    assert!(ops.len() > 30, "{} operations", ops.len());
    for (method, path, statuses) in ops {
        let mut req =
            TestRequest::default().method(method.parse().unwrap()).uri(&path).insert_header(("X-API-Key", app.a.publishable.as_str()));
        if method != "GET" && method != "DELETE" {
            req = req.set_json(json!({}));
        }
        let r = app.call(req).await;
        let documented = statuses.contains(&"403".to_string());
        assert_eq!(r.status == 403, documented, "{method} {path}: answered {} ({}), documents {statuses:?}", r.status, r.body);
        assert!(statuses.contains(&r.status.to_string()), "{method} {path}: {} is not documented ({statuses:?})", r.status);
    }
}

async fn the_document_is_readable_from_any_origin(app: TestApp) {
    let r = app.call(TestRequest::get().uri("/v1/openapi.json").insert_header(("Origin", "https://editor.example"))).await;
    r.assert_status(200);
    assert_eq!(r.headers.get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some("*"));
    assert_eq!(r.headers.get("content-type").and_then(|v| v.to_str().ok()), Some("application/json"));
}

http_tests!(a_publishable_key_is_403_exactly_where_the_document_says, the_document_is_readable_from_any_origin,);
