//! Tags over HTTP, on both backends.

use crate::common::TestApp;
use parley_domain::model::ActivityStatus;
use serde_json::json;

async fn create_returns_201_with_the_full_tag(app: TestApp) {
    let r = app.post("/v1/tags", &app.a.secret, json!({"name": "  VIP  ", "color": "#A1B2C3", "description": "Big buyers"})).await;
    r.assert_status(201);
    let tag = r.data();
    assert!(tag["id"].as_str().unwrap().starts_with("tag_"));
    assert_eq!(tag["name"], "VIP", "names are trimmed");
    assert_eq!(tag["color"], "#a1b2c3", "colors are stored lowercase");
    assert_eq!(tag["description"], "Big buyers");
    let created = tag["created_at"].as_str().unwrap();
    assert_eq!(created.len(), 24, "RFC 3339 with milliseconds and Z: {created}");
    assert!(created.ends_with('Z'));
    assert_eq!(tag["created_at"], tag["updated_at"]);
}

async fn create_without_color_gets_the_default_and_null_description(app: TestApp) {
    let r = app.post("/v1/tags", &app.a.secret, json!({"name": "plain"})).await;
    r.assert_status(201);
    assert_eq!(r.data()["color"], "#6b7280");
    assert!(r.data()["description"].is_null());
    assert_eq!(r.data().as_object().unwrap().len(), 6, "exactly id, name, color, description, created_at, updated_at");
}

async fn create_validates_every_field(app: TestApp) {
    let cases = [
        (json!({}), "name"),
        (json!({"name": "   "}), "name"),
        (json!({"name": "x".repeat(65)}), "name"),
        (json!({"name": "ok", "color": "red"}), "color"),
        (json!({"name": "ok", "color": "#12345"}), "color"),
        (json!({"name": "ok", "description": "d".repeat(501)}), "description"),
        (json!({"name": "ok", "extra": true}), "extra"),
    ];
    for (body, field) in cases {
        let r = app.post("/v1/tags", &app.a.secret, body.clone()).await;
        r.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(r.body["error"]["details"][0]["field"], field, "for {body}");
    }
    assert_eq!(app.get("/v1/tags", &app.a.secret).await.data().as_array().unwrap().len(), 0, "nothing was written");
}

async fn wrong_json_types_and_malformed_bodies_are_invalid_json(app: TestApp) {
    // A value of the wrong type is named by its field, with what was expected.
    for (body, field, issue) in [
        (json!({"name": 5}), "name", "invalid type: integer `5`, expected a string"),
        (json!({"name": "ok", "color": ["#fff"]}), "color", "invalid type: sequence, expected a string"),
        (json!({"name": "ok", "description": {"text": "d"}}), "description", "invalid type: map, expected a string"),
    ] {
        let r = app.post("/v1/tags", &app.a.secret, body.clone()).await;
        r.assert_error(400, "INVALID_JSON");
        assert_eq!(r.body["error"]["details"], json!([{"field": field, "issue": issue}]), "for {body}: {}", r.body);
        let message = r.body["error"]["message"].as_str().unwrap();
        assert!(message.contains(field) && !message.contains("line 1"), "{message}");
    }
    // A body that is not an object has no field to name.
    let r = app.post("/v1/tags", &app.a.secret, json!(["name"])).await;
    r.assert_error(400, "INVALID_JSON");
    assert!(r.body["error"]["details"].as_array().is_none_or(|d| d.is_empty()), "{}", r.body);
    let raw = actix_web::test::TestRequest::post()
        .uri("/v1/tags")
        .insert_header(("X-API-Key", app.a.secret.as_str()))
        .insert_header(("Content-Type", "application/json"))
        .set_payload("{\"name\": ");
    app.call(raw).await.assert_error(400, "INVALID_JSON");
}

async fn names_are_unique_per_agent_ignoring_case(app: TestApp) {
    app.tag(&app.a, "VIP").await;
    let r = app.post("/v1/tags", &app.a.secret, json!({"name": "vip"})).await;
    r.assert_error(409, "CONFLICT");
    app.post("/v1/tags", &app.b.secret, json!({"name": "vip"})).await.assert_status(201);

    let other = app.tag(&app.a, "Other").await;
    app.patch(&format!("/v1/tags/{other}"), &app.a.secret, json!({"name": "Vip"})).await.assert_error(409, "CONFLICT");
}

async fn list_is_sorted_by_name_ignoring_case(app: TestApp) {
    for name in ["beta", "Alpha", "gamma"] {
        app.tag(&app.a, name).await;
    }
    let r = app.get("/v1/tags", &app.a.secret).await;
    r.assert_status(200);
    let names: Vec<_> = r.data().as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Alpha", "beta", "gamma"]);
}

async fn patch_changes_only_sent_fields_and_null_clears_description(app: TestApp) {
    let r = app.post("/v1/tags", &app.a.secret, json!({"name": "VIP", "color": "#111111", "description": "d"})).await;
    let id = r.data()["id"].as_str().unwrap().to_string();
    let created_at = r.data()["created_at"].clone();
    app.tick();

    let r = app.patch(&format!("/v1/tags/{id}"), &app.a.secret, json!({"color": "#222222"})).await;
    r.assert_status(200);
    assert_eq!(
        (r.data()["name"].as_str(), r.data()["color"].as_str(), r.data()["description"].as_str()),
        (Some("VIP"), Some("#222222"), Some("d"))
    );
    assert_eq!(r.data()["created_at"], created_at);
    assert_ne!(r.data()["updated_at"], created_at, "updated_at moves");

    let r = app.patch(&format!("/v1/tags/{id}"), &app.a.secret, json!({"description": null})).await;
    assert!(r.data()["description"].is_null());
    let r = app.patch(&format!("/v1/tags/{id}"), &app.a.secret, json!({"name": null})).await;
    r.assert_error(400, "VALIDATION_ERROR");
    app.patch(&format!("/v1/tags/{id}"), &app.a.secret, json!({"color": "nope"})).await.assert_error(400, "VALIDATION_ERROR");
    app.patch("/v1/tags/tag_unknown", &app.a.secret, json!({"name": "x"})).await.assert_error(404, "NOT_FOUND");
}

async fn delete_answers_deleted_and_detaches_from_activities(app: TestApp) {
    let id = app.tag(&app.a, "gone").await;
    let (_, activity) = app.conversation(&app.a, "Ana", ("whatsapp", "5215550001"), ActivityStatus::Open).await;
    app.post(&format!("/v1/activities/{activity}/tags"), &app.a.secret, json!({"tag_ids": [id]})).await.assert_status(200);

    let r = app.delete(&format!("/v1/tags/{id}"), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.body, json!({"data": {"id": id, "deleted": true}}));
    let act = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(act.data()["tags"], json!([]));
    app.delete(&format!("/v1/tags/{id}"), &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

async fn another_agents_tags_are_invisible(app: TestApp) {
    let id = app.tag(&app.a, "secret-tag").await;
    let listed = app.get("/v1/tags", &app.b.secret).await;
    assert_eq!(listed.data(), &json!([]));
    app.patch(&format!("/v1/tags/{id}"), &app.b.secret, json!({"name": "mine"})).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("/v1/tags/{id}"), &app.b.secret).await.assert_error(404, "NOT_FOUND");
    assert_eq!(app.get("/v1/tags", &app.a.secret).await.data()[0]["name"], "secret-tag", "A's tag is untouched");
}

async fn publishable_keys_cannot_manage_tags(app: TestApp) {
    let id = app.tag(&app.a, "x").await;
    app.get("/v1/tags", &app.a.publishable).await.assert_error(403, "FORBIDDEN");
    app.post("/v1/tags", &app.a.publishable, json!({"name": "y"})).await.assert_error(403, "FORBIDDEN");
    app.patch(&format!("/v1/tags/{id}"), &app.a.publishable, json!({"name": "y"})).await.assert_error(403, "FORBIDDEN");
    app.delete(&format!("/v1/tags/{id}"), &app.a.publishable).await.assert_error(403, "FORBIDDEN");
}

async fn an_activity_holds_at_most_fifty_tags(app: TestApp) {
    let (_, activity) = app.conversation(&app.a, "Ana", ("whatsapp", "5215550001"), ActivityStatus::Open).await;
    let mut ids = Vec::new();
    for n in 0..51 {
        ids.push(app.tag(&app.a, &format!("t{n:02}")).await);
    }
    let path = format!("/v1/activities/{activity}/tags");
    app.post(&path, &app.a.secret, json!({"tag_ids": &ids[..50]})).await.assert_status(200);
    let r = app.post(&path, &app.a.secret, json!({"tag_ids": [&ids[50]]})).await;
    r.assert_error(409, "CONFLICT");
    assert_eq!(r.body["error"]["details"][0]["field"], "tag_ids");
    let shown = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    assert_eq!(shown.data()["tags"].as_array().unwrap().len(), 50, "nothing of the refused attach was written");
    app.delete(&format!("{path}?tag_id={}", ids[0]), &app.a.secret).await.assert_status(200);
    app.post(&path, &app.a.secret, json!({"tag_ids": [&ids[50]]})).await.assert_status(200);
}

http_tests!(
    an_activity_holds_at_most_fifty_tags,
    create_returns_201_with_the_full_tag,
    create_without_color_gets_the_default_and_null_description,
    create_validates_every_field,
    wrong_json_types_and_malformed_bodies_are_invalid_json,
    names_are_unique_per_agent_ignoring_case,
    list_is_sorted_by_name_ignoring_case,
    patch_changes_only_sent_fields_and_null_clears_description,
    delete_answers_deleted_and_detaches_from_activities,
    another_agents_tags_are_invisible,
    publishable_keys_cannot_manage_tags,
);
