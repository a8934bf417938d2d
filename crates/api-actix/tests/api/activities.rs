//! Activities over HTTP, on both backends.

use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_domain::model::ActivityStatus;
use serde_json::{Value, json};

// ---- helpers ----

/// A WhatsApp conversation of tenant A; returns (contact id, activity id).
async fn conv(app: &TestApp, name: &str, phone: &str, status: ActivityStatus) -> (String, String) {
    app.conversation(&app.a, name, ("whatsapp", phone), status).await
}

/// Percent-encodes a query value.
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

async fn list(app: &TestApp, key: &str, query: &str) -> Reply {
    app.get(&format!("/v1/activities?{query}"), key).await
}

async fn search(app: &TestApp, key: &str, term: &str) -> Vec<String> {
    let r = list(app, key, &format!("search={}", enc(term))).await;
    r.assert_status(200);
    ids(&r)
}

fn ids(r: &Reply) -> Vec<String> {
    r.data().as_array().unwrap_or_else(|| panic!("not a list: {}", r.body)).iter().map(|a| a["id"].as_str().unwrap().to_string()).collect()
}

fn tag_names(activity: &Value) -> Vec<String> {
    activity["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

fn sorted_keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().unwrap_or_else(|| panic!("not an object: {v}")).keys().cloned().collect();
    keys.sort_unstable();
    keys
}

/// A 400 VALIDATION_ERROR whose details name `field`.
#[track_caller]
fn assert_invalid(r: &Reply, field: &str) {
    r.assert_error(400, "VALIDATION_ERROR");
    let details = r.body["error"]["details"].as_array().unwrap_or_else(|| panic!("no details: {}", r.body));
    assert!(details.iter().any(|d| d["field"] == field), "details should name {field}: {}", r.body);
}

/// RFC 3339 UTC with milliseconds and `Z`: `2026-11-21T10:00:00.000Z`.
#[track_caller]
fn assert_timestamp(v: &Value) {
    let s = v.as_str().unwrap_or_else(|| panic!("timestamp is not a string: {v}"));
    let shape: String = s.chars().map(|c| if c.is_ascii_digit() { 'd' } else { c }).collect();
    assert_eq!(shape, "dddd-dd-ddTdd:dd:dd.dddZ", "timestamp shape of {s}");
    assert!(chrono::DateTime::parse_from_rfc3339(s).is_ok(), "not RFC 3339: {s}");
}

fn tags_path(activity: &str) -> String {
    format!("/v1/activities/{activity}/tags")
}

async fn attach(app: &TestApp, activity: &str, tag_ids: Value) -> Reply {
    app.post(&tags_path(activity), &app.a.secret, json!({"tag_ids": tag_ids})).await
}

async fn detach(app: &TestApp, activity: &str, tag: &str) -> Reply {
    app.delete(&format!("{}?tag_id={}", tags_path(activity), enc(tag)), &app.a.secret).await
}

async fn get(app: &TestApp, activity: &str) -> Value {
    let r = app.get(&format!("/v1/activities/{activity}"), &app.a.secret).await;
    r.assert_status(200);
    r.data().clone()
}

// ---- list and read ----

async fn list_is_ordered_by_updated_at_desc(app: TestApp) {
    let mut created = Vec::new();
    for (name, phone) in [("Ana", "5215550001"), ("Bob", "5215550002"), ("Cy", "5215550003")] {
        created.push(conv(&app, name, phone, ActivityStatus::Open).await.1);
        app.tick();
    }
    let r = list(&app, &app.a.secret, "").await;
    r.assert_status(200);
    created.reverse();
    assert_eq!(ids(&r), created);
    assert_eq!(r.body["pagination"], json!({"total": 3, "limit": 20, "offset": 0, "has_more": false}));
}

async fn list_item_has_exactly_the_documented_fields(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "+52 55 1234 5678", ActivityStatus::Open).await;
    let r = list(&app, &app.a.secret, "").await;
    let item = &r.data()[0];
    assert_eq!(
        sorted_keys(item),
        [
            "assigned_to",
            "assignee",
            "channel_identifiers",
            "created_at",
            "first_responded_at",
            "first_response_due_at",
            "id",
            "last_message",
            "profile_name",
            "status",
            "tags",
            "unread_count",
            "updated_at"
        ]
    );
    assert_eq!(item["id"], activity.as_str());
    assert!(activity.starts_with("act_"), "{activity}");
    assert_eq!(item["status"], "open");
    assert_eq!(item["profile_name"], "Ana");
    assert_eq!(item["channel_identifiers"], json!(["525512345678"]));
    assert_eq!(item["tags"], json!([]));
    assert_eq!(item["assigned_to"], Value::Null);
    assert_eq!(item["assignee"], Value::Null);
    assert_eq!(item["last_message"], Value::Null, "no message yet");
    assert_eq!((&item["first_response_due_at"], &item["first_responded_at"]), (&Value::Null, &Value::Null), "nobody waits yet");
    assert_timestamp(&item["created_at"]);
    assert_timestamp(&item["updated_at"]);
}

async fn list_item_tags_carry_id_name_and_color(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let r = app.post("/v1/tags", &app.a.secret, json!({"name": "VIP", "color": "#A1B2C3", "description": "d"})).await;
    let tag = r.data()["id"].as_str().unwrap().to_string();
    attach(&app, &activity, json!([tag])).await.assert_status(200);
    let r = list(&app, &app.a.secret, "").await;
    assert_eq!(r.data()[0]["tags"], json!([{"id": tag, "name": "VIP", "color": "#a1b2c3"}]));
}

async fn detail_adds_contact_id_channels_and_last_inbound_at(app: TestApp) {
    let (contact, activity) = conv(&app, "Ana", "+52 55 1234 5678", ActivityStatus::Pending).await;
    let detail = get(&app, &activity).await;
    assert_eq!(
        sorted_keys(&detail),
        [
            "assigned_to",
            "assignee",
            "carts",
            "channel_identifiers",
            "channels",
            "contact_id",
            "created_at",
            "first_responded_at",
            "first_response_due_at",
            "id",
            "last_inbound_at",
            "last_message",
            "profile_name",
            "status",
            "tags",
            "unread_count",
            "updated_at"
        ]
    );
    assert_eq!(detail["contact_id"], contact.as_str());
    assert_eq!(detail["unread_count"], 0, "nothing came in");
    assert_eq!(
        detail["channels"],
        json!([{"channel_id": "525512345678", "channel_type": "whatsapp", "user_id": null, "parent_user_id": null, "username": null}])
    );
    assert_eq!(detail["last_inbound_at"], Value::Null, "the contact never wrote");
    assert_eq!(detail["carts"], json!([]), "no cart brought in");

    let listed = list(&app, &app.a.secret, "").await.data()[0].clone();
    for (k, v) in listed.as_object().unwrap() {
        assert_eq!(&detail[k], v, "detail and list item agree on {k}");
    }
    assert_eq!(detail["status"], "pending");
}

async fn unknown_activity_ids_are_404(app: TestApp) {
    let tag = app.tag(&app.a, "VIP").await;
    let sk = &app.a.secret;
    app.get("/v1/activities/act_doesnotexist", sk).await.assert_error(404, "NOT_FOUND");
    app.patch("/v1/activities/act_doesnotexist", sk, json!({"status": "closed"})).await.assert_error(404, "NOT_FOUND");
    attach(&app, "act_doesnotexist", json!([tag])).await.assert_error(404, "NOT_FOUND");
    detach(&app, "act_doesnotexist", &tag).await.assert_error(404, "NOT_FOUND");
}

// ---- filters ----

async fn list_filters_by_status(app: TestApp) {
    let (_, open) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let (_, closed) = conv(&app, "Bob", "5215550002", ActivityStatus::Closed).await;
    let (_, pending) = conv(&app, "Cy", "5215550003", ActivityStatus::Pending).await;
    for (status, id) in [("open", &open), ("closed", &closed), ("pending", &pending)] {
        let r = list(&app, &app.a.secret, &format!("status={status}")).await;
        r.assert_status(200);
        assert_eq!(ids(&r), [id.as_str()], "status={status}");
        assert_eq!(r.data()[0]["status"], status);
        assert_eq!(r.body["pagination"]["total"], 1);
    }
}

async fn list_rejects_a_bad_status_filter(app: TestApp) {
    for bad in ["archived", "OPEN", "", "open,", "open,,closed", "open;closed"] {
        assert_invalid(&list(&app, &app.a.secret, &format!("status={}", enc(bad))).await, "status");
    }
}

async fn list_filters_by_tag_id(app: TestApp) {
    let (_, tagged) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let (_, other) = conv(&app, "Bob", "5215550002", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "VIP").await;
    let unused = app.tag(&app.a, "Unused").await;
    attach(&app, &tagged, json!([vip])).await.assert_status(200);

    let r = list(&app, &app.a.secret, &format!("tag={vip}")).await;
    r.assert_status(200);
    assert_eq!(ids(&r), [tagged.as_str()]);
    assert_eq!(r.body["pagination"]["total"], 1);
    assert!(!ids(&r).contains(&other));

    let r = list(&app, &app.a.secret, &format!("tag={unused}")).await;
    assert_eq!((ids(&r).len(), &r.body["pagination"]["total"]), (0, &json!(0)));
    let r = list(&app, &app.a.secret, "tag=VIP").await;
    assert_eq!(ids(&r).len(), 0, "the filter takes a tag id, not a name");
}

async fn search_matches_the_contact_name_case_insensitively(app: TestApp) {
    let (_, ana) = conv(&app, "Ana María", "5215550001", ActivityStatus::Open).await;
    app.tick();
    let (_, mariana) = conv(&app, "Mariana", "5215550002", ActivityStatus::Closed).await;
    let (_, bob) = conv(&app, "Bob", "5215550003", ActivityStatus::Open).await;

    let mut found = search(&app, &app.a.secret, "ANA").await;
    found.sort();
    let mut expected = vec![ana.clone(), mariana.clone()];
    expected.sort();
    assert_eq!(found, expected);
    assert_eq!(search(&app, &app.a.secret, "bO").await, [bob]);
    assert_eq!(search(&app, &app.a.secret, "a maría").await, [ana.as_str()], "a substring across words");
    assert_eq!(search(&app, &app.a.secret, "ANA MARÍA").await, [ana]);
    assert!(search(&app, &app.a.secret, "zoe").await.is_empty());
}

async fn search_matches_three_or_more_digits_of_a_phone(app: TestApp) {
    let (_, ana) = conv(&app, "Ana", "+52 55 1234 5678", ActivityStatus::Open).await;
    let (_, bob) = conv(&app, "Bob", "+1 555 010 0200", ActivityStatus::Open).await;

    assert_eq!(search(&app, &app.a.secret, "1234").await, [ana.as_str()]);
    assert_eq!(search(&app, &app.a.secret, "5678").await, [ana.as_str()]);
    assert_eq!(search(&app, &app.a.secret, "+52 55-1234").await, [ana.as_str()], "formatting in the term is ignored");
    assert_eq!(search(&app, &app.a.secret, "0100").await, [bob.as_str()]);
    assert_eq!(search(&app, &app.a.secret, "555").await, [bob.as_str()], "only 15550100200 holds 555");
    assert_eq!(search(&app, &app.a.secret, "5255").await, [ana.as_str()]);
    assert!(search(&app, &app.a.secret, "999").await.is_empty());
    assert!(search(&app, &app.a.secret, "12").await.is_empty(), "fewer than 3 digits do not match phone numbers");
}

async fn search_treats_wildcards_literally(app: TestApp) {
    let (_, underscore) = conv(&app, "ana_b", "5215550001", ActivityStatus::Open).await;
    conv(&app, "anaxb", "5215550002", ActivityStatus::Open).await;
    conv(&app, "Bob", "5215550003", ActivityStatus::Open).await;
    assert_eq!(search(&app, &app.a.secret, "a_b").await, [underscore]);
    assert!(search(&app, &app.a.secret, "%").await.is_empty());
}

async fn filters_combine_and_pagination_counts_only_matches(app: TestApp) {
    let vip = app.tag(&app.a, "VIP").await;
    let mut open_anas = Vec::new();
    for i in 0..5 {
        let (_, id) = conv(&app, &format!("Ana {i}"), &format!("521555000{i}"), ActivityStatus::Open).await;
        attach(&app, &id, json!([vip])).await.assert_status(200);
        open_anas.push(id);
        app.tick();
    }
    let (_, closed_ana) = conv(&app, "Ana closed", "5215550010", ActivityStatus::Closed).await;
    attach(&app, &closed_ana, json!([vip])).await.assert_status(200);
    conv(&app, "Bob", "5215550011", ActivityStatus::Open).await;

    let q = format!("status=open&tag={vip}&search=ana");
    let p1 = list(&app, &app.a.secret, &format!("{q}&limit=2")).await;
    p1.assert_status(200);
    assert_eq!(p1.body["pagination"], json!({"total": 5, "limit": 2, "offset": 0, "has_more": true}));
    let p2 = list(&app, &app.a.secret, &format!("{q}&limit=2&offset=2")).await;
    assert_eq!(p2.body["pagination"], json!({"total": 5, "limit": 2, "offset": 2, "has_more": true}));
    let p3 = list(&app, &app.a.secret, &format!("{q}&limit=2&offset=4")).await;
    assert_eq!(p3.body["pagination"], json!({"total": 5, "limit": 2, "offset": 4, "has_more": false}));
    open_anas.reverse();
    assert_eq!([ids(&p1), ids(&p2), ids(&p3)].concat(), open_anas, "pages neither repeat nor skip rows");

    let all = list(&app, &app.a.secret, "").await;
    assert_eq!(all.body["pagination"]["total"], 7);
}

async fn list_paging_defaults_and_bounds(app: TestApp) {
    for i in 0..21 {
        conv(&app, &format!("C{i}"), &format!("52155500{i:02}"), ActivityStatus::Open).await;
    }
    let r = list(&app, &app.a.secret, "").await;
    assert_eq!(r.data().as_array().unwrap().len(), 20);
    assert_eq!(r.body["pagination"], json!({"total": 21, "limit": 20, "offset": 0, "has_more": true}));
    let r = list(&app, &app.a.secret, "limit=100").await;
    assert_eq!(r.data().as_array().unwrap().len(), 21);
    assert_eq!(r.body["pagination"], json!({"total": 21, "limit": 100, "offset": 0, "has_more": false}));
    let r = list(&app, &app.a.secret, "limit=1&offset=20").await;
    assert_eq!(r.data().as_array().unwrap().len(), 1);
    assert_eq!(r.body["pagination"], json!({"total": 21, "limit": 1, "offset": 20, "has_more": false}));
    let r = list(&app, &app.a.secret, "offset=50").await;
    assert_eq!((r.data(), &r.body["pagination"]["has_more"]), (&json!([]), &json!(false)));

    for q in ["limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5"] {
        assert_invalid(&list(&app, &app.a.secret, q).await, "limit");
    }
    for q in ["offset=-1", "offset=abc", "offset=1.5"] {
        assert_invalid(&list(&app, &app.a.secret, q).await, "offset");
    }
}

// ---- update ----

async fn patch_status_allows_any_move(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let path = format!("/v1/activities/{activity}");
    for status in ["closed", "pending", "open", "pending", "closed", "open", "open"] {
        let r = app.patch(&path, &app.a.secret, json!({"status": status})).await;
        r.assert_status(200);
        assert_eq!(r.data()["status"], status);
        assert_eq!(r.data()["id"], activity.as_str());
        assert_eq!(get(&app, &activity).await["status"], status, "stored");
    }
}

async fn patch_rejects_an_invalid_status(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let path = format!("/v1/activities/{activity}");
    for bad in [json!("archived"), json!("OPEN"), json!(""), Value::Null] {
        assert_invalid(&app.patch(&path, &app.a.secret, json!({"status": bad})).await, "status");
    }
    assert_eq!(get(&app, &activity).await["status"], "open", "nothing changed");
}

async fn patch_sets_and_clears_assigned_to(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let path = format!("/v1/activities/{activity}");
    let r = app.patch(&path, &app.a.secret, json!({"assigned_to": "user_42"})).await;
    r.assert_status(200);
    assert_eq!(r.data()["assigned_to"], "user_42");
    assert_eq!(r.data()["status"], "open", "status is untouched");
    assert_eq!(get(&app, &activity).await["assigned_to"], "user_42");

    let max = "u".repeat(128);
    assert_eq!(app.patch(&path, &app.a.secret, json!({"assigned_to": max})).await.data()["assigned_to"], max.as_str());

    let r = app.patch(&path, &app.a.secret, json!({"assigned_to": null})).await;
    r.assert_status(200);
    assert_eq!(r.data()["assigned_to"], Value::Null);
    assert_eq!(get(&app, &activity).await["assigned_to"], Value::Null);
}

async fn patch_rejects_assigned_to_over_128_chars(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let path = format!("/v1/activities/{activity}");
    assert_invalid(&app.patch(&path, &app.a.secret, json!({"assigned_to": "u".repeat(129)})).await, "assigned_to");
    assert_eq!(get(&app, &activity).await["assigned_to"], Value::Null, "nothing changed");
}

async fn patch_profile_name_renames_the_contact(app: TestApp) {
    let (contact, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let r = app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"profile_name": "Ana María"})).await;
    r.assert_status(200);
    assert_eq!(r.data()["profile_name"], "Ana María");
    let c = app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await;
    c.assert_status(200);
    assert_eq!(c.data()["profile_name"], "Ana María");
    assert_eq!(list(&app, &app.a.secret, "").await.data()[0]["profile_name"], "Ana María");
    assert_eq!(search(&app, &app.a.secret, "maría").await, [activity.as_str()], "search sees the new name");
    assert!(search(&app, &app.a.secret, "ana").await.contains(&activity));

    let r = app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"profile_name": null})).await;
    assert_invalid(&r, "profile_name");
    let r = app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"profile_name": "  "})).await;
    assert_invalid(&r, "profile_name");
    let c = app.get(&format!("/v1/contacts/{contact}"), &app.a.secret).await;
    assert_eq!(c.data()["profile_name"], "Ana María", "a rejected rename changes nothing");
}

async fn patch_rejects_unknown_fields_and_wrong_types(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let path = format!("/v1/activities/{activity}");
    for field in ["tags", "contact_id", "extra"] {
        let mut body = json!({"status": "closed"});
        body[field] = json!("x");
        assert_invalid(&app.patch(&path, &app.a.secret, body).await, field);
    }
    app.patch(&path, &app.a.secret, json!({"status": 1})).await.assert_error(400, "INVALID_JSON");
    app.patch(&path, &app.a.secret, json!({"assigned_to": ["u"]})).await.assert_error(400, "INVALID_JSON");
    assert_eq!(get(&app, &activity).await["status"], "open", "nothing changed");
}

async fn patch_bumps_updated_at_and_moves_the_activity_to_the_top(app: TestApp) {
    let (_, first) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    app.tick();
    let (_, second) = conv(&app, "Bob", "5215550002", ActivityStatus::Open).await;
    assert_eq!(ids(&list(&app, &app.a.secret, "").await), [second.clone(), first.clone()]);
    let before = get(&app, &first).await;
    app.tick();

    let r = app.patch(&format!("/v1/activities/{first}"), &app.a.secret, json!({"assigned_to": "user_1"})).await;
    r.assert_status(200);
    assert_eq!(r.data()["created_at"], before["created_at"]);
    assert_timestamp(&r.data()["updated_at"]);
    assert!(r.data()["updated_at"].as_str().unwrap() > before["updated_at"].as_str().unwrap(), "updated_at moves forward");
    assert_eq!(ids(&list(&app, &app.a.secret, "").await), [first, second]);
}

async fn a_patch_that_changes_nothing_keeps_updated_at_and_records_no_event(app: TestApp) {
    let (_, first) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    app.tick();
    let (_, second) = conv(&app, "Bob", "5215550002", ActivityStatus::Open).await;
    let before = get(&app, &first).await;
    let total = |kind: &'static str| {
        let app = &app;
        async move { app.get(&format!("/v1/events?type={kind}"), &app.a.secret).await.body["pagination"]["total"].clone() }
    };
    let (recorded, renames) = (total("activity.updated").await, total("contact.updated").await);
    app.tick();

    let r = app
        .patch(&format!("/v1/activities/{first}"), &app.a.secret, json!({"status": "open", "assigned_to": null, "profile_name": "Ana"}))
        .await;
    r.assert_status(200);
    assert_eq!(r.data(), &before, "answered as it is, updated_at included");
    assert_eq!(ids(&list(&app, &app.a.secret, "").await), [second, first.clone()], "the activity keeps its place");
    assert_eq!(total("activity.updated").await, recorded, "no event for a change that changed nothing");
    assert_eq!(total("contact.updated").await, renames, "the same name renames nothing");

    app.patch(&format!("/v1/activities/{first}"), &app.a.secret, json!({"status": "pending"})).await.assert_status(200);
    assert_eq!(total("activity.updated").await, json!(recorded.as_u64().unwrap() + 1), "a real change is recorded");
}

async fn bodies_need_the_json_content_type_and_at_most_256_kib(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let key = ("X-API-Key", app.a.secret.as_str());
    let patch = TestRequest::patch().uri(&format!("/v1/activities/{activity}")).insert_header(key).set_payload(r#"{"status":"closed"}"#);
    app.call(patch).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let tags = TestRequest::post()
        .uri(&tags_path(&activity))
        .insert_header(key)
        .insert_header(("Content-Type", "text/plain"))
        .set_payload(format!(r#"{{"tag_ids":["{vip}"]}}"#));
    app.call(tags).await.assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
    let big = json!({"tag_ids": [vip], "padding": "p".repeat(256 * 1024)});
    app.post(&tags_path(&activity), &app.a.secret, big).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    let big = json!({"assigned_to": "u".repeat(256 * 1024)});
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, big).await.assert_error(413, "PAYLOAD_TOO_LARGE");
    let stored = get(&app, &activity).await;
    assert_eq!((&stored["status"], &stored["tags"], &stored["assigned_to"]), (&json!("open"), &json!([]), &Value::Null));
}

// ---- tags ----

async fn attach_returns_the_activity_with_its_tags_sorted_by_name(app: TestApp) {
    let (contact, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let delivery = app.tag(&app.a, "Delivery").await;
    let returns = app.tag(&app.a, "Returns").await;
    let r = attach(&app, &activity, json!([vip, delivery, returns])).await;
    r.assert_status(200);
    assert_eq!(r.data()["id"], activity.as_str());
    assert_eq!(r.data()["contact_id"], contact.as_str());
    assert_eq!(tag_names(r.data()), ["Delivery", "Returns", "Vip"]);
    let tag_ids: Vec<&str> = r.data()["tags"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(tag_ids, [delivery.as_str(), returns.as_str(), vip.as_str()]);
    for t in r.data()["tags"].as_array().unwrap() {
        assert_eq!(sorted_keys(t), ["color", "id", "name"]);
    }
    assert_eq!(get(&app, &activity).await["tags"], r.data()["tags"], "stored");
}

async fn attach_is_idempotent(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let new = app.tag(&app.a, "New").await;
    let first = attach(&app, &activity, json!([vip])).await;
    first.assert_status(200);
    let again = attach(&app, &activity, json!([vip, vip])).await;
    again.assert_status(200);
    assert_eq!(again.data()["tags"], first.data()["tags"]);
    let more = attach(&app, &activity, json!([new, vip])).await;
    more.assert_status(200);
    assert_eq!(tag_names(more.data()), ["New", "Vip"]);
}

async fn attach_accepts_up_to_50_ids(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let mut tags = Vec::new();
    for i in 0..50 {
        tags.push(app.tag(&app.a, &format!("t{i:02}")).await);
    }
    let r = attach(&app, &activity, json!(tags)).await;
    r.assert_status(200);
    assert_eq!(r.data()["tags"].as_array().unwrap().len(), 50);
}

async fn attach_rejects_empty_too_many_or_missing_tag_ids(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    assert_invalid(&attach(&app, &activity, json!([])).await, "tag_ids");
    let mut too_many = vec![vip.clone()];
    too_many.extend((0..50).map(|i| format!("tag_x{i}")));
    assert_invalid(&attach(&app, &activity, json!(too_many)).await, "tag_ids");
    assert_invalid(&app.post(&tags_path(&activity), &app.a.secret, json!({})).await, "tag_ids");
    assert_invalid(&app.post(&tags_path(&activity), &app.a.secret, json!({"tag_ids": [vip], "extra": 1})).await, "extra");
    app.post(&tags_path(&activity), &app.a.secret, json!({"tag_ids": vip})).await.assert_error(400, "INVALID_JSON");
    app.post(&tags_path(&activity), &app.a.secret, json!({"tag_ids": [1]})).await.assert_error(400, "INVALID_JSON");
    assert_eq!(get(&app, &activity).await["tags"], json!([]), "nothing attached");
}

async fn attach_unknown_tags_is_404_naming_each_and_attaches_nothing(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let r = attach(&app, &activity, json!([vip, "tag_missing_one", "tag_missing_two"])).await;
    r.assert_error(404, "NOT_FOUND");
    let details = r.body["error"]["details"].as_array().unwrap_or_else(|| panic!("no details: {}", r.body));
    for missing in ["tag_missing_one", "tag_missing_two"] {
        assert!(details.iter().any(|d| d.to_string().contains(missing)), "details name {missing}: {}", r.body);
    }
    assert!(!r.body["error"]["details"].to_string().contains(&vip), "the known tag is not reported: {}", r.body);
    assert_eq!(get(&app, &activity).await["tags"], json!([]), "nothing attached");
}

async fn attach_of_another_agents_tag_is_404(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let theirs = app.tag(&app.b, "Theirs").await;
    let r = attach(&app, &activity, json!([theirs])).await;
    r.assert_error(404, "NOT_FOUND");
    assert!(r.body["error"]["details"].to_string().contains(&theirs), "details name {theirs}: {}", r.body);
    assert_eq!(get(&app, &activity).await["tags"], json!([]));
}

async fn detach_removes_the_tag_and_returns_the_activity(app: TestApp) {
    let (contact, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let keep = app.tag(&app.a, "Keep").await;
    attach(&app, &activity, json!([vip, keep])).await.assert_status(200);

    let r = detach(&app, &activity, &vip).await;
    r.assert_status(200);
    assert_eq!(r.data()["id"], activity.as_str());
    assert_eq!(r.data()["contact_id"], contact.as_str());
    assert_eq!(tag_names(r.data()), ["Keep"]);
    assert_eq!(tag_names(&get(&app, &activity).await), ["Keep"]);
    assert_eq!(app.get("/v1/tags", &app.a.secret).await.data().as_array().unwrap().len(), 2, "the tag itself remains");
}

async fn detach_of_an_unattached_tag_is_a_no_op(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let never = app.tag(&app.a, "Never").await;
    attach(&app, &activity, json!([vip])).await.assert_status(200);
    let r = detach(&app, &activity, &never).await;
    r.assert_status(200);
    assert_eq!(tag_names(r.data()), ["Vip"]);
    let r = detach(&app, &activity, &vip).await;
    r.assert_status(200);
    let r = detach(&app, &activity, &vip).await;
    r.assert_status(200);
    assert_eq!(r.data()["tags"], json!([]));
}

async fn detach_of_an_unknown_or_foreign_tag_is_404(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    attach(&app, &activity, json!([vip])).await.assert_status(200);
    detach(&app, &activity, "tag_doesnotexist").await.assert_error(404, "NOT_FOUND");
    let theirs = app.tag(&app.b, "Theirs").await;
    detach(&app, &activity, &theirs).await.assert_error(404, "NOT_FOUND");
    assert_eq!(tag_names(&get(&app, &activity).await), ["Vip"], "nothing removed");
}

async fn detach_without_tag_id_is_400(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    attach(&app, &activity, json!([vip])).await.assert_status(200);
    assert_invalid(&app.delete(&tags_path(&activity), &app.a.secret).await, "tag_id");
    assert_invalid(&app.delete(&format!("{}?tag_id=", tags_path(&activity)), &app.a.secret).await, "tag_id");
    assert_eq!(tag_names(&get(&app, &activity).await), ["Vip"], "nothing removed");
}

async fn deleting_a_tag_detaches_it_from_activities(app: TestApp) {
    let (_, one) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let (_, two) = conv(&app, "Bob", "5215550002", ActivityStatus::Closed).await;
    let gone = app.tag(&app.a, "Gone").await;
    let stays = app.tag(&app.a, "Stays").await;
    attach(&app, &one, json!([gone, stays])).await.assert_status(200);
    attach(&app, &two, json!([gone])).await.assert_status(200);

    app.delete(&format!("/v1/tags/{gone}"), &app.a.secret).await.assert_status(200);
    assert_eq!(tag_names(&get(&app, &one).await), ["Stays"]);
    assert_eq!(get(&app, &two).await["tags"], json!([]));
    let r = list(&app, &app.a.secret, &format!("tag={gone}")).await;
    assert_eq!((ids(&r).len(), &r.body["pagination"]["total"]), (0, &json!(0)));
}

// ---- keys and tenants ----

async fn publishable_keys_are_forbidden_on_every_activity_endpoint(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    let pk = &app.a.publishable;
    let path = format!("/v1/activities/{activity}");
    app.get("/v1/activities", pk).await.assert_error(403, "FORBIDDEN");
    app.get(&path, pk).await.assert_error(403, "FORBIDDEN");
    app.patch(&path, pk, json!({"status": "closed"})).await.assert_error(403, "FORBIDDEN");
    app.post(&tags_path(&activity), pk, json!({"tag_ids": [vip]})).await.assert_error(403, "FORBIDDEN");
    app.delete(&format!("{}?tag_id={vip}", tags_path(&activity)), pk).await.assert_error(403, "FORBIDDEN");
    let stored = get(&app, &activity).await;
    assert_eq!((&stored["status"], &stored["tags"]), (&json!("open"), &json!([])), "nothing changed");
}

async fn another_agent_gets_404_on_every_endpoint_of_an_activity(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "5215550001", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    attach(&app, &activity, json!([vip])).await.assert_status(200);
    let before = get(&app, &activity).await;
    let theirs = app.tag(&app.b, "Theirs").await;
    let sk = &app.b.secret;
    let path = format!("/v1/activities/{activity}");

    app.get(&path, sk).await.assert_error(404, "NOT_FOUND");
    app.patch(&path, sk, json!({"status": "closed", "assigned_to": "intruder"})).await.assert_error(404, "NOT_FOUND");
    app.post(&tags_path(&activity), sk, json!({"tag_ids": [theirs]})).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("{}?tag_id={theirs}", tags_path(&activity)), sk).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("{}?tag_id={vip}", tags_path(&activity)), sk).await.assert_error(404, "NOT_FOUND");
    assert_eq!(get(&app, &activity).await, before, "A's activity is untouched");
}

async fn another_agents_list_never_shows_a_rows(app: TestApp) {
    let (_, activity) = conv(&app, "Ana", "+52 55 1234 5678", ActivityStatus::Open).await;
    let vip = app.tag(&app.a, "Vip").await;
    attach(&app, &activity, json!([vip])).await.assert_status(200);
    let (_, bs) = app.conversation(&app.b, "Bea", ("whatsapp", "5215559999"), ActivityStatus::Open).await;
    let sk = &app.b.secret;

    let r = list(&app, sk, "").await;
    assert_eq!(ids(&r), [bs.as_str()]);
    assert_eq!(r.body["pagination"]["total"], 1);
    for term in ["Ana", "ana", "1234", "+52 55 1234 5678"] {
        let r = list(&app, sk, &format!("search={}", enc(term))).await;
        r.assert_status(200);
        assert_eq!((ids(&r).len(), &r.body["pagination"]["total"]), (0, &json!(0)), "search={term}");
    }
    let r = list(&app, sk, &format!("tag={vip}")).await;
    assert_eq!((ids(&r).len(), &r.body["pagination"]["total"]), (0, &json!(0)));
    let r = list(&app, sk, "status=open").await;
    assert_eq!(ids(&r), [bs]);
}

http_tests!(
    list_is_ordered_by_updated_at_desc,
    list_item_has_exactly_the_documented_fields,
    list_item_tags_carry_id_name_and_color,
    detail_adds_contact_id_channels_and_last_inbound_at,
    unknown_activity_ids_are_404,
    list_filters_by_status,
    list_rejects_a_bad_status_filter,
    list_filters_by_tag_id,
    search_matches_the_contact_name_case_insensitively,
    search_matches_three_or_more_digits_of_a_phone,
    search_treats_wildcards_literally,
    filters_combine_and_pagination_counts_only_matches,
    list_paging_defaults_and_bounds,
    patch_status_allows_any_move,
    patch_rejects_an_invalid_status,
    patch_sets_and_clears_assigned_to,
    patch_rejects_assigned_to_over_128_chars,
    patch_profile_name_renames_the_contact,
    patch_rejects_unknown_fields_and_wrong_types,
    patch_bumps_updated_at_and_moves_the_activity_to_the_top,
    a_patch_that_changes_nothing_keeps_updated_at_and_records_no_event,
    bodies_need_the_json_content_type_and_at_most_256_kib,
    attach_returns_the_activity_with_its_tags_sorted_by_name,
    attach_is_idempotent,
    attach_accepts_up_to_50_ids,
    attach_rejects_empty_too_many_or_missing_tag_ids,
    attach_unknown_tags_is_404_naming_each_and_attaches_nothing,
    attach_of_another_agents_tag_is_404,
    detach_removes_the_tag_and_returns_the_activity,
    detach_of_an_unattached_tag_is_a_no_op,
    detach_of_an_unknown_or_foreign_tag_is_404,
    detach_without_tag_id_is_400,
    deleting_a_tag_detaches_it_from_activities,
    publishable_keys_are_forbidden_on_every_activity_endpoint,
    another_agent_gets_404_on_every_endpoint_of_an_activity,
    another_agents_list_never_shows_a_rows,
);
