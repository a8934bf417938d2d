//! Canned responses over HTTP, on both backends: CRUD, unique short codes, `search`, scoping.

use crate::common::{Reply, TestApp};
use serde_json::{Value, json};

async fn save(app: &TestApp, code: &str, text: &str) -> String {
    let r = app.post("/v1/canned_responses", &app.a.secret, json!({"short_code": code, "text": text})).await;
    r.assert_status(201);
    r.data()["id"].as_str().unwrap().to_string()
}

fn codes(r: &Reply) -> Vec<&str> {
    r.assert_status(200);
    r.data().as_array().unwrap().iter().map(|c| c["short_code"].as_str().unwrap()).collect()
}

async fn they_are_created_fetched_changed_and_deleted(app: TestApp) {
    let sk = &app.a.secret;
    let r = app.post("/v1/canned_responses", sk, json!({"short_code": "opening-hours", "text": "  We open at 9.\n\tSee you!  "})).await;
    r.assert_status(201);
    let made = r.data().clone();
    let id = made["id"].as_str().unwrap();
    assert!(id.starts_with("cnr_"), "{id}");
    assert_eq!(made["text"], "We open at 9.\n\tSee you!", "trimmed, lines and tabs kept");
    assert_eq!(made["created_at"], made["updated_at"]);
    let keys: Vec<&String> = made.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["created_at", "id", "short_code", "text", "updated_at"]);
    assert_eq!(app.get(&format!("/v1/canned_responses/{id}"), sk).await.data(), &made);

    app.tick();
    let r = app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"text": "We open at 10."})).await;
    r.assert_status(200);
    assert_eq!((&r.data()["short_code"], &r.data()["text"]), (&json!("opening-hours"), &json!("We open at 10.")));
    assert_ne!(r.data()["updated_at"], made["updated_at"], "updated_at moves");
    assert_eq!(r.data()["created_at"], made["created_at"]);
    let r = app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"short_code": "hours"})).await;
    assert_eq!((&r.data()["short_code"], &r.data()["text"]), (&json!("hours"), &json!("We open at 10.")));
    assert_eq!(app.get(&format!("/v1/canned_responses/{id}"), sk).await.data()["short_code"], "hours");

    let r = app.delete(&format!("/v1/canned_responses/{id}"), sk).await;
    r.assert_status(200);
    assert_eq!(r.data(), &json!({"id": id, "deleted": true}));
    app.get(&format!("/v1/canned_responses/{id}"), sk).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("/v1/canned_responses/{id}"), sk).await.assert_error(404, "NOT_FOUND");
    app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"text": "x"})).await.assert_error(404, "NOT_FOUND");
}

async fn bad_fields_are_refused_by_name_and_nothing_is_written(app: TestApp) {
    let sk = &app.a.secret;
    let long_text = "t".repeat(4097);
    let cases: [(Value, &[&str]); 9] = [
        (json!({}), &["short_code", "text"]),
        (json!({"short_code": "Thanks", "text": "Hi"}), &["short_code"]),
        (json!({"short_code": "two words", "text": "Hi"}), &["short_code"]),
        (json!({"short_code": "x".repeat(33), "text": "Hi"}), &["short_code"]),
        (json!({"short_code": "", "text": "Hi"}), &["short_code"]),
        (json!({"short_code": "ok", "text": " \n "}), &["text"]),
        (json!({"short_code": "ok", "text": long_text}), &["text"]),
        (json!({"short_code": "ok", "text": "a\u{0}b"}), &["text"]),
        (json!({"short_code": "ok", "text": "Hi", "shortcut": "x"}), &["shortcut"]),
    ];
    for (body, fields) in cases {
        let r = app.post("/v1/canned_responses", sk, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        let named: Vec<&str> = r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
        assert_eq!(named, fields, "for {body}: {}", r.body);
    }
    assert_eq!(app.get("/v1/canned_responses", sk).await.body["pagination"]["total"], 0, "nothing was written");
    app.post("/v1/canned_responses", sk, json!({"short_code": 5, "text": "Hi"})).await.assert_error(400, "INVALID_JSON");

    let id = save(&app, "ok", "Hi").await;
    let r = app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"short_code": null, "text": null})).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"].as_array().unwrap().len(), 2, "{}", r.body);
    let r = app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"short_code": "new", "text": ""})).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(app.get(&format!("/v1/canned_responses/{id}"), sk).await.data()["short_code"], "ok", "a refused patch changes nothing");
}

async fn short_codes_are_unique_per_agent(app: TestApp) {
    let sk = &app.a.secret;
    save(&app, "thanks", "Thank you!").await;
    let r = app.post("/v1/canned_responses", sk, json!({"short_code": "thanks", "text": "Again"})).await;
    r.assert_error(409, "CONFLICT");
    assert_eq!(r.body["error"]["details"][0]["field"], "short_code");
    let other = app.post("/v1/canned_responses", &app.b.secret, json!({"short_code": "thanks", "text": "Merci"})).await;
    other.assert_status(201);

    let id = save(&app, "bye", "Goodbye").await;
    let r = app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"short_code": "thanks"})).await;
    r.assert_error(409, "CONFLICT");
    assert_eq!(app.get(&format!("/v1/canned_responses/{id}"), sk).await.data()["short_code"], "bye");
    app.patch(&format!("/v1/canned_responses/{id}"), sk, json!({"short_code": "bye"})).await.assert_status(200);
}

async fn the_list_is_by_short_code_searchable_and_paged(app: TestApp) {
    let sk = &app.a.secret;
    for (code, text) in [
        ("shipping", "We ship in 2 days.\nTracking follows."),
        ("hello", "Hi! How can we help?"),
        ("refund_50", "Refunds of 50% take a WEEK."),
        ("address", "Calle Ünica 5, Mérida"),
    ] {
        save(&app, code, text).await;
    }
    let all = app.get("/v1/canned_responses", sk).await;
    assert_eq!(codes(&all), ["address", "hello", "refund_50", "shipping"]);
    assert_eq!(all.body["pagination"]["total"], 4);

    for (search, expected) in [
        ("HELP", &["hello"][..]),
        ("week", &["refund_50"]),
        ("50%", &["refund_50"]),
        ("_", &["refund_50"]),
        ("ünica", &["address"]),
        ("ÉRIDA", &["address"]),
        ("tracking", &["shipping"]),
        ("e", &["address", "hello", "refund_50", "shipping"]),
        ("nothing", &[]),
    ] {
        let path = format!("/v1/canned_responses?search={}", urlencoding(search));
        let r = app.get(&path, sk).await;
        assert_eq!(codes(&r), expected, "{search}");
        assert_eq!(r.body["pagination"]["total"], json!(expected.len()), "{search}");
    }

    let r = app.get("/v1/canned_responses?search=e&limit=3&offset=2", sk).await;
    assert_eq!(codes(&r), ["refund_50", "shipping"]);
    assert_eq!((&r.body["pagination"]["total"], &r.body["pagination"]["has_more"]), (&json!(4), &json!(false)));
    let r = app.get("/v1/canned_responses?limit=2", sk).await;
    assert_eq!(r.body["pagination"]["has_more"], true);

    for bad in ["search=", "limit=0", "limit=101", "offset=-1", "short_code=hello"] {
        app.get(&format!("/v1/canned_responses?{bad}"), sk).await.assert_error(400, "VALIDATION_ERROR");
    }
}

/// Just enough percent-encoding for the searches above.
fn urlencoding(raw: &str) -> String {
    raw.bytes().map(|b| if b.is_ascii_alphanumeric() || b == b'_' { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

async fn another_agents_canned_responses_are_invisible(app: TestApp) {
    let id = save(&app, "private", "Ours alone").await;
    let bk = &app.b.secret;
    assert_eq!(app.get("/v1/canned_responses", bk).await.body["pagination"]["total"], 0);
    assert_eq!(app.get("/v1/canned_responses?search=ours", bk).await.body["pagination"]["total"], 0);
    app.get(&format!("/v1/canned_responses/{id}"), bk).await.assert_error(404, "NOT_FOUND");
    app.patch(&format!("/v1/canned_responses/{id}"), bk, json!({"text": "mine"})).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("/v1/canned_responses/{id}"), bk).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.get(&format!("/v1/canned_responses/{id}"), &app.a.secret).await.data()["text"], "Ours alone");
}

async fn publishable_keys_cannot_use_canned_responses(app: TestApp) {
    let id = save(&app, "x", "y").await;
    let pk = &app.a.publishable;
    app.get("/v1/canned_responses", pk).await.assert_error(403, "FORBIDDEN");
    app.post("/v1/canned_responses", pk, json!({"short_code": "y", "text": "z"})).await.assert_error(403, "FORBIDDEN");
    app.get(&format!("/v1/canned_responses/{id}"), pk).await.assert_error(403, "FORBIDDEN");
    app.patch(&format!("/v1/canned_responses/{id}"), pk, json!({"text": "z"})).await.assert_error(403, "FORBIDDEN");
    app.delete(&format!("/v1/canned_responses/{id}"), pk).await.assert_error(403, "FORBIDDEN");
}

http_tests!(
    they_are_created_fetched_changed_and_deleted,
    bad_fields_are_refused_by_name_and_nothing_is_written,
    short_codes_are_unique_per_agent,
    the_list_is_by_short_code_searchable_and_paged,
    another_agents_canned_responses_are_invisible,
    publishable_keys_cannot_use_canned_responses,
);
