//! Contacts over HTTP, on both backends.

use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use serde_json::{Map, Value, json};

// ---- helpers ----

/// Creates a contact over HTTP and returns its data.
async fn create(app: &TestApp, body: Value) -> Value {
    let r = app.post("/v1/contacts", &app.a.secret, body).await;
    r.assert_status(201);
    r.data().clone()
}

fn id_of(contact: &Value) -> String {
    contact["id"].as_str().unwrap().to_string()
}

fn ids(r: &Reply) -> Vec<String> {
    r.data().as_array().unwrap_or_else(|| panic!("not a list: {}", r.body)).iter().map(id_of).collect()
}

/// The fields named in an error's `details`.
fn detail_fields(r: &Reply) -> Vec<String> {
    r.body["error"]["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {}", r.body))
        .iter()
        .map(|d| d["field"].as_str().unwrap().to_string())
        .collect()
}

/// A 400 VALIDATION_ERROR whose details name `field`.
#[track_caller]
fn assert_invalid(r: &Reply, field: &str) {
    r.assert_error(400, "VALIDATION_ERROR");
    assert!(detail_fields(r).iter().any(|f| f == field), "details should name {field}: {}", r.body);
}

/// RFC 3339 UTC with milliseconds and `Z`: `2026-11-21T10:00:00.000Z`.
#[track_caller]
fn assert_timestamp(v: &Value) {
    let s = v.as_str().unwrap_or_else(|| panic!("timestamp is not a string: {v}"));
    let shape: String = s.chars().map(|c| if c.is_ascii_digit() { 'd' } else { c }).collect();
    assert_eq!(shape, "dddd-dd-ddTdd:dd:dd.dddZ", "timestamp shape of {s}");
    assert!(chrono::DateTime::parse_from_rfc3339(s).is_ok(), "not RFC 3339: {s}");
}

fn attributes(n: usize) -> Map<String, Value> {
    (0..n).map(|i| (format!("k{i}"), json!(i))).collect()
}

async fn total(app: &TestApp, key: &str) -> u64 {
    let r = app.get("/v1/contacts", key).await;
    r.assert_status(200);
    r.body["pagination"]["total"].as_u64().unwrap()
}

// ---- create ----

async fn create_returns_201_with_the_exact_contact_shape(app: TestApp) {
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "+52 55 1234 5678"})).await;
    r.assert_status(201);
    let c = r.data();
    let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["channels", "created_at", "custom_attributes", "email", "id", "notes", "profile_name", "updated_at"]);
    assert!(c["id"].as_str().unwrap().starts_with("con_"), "{}", c["id"]);
    assert_eq!(c["profile_name"], "525512345678", "profile_name defaults to the channel id");
    assert_eq!(c["email"], Value::Null);
    assert_eq!(c["notes"], Value::Null);
    assert_eq!(
        c["channels"],
        json!([{"channel_id": "525512345678", "channel_type": "whatsapp", "user_id": null, "parent_user_id": null, "username": null}])
    );
    assert_eq!(c["custom_attributes"], json!({}));
    assert_timestamp(&c["created_at"]);
    assert_timestamp(&c["updated_at"]);
    assert_eq!(c["created_at"], c["updated_at"]);
}

async fn create_keeps_every_optional_field_sent(app: TestApp) {
    let c = create(
        &app,
        json!({
            "channel_type": "instagram",
            "channel_id": "ana.lopez",
            "profile_name": "Ana López",
            "email": "ana@example.com",
            "notes": "Prefers mornings",
            "custom_attributes": {"tier": "gold", "orders": 3, "vip": true}
        }),
    )
    .await;
    assert_eq!(c["profile_name"], "Ana López");
    assert_eq!(c["email"], "ana@example.com");
    assert_eq!(c["notes"], "Prefers mornings");
    assert_eq!(c["channels"], json!([{"channel_id": "ana.lopez", "channel_type": "instagram"}]));
    assert_eq!(c["custom_attributes"], json!({"tier": "gold", "orders": 3, "vip": true}));
}

async fn phone_channels_are_stored_as_digits(app: TestApp) {
    let cases = [
        ("whatsapp", "+52 55-1234-5678", "525512345678"),
        ("sms", "+1 555 010 0200", "15550100200"),
        ("sms", "1234567", "1234567"),
        ("whatsapp", "+123456789012345", "123456789012345"),
    ];
    for (kind, raw, stored) in cases {
        let c = create(&app, json!({"channel_type": kind, "channel_id": raw})).await;
        let mut channel = json!({"channel_id": stored, "channel_type": kind});
        if kind == "whatsapp" {
            // A WhatsApp channel also says what the platform told of its user: nothing yet.
            for field in ["user_id", "parent_user_id", "username"] {
                channel[field] = json!(null);
            }
        }
        assert_eq!(c["channels"], json!([channel]), "{kind} {raw}");
        assert_eq!(c["profile_name"], stored);
    }
}

async fn email_channels_are_lowercased(app: TestApp) {
    let c = create(&app, json!({"channel_type": "email", "channel_id": "Ana.Lopez@Example.COM"})).await;
    assert_eq!(c["channels"], json!([{"channel_id": "ana.lopez@example.com", "channel_type": "email"}]));
    assert_eq!(c["profile_name"], "ana.lopez@example.com");
}

async fn create_requires_channel_type(app: TestApp) {
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_id": "5215550001"})).await;
    assert_invalid(&r, "channel_type");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_requires_channel_id(app: TestApp) {
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp"})).await;
    assert_invalid(&r, "channel_id");
    let r = app.post("/v1/contacts", &app.a.secret, json!({})).await;
    assert_invalid(&r, "channel_type");
    assert_invalid(&r, "channel_id");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_rejects_unknown_channel_types(app: TestApp) {
    for kind in ["fax", "WhatsApp", "telegram", ""] {
        let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": kind, "channel_id": "5215550001"})).await;
        assert_invalid(&r, "channel_type");
    }
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_rejects_bad_phone_numbers(app: TestApp) {
    for (kind, raw) in
        [("whatsapp", "123456"), ("sms", "1234567890123456"), ("whatsapp", "12a4567"), ("sms", "(555) 0100200"), ("whatsapp", "+")]
    {
        let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": kind, "channel_id": raw})).await;
        assert_invalid(&r, "channel_id");
    }
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_rejects_bad_email_addresses(app: TestApp) {
    for bad in ["ana", "ana@", "@x.com", "ana@x", "a b@x.com"] {
        let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "email", "channel_id": bad})).await;
        assert_invalid(&r, "channel_id");
    }
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "sms", "channel_id": "5215550001", "email": "nope"})).await;
    assert_invalid(&r, "email");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_accepts_50_custom_attributes_and_rejects_51(app: TestApp) {
    let r = app
        .post(
            "/v1/contacts",
            &app.a.secret,
            json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": attributes(51)}),
        )
        .await;
    assert_invalid(&r, "custom_attributes");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");

    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": attributes(50)})).await;
    assert_eq!(c["custom_attributes"].as_object().unwrap().len(), 50);
}

async fn create_rejects_custom_attributes_over_16_kib(app: TestApp) {
    let big = json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": {"blob": "x".repeat(17 * 1024)}});
    assert_invalid(&app.post("/v1/contacts", &app.a.secret, big).await, "custom_attributes");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_rejects_unknown_body_fields(app: TestApp) {
    for field in ["extra", "id", "created_at"] {
        let mut body = json!({"channel_type": "sms", "channel_id": "5215550001"});
        body[field] = json!("x");
        let r = app.post("/v1/contacts", &app.a.secret, body).await;
        assert_invalid(&r, field);
    }
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn create_with_wrong_json_types_is_invalid_json(app: TestApp) {
    let bodies = [
        json!({"channel_type": "sms", "channel_id": 5215550001_u64}),
        json!({"channel_type": ["sms"], "channel_id": "5215550001"}),
        json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": ["a"]}),
        json!({"channel_type": "sms", "channel_id": "5215550001", "profile_name": 7}),
        json!(["channel_type", "sms"]),
    ];
    for body in bodies {
        app.post("/v1/contacts", &app.a.secret, body).await.assert_error(400, "INVALID_JSON");
    }
    let raw = TestRequest::post()
        .uri("/v1/contacts")
        .insert_header(("X-API-Key", app.a.secret.as_str()))
        .insert_header(("Content-Type", "application/json"))
        .set_payload("{\"channel_type\": ");
    app.call(raw).await.assert_error(400, "INVALID_JSON");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");
}

async fn duplicate_channel_is_409_naming_the_existing_contact(app: TestApp) {
    let first = id_of(&create(&app, json!({"channel_type": "whatsapp", "channel_id": "+52 55 1234 5678"})).await);
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "525512345678"})).await;
    r.assert_error(409, "CONFLICT");
    assert!(r.body["error"]["details"].to_string().contains(&first), "details name {first}: {}", r.body);

    let email = id_of(&create(&app, json!({"channel_type": "email", "channel_id": "ana@example.com"})).await);
    let r = app.post("/v1/contacts", &app.a.secret, json!({"channel_type": "email", "channel_id": "ANA@Example.com"})).await;
    r.assert_error(409, "CONFLICT");
    assert!(r.body["error"]["details"].to_string().contains(&email), "details name {email}: {}", r.body);
    assert_eq!(total(&app, &app.a.secret).await, 2, "no duplicate was written");
}

async fn the_same_id_on_another_channel_type_is_not_a_duplicate(app: TestApp) {
    let wa = create(&app, json!({"channel_type": "whatsapp", "channel_id": "525512345678"})).await;
    let sms = create(&app, json!({"channel_type": "sms", "channel_id": "525512345678"})).await;
    assert_ne!(wa["id"], sms["id"]);
}

async fn another_agent_may_create_the_same_channel(app: TestApp) {
    let a = create(&app, json!({"channel_type": "whatsapp", "channel_id": "525512345678"})).await;
    let r = app.post("/v1/contacts", &app.b.secret, json!({"channel_type": "whatsapp", "channel_id": "+52 55 1234 5678"})).await;
    r.assert_status(201);
    assert_ne!(r.data()["id"], a["id"]);
    assert_eq!(r.data()["channels"], a["channels"]);
}

async fn bodies_need_the_json_content_type_and_at_most_256_kib(app: TestApp) {
    let body = r#"{"channel_type":"sms","channel_id":"5215550001"}"#;
    let no_type = TestRequest::post().uri("/v1/contacts").insert_header(("X-API-Key", app.a.secret.as_str())).set_payload(body);
    app.call(no_type).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let text = TestRequest::post()
        .uri("/v1/contacts")
        .insert_header(("X-API-Key", app.a.secret.as_str()))
        .insert_header(("Content-Type", "text/plain"))
        .set_payload(body);
    app.call(text).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let big = json!({"channel_type": "sms", "channel_id": "5215550001", "notes": "n".repeat(256 * 1024)});
    app.post("/v1/contacts", &app.a.secret, big).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    assert_eq!(total(&app, &app.a.secret).await, 0, "nothing was written");

    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    let patch = TestRequest::patch().uri(&path).insert_header(("X-API-Key", app.a.secret.as_str())).set_payload(r#"{"notes":"x"}"#);
    app.call(patch).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    app.patch(&path, &app.a.secret, json!({"notes": "n".repeat(256 * 1024)})).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c, "nothing changed");
}

// ---- read ----

async fn get_returns_the_contact(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "profile_name": "Ana", "custom_attributes": {"a": 1}}))
        .await;
    let r = app.get(&format!("/v1/contacts/{}", id_of(&c)), &app.a.secret).await;
    r.assert_status(200);
    assert_eq!(r.data(), &c);
}

async fn get_of_an_unknown_contact_is_404(app: TestApp) {
    app.get("/v1/contacts/con_doesnotexist", &app.a.secret).await.assert_error(404, "NOT_FOUND");
}

async fn list_is_newest_first_with_pagination(app: TestApp) {
    let mut created = Vec::new();
    for phone in ["5215550001", "5215550002", "5215550003"] {
        created.push(id_of(&create(&app, json!({"channel_type": "sms", "channel_id": phone})).await));
        app.tick();
    }
    let r = app.get("/v1/contacts", &app.a.secret).await;
    r.assert_status(200);
    created.reverse();
    assert_eq!(ids(&r), created);
    assert_eq!(r.body["pagination"], json!({"total": 3, "limit": 20, "offset": 0, "has_more": false}));
    assert_eq!(r.data()[0]["channels"][0]["channel_id"], "5215550003", "list items are full contacts");
}

async fn list_pages_with_limit_and_offset(app: TestApp) {
    for i in 0..5 {
        create(&app, json!({"channel_type": "sms", "channel_id": format!("521555000{i}")})).await;
        app.tick();
    }
    let all = ids(&app.get("/v1/contacts", &app.a.secret).await);
    assert_eq!(all.len(), 5);

    let p1 = app.get("/v1/contacts?limit=2", &app.a.secret).await;
    assert_eq!(p1.body["pagination"], json!({"total": 5, "limit": 2, "offset": 0, "has_more": true}));
    let p2 = app.get("/v1/contacts?limit=2&offset=2", &app.a.secret).await;
    assert_eq!(p2.body["pagination"], json!({"total": 5, "limit": 2, "offset": 2, "has_more": true}));
    let p3 = app.get("/v1/contacts?limit=2&offset=4", &app.a.secret).await;
    assert_eq!(p3.body["pagination"], json!({"total": 5, "limit": 2, "offset": 4, "has_more": false}));
    let paged: Vec<String> = [ids(&p1), ids(&p2), ids(&p3)].concat();
    assert_eq!(paged, all, "pages neither repeat nor skip rows");

    let past = app.get("/v1/contacts?offset=10", &app.a.secret).await;
    past.assert_status(200);
    assert_eq!(past.data(), &json!([]));
    assert_eq!(past.body["pagination"], json!({"total": 5, "limit": 20, "offset": 10, "has_more": false}));
}

async fn list_default_limit_is_20_and_100_is_allowed(app: TestApp) {
    for i in 0..21 {
        create(&app, json!({"channel_type": "sms", "channel_id": format!("52155500{i:02}")})).await;
    }
    let r = app.get("/v1/contacts", &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 20);
    assert_eq!(r.body["pagination"], json!({"total": 21, "limit": 20, "offset": 0, "has_more": true}));
    let r = app.get("/v1/contacts?limit=100", &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 21);
    assert_eq!(r.body["pagination"], json!({"total": 21, "limit": 100, "offset": 0, "has_more": false}));
    let r = app.get("/v1/contacts?limit=1", &app.a.secret).await;
    assert_eq!(r.data().as_array().unwrap().len(), 1);
}

async fn list_rejects_out_of_range_and_non_integer_paging(app: TestApp) {
    for q in ["limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5"] {
        let r = app.get(&format!("/v1/contacts?{q}"), &app.a.secret).await;
        assert_invalid(&r, "limit");
    }
    for q in ["offset=-1", "offset=abc", "offset=1.5"] {
        let r = app.get(&format!("/v1/contacts?{q}"), &app.a.secret).await;
        assert_invalid(&r, "offset");
    }
}

// ---- update ----

async fn patch_changes_profile_name_email_and_notes(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": {"a": 1}})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    app.tick();

    let r = app.patch(&path, &app.a.secret, json!({"profile_name": "Ana", "email": "ana@example.com", "notes": "VIP"})).await;
    r.assert_status(200);
    let d = r.data();
    assert_eq!((&d["profile_name"], &d["email"], &d["notes"]), (&json!("Ana"), &json!("ana@example.com"), &json!("VIP")));
    assert_eq!(d["channels"], c["channels"], "channels are untouched");
    assert_eq!(d["custom_attributes"], json!({"a": 1}), "attributes are untouched");
    assert_eq!(d["id"], c["id"]);
    assert_eq!(d["created_at"], c["created_at"]);
    assert_timestamp(&d["updated_at"]);
    assert_ne!(d["updated_at"], c["updated_at"], "updated_at moves");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), d, "the change is stored");

    let r = app.patch(&path, &app.a.secret, json!({"notes": "Only notes"})).await;
    assert_eq!(
        (&r.data()["profile_name"], &r.data()["email"], &r.data()["notes"]),
        (&json!("Ana"), &json!("ana@example.com"), &json!("Only notes"))
    );
}

async fn a_patch_that_changes_nothing_keeps_updated_at_and_records_no_event(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "profile_name": "Ana", "email": "ana@example.com", "custom_attributes": {"a": 1}})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    app.tick();

    let same = json!({"profile_name": "Ana", "email": "ana@example.com", "notes": null, "custom_attributes": {"a": 1}});
    let r = app.patch(&path, &app.a.secret, same).await;
    r.assert_status(200);
    assert_eq!(r.data(), &c, "answered as it is, updated_at included");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c);
    let events = app.get("/v1/events?type=contact.updated", &app.a.secret).await;
    assert_eq!(events.body["pagination"]["total"], 0, "no event for a change that changed nothing");

    app.patch(&path, &app.a.secret, json!({"notes": "VIP"})).await.assert_status(200);
    let events = app.get("/v1/events?type=contact.updated", &app.a.secret).await;
    assert_eq!(events.body["pagination"]["total"], 1, "a real change is recorded");
}

async fn patch_null_clears_email_and_notes(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "email": "a@b.co", "notes": "n"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    let r = app.patch(&path, &app.a.secret, json!({"email": null})).await;
    r.assert_status(200);
    assert_eq!((&r.data()["email"], &r.data()["notes"]), (&Value::Null, &json!("n")));
    let r = app.patch(&path, &app.a.secret, json!({"notes": null})).await;
    r.assert_status(200);
    assert_eq!((&r.data()["email"], &r.data()["notes"]), (&Value::Null, &Value::Null));
    let stored = app.get(&path, &app.a.secret).await;
    assert_eq!((&stored.data()["email"], &stored.data()["notes"]), (&Value::Null, &Value::Null));
}

async fn patch_rejects_null_or_empty_profile_name(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "profile_name": "Ana"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    assert_invalid(&app.patch(&path, &app.a.secret, json!({"profile_name": null})).await, "profile_name");
    assert_invalid(&app.patch(&path, &app.a.secret, json!({"profile_name": "   "})).await, "profile_name");
    assert_invalid(&app.patch(&path, &app.a.secret, json!({"email": "not-an-email"})).await, "email");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c, "nothing changed");
}

async fn patch_merges_custom_attributes_and_null_removes_a_key(app: TestApp) {
    let c = create(
        &app,
        json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": {"tier": "gold", "city": "Lima", "n": 1}}),
    )
    .await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    let r = app.patch(&path, &app.a.secret, json!({"custom_attributes": {"city": null, "tier": "silver", "vip": true}})).await;
    r.assert_status(200);
    assert_eq!(r.data()["custom_attributes"], json!({"tier": "silver", "n": 1, "vip": true}));
    assert_eq!(app.get(&path, &app.a.secret).await.data()["custom_attributes"], json!({"tier": "silver", "n": 1, "vip": true}));
    // A key no attribute can have is refused in a patch too, even as a removal (the document
    // says keys are 1–128 characters).
    for bad in [json!({"": null}), json!({"": 1}), json!({" ": null})] {
        assert_invalid(&app.patch(&path, &app.a.secret, json!({"custom_attributes": bad})).await, "custom_attributes");
    }
}

async fn patch_rejects_attributes_that_would_exceed_50_keys(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "custom_attributes": attributes(50)})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    let r = app.patch(&path, &app.a.secret, json!({"custom_attributes": {"one_more": 1}})).await;
    assert_invalid(&r, "custom_attributes");
    assert_eq!(app.get(&path, &app.a.secret).await.data()["custom_attributes"].as_object().unwrap().len(), 50);
}

async fn patch_rejects_unknown_fields(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    for field in ["channels", "channel_id", "id", "extra"] {
        let mut body = json!({"profile_name": "Changed"});
        body[field] = json!("x");
        assert_invalid(&app.patch(&path, &app.a.secret, body).await, field);
    }
    app.patch(&path, &app.a.secret, json!({"notes": 5})).await.assert_error(400, "INVALID_JSON");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c, "nothing changed");
}

async fn patch_of_an_unknown_contact_is_404(app: TestApp) {
    app.patch("/v1/contacts/con_doesnotexist", &app.a.secret, json!({"notes": "x"})).await.assert_error(404, "NOT_FOUND");
}

// ---- keys and tenants ----

async fn publishable_keys_are_forbidden_on_every_contacts_endpoint(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    let pk = &app.a.publishable;
    app.get("/v1/contacts", pk).await.assert_error(403, "FORBIDDEN");
    app.post("/v1/contacts", pk, json!({"channel_type": "sms", "channel_id": "5215550002"})).await.assert_error(403, "FORBIDDEN");
    app.get(&path, pk).await.assert_error(403, "FORBIDDEN");
    app.patch(&path, pk, json!({"notes": "x"})).await.assert_error(403, "FORBIDDEN");
    assert_eq!(total(&app, &app.a.secret).await, 1, "the publishable create wrote nothing");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c, "the publishable patch changed nothing");
}

async fn another_agents_contacts_are_invisible(app: TestApp) {
    let c = create(&app, json!({"channel_type": "sms", "channel_id": "5215550001", "profile_name": "Ana"})).await;
    let path = format!("/v1/contacts/{}", id_of(&c));
    app.get(&path, &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.patch(&path, &app.b.secret, json!({"profile_name": "Stolen"})).await.assert_error(404, "NOT_FOUND");

    app.post("/v1/contacts", &app.b.secret, json!({"channel_type": "sms", "channel_id": "5215550009"})).await.assert_status(201);
    let listed = app.get("/v1/contacts", &app.b.secret).await;
    assert!(!ids(&listed).contains(&id_of(&c)));
    assert_eq!(listed.body["pagination"]["total"], 1, "B counts only its own contacts");
    assert_eq!(app.get(&path, &app.a.secret).await.data(), &c, "A's contact is untouched");
}

http_tests!(
    create_returns_201_with_the_exact_contact_shape,
    create_keeps_every_optional_field_sent,
    phone_channels_are_stored_as_digits,
    email_channels_are_lowercased,
    create_requires_channel_type,
    create_requires_channel_id,
    create_rejects_unknown_channel_types,
    create_rejects_bad_phone_numbers,
    create_rejects_bad_email_addresses,
    create_accepts_50_custom_attributes_and_rejects_51,
    create_rejects_custom_attributes_over_16_kib,
    create_rejects_unknown_body_fields,
    create_with_wrong_json_types_is_invalid_json,
    duplicate_channel_is_409_naming_the_existing_contact,
    the_same_id_on_another_channel_type_is_not_a_duplicate,
    another_agent_may_create_the_same_channel,
    bodies_need_the_json_content_type_and_at_most_256_kib,
    get_returns_the_contact,
    get_of_an_unknown_contact_is_404,
    list_is_newest_first_with_pagination,
    list_pages_with_limit_and_offset,
    list_default_limit_is_20_and_100_is_allowed,
    list_rejects_out_of_range_and_non_integer_paging,
    patch_changes_profile_name_email_and_notes,
    a_patch_that_changes_nothing_keeps_updated_at_and_records_no_event,
    patch_null_clears_email_and_notes,
    patch_rejects_null_or_empty_profile_name,
    patch_merges_custom_attributes_and_null_removes_a_key,
    patch_rejects_attributes_that_would_exceed_50_keys,
    patch_rejects_unknown_fields,
    patch_of_an_unknown_contact_is_404,
    publishable_keys_are_forbidden_on_every_contacts_endpoint,
    another_agents_contacts_are_invisible,
);
