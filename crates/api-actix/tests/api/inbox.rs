//! The team inbox over HTTP, on both backends: the activity and contact list filters, opening a
//! conversation with a known contact, and unknown query parameters refused everywhere.

use crate::common::{Reply, TestApp};
use parley_domain::model::ActivityStatus;
use serde_json::{Value, json};

fn ids(r: &Reply) -> Vec<String> {
    r.assert_status(200);
    r.data().as_array().unwrap_or_else(|| panic!("not a list: {}", r.body)).iter().map(|a| a["id"].as_str().unwrap().to_string()).collect()
}

/// The ids a list answers, checking that its total counts exactly them.
async fn listed(app: &TestApp, path: &str) -> Vec<String> {
    let r = app.get(path, &app.a.secret).await;
    let found = ids(&r);
    assert_eq!(r.body["pagination"]["total"], json!(found.len()), "{path}: {}", r.body);
    found
}

#[track_caller]
fn assert_invalid(r: &Reply, fields: &[&str]) {
    r.assert_error(400, "VALIDATION_ERROR");
    let named: Vec<&str> = r.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(named, fields, "{}", r.body);
}

async fn assign(app: &TestApp, activity: &str, to: Value) {
    app.tick();
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({ "assigned_to": to })).await.assert_status(200);
}

async fn unknown_query_parameters_are_refused_naming_each(app: TestApp) {
    let (_, activity) = app.conversation(&app.a, "Ana", ("whatsapp", "5215550001"), ActivityStatus::Open).await;
    let sk = &app.a.secret;
    let r = app.get("/v1/activities?serach=ana&limit=5&assignee=me", sk).await;
    assert_invalid(&r, &["serach", "assignee"]);
    assert!(r.body["error"]["details"][0]["issue"].as_str().unwrap().contains("assigned_to"), "names what it takes: {}", r.body);
    for path in [
        format!("/v1/activities/{activity}?expand=contact"),
        format!("/v1/activities/{activity}/messages?order=asc"),
        "/v1/contacts?name=ana".to_string(),
        "/v1/tags?limit=5".to_string(),
        "/v1/events?kind=x".to_string(),
    ] {
        let r = app.get(&path, sk).await;
        r.assert_error(400, "VALIDATION_ERROR");
    }
    // Writes too, and the publishable key's endpoints.
    let r = app.patch(&format!("/v1/activities/{activity}?force=1"), sk, json!({"status": "closed"})).await;
    assert_invalid(&r, &["force"]);
    assert_eq!(app.get(&format!("/v1/activities/{activity}"), sk).await.data()["status"], "open", "nothing written");
    assert_invalid(&app.get("/v1/products?colour=red", &app.a.publishable).await, &["colour"]);
    assert_invalid(&app.get("/healthz?verbose=1", "").await, &["verbose"]);
    // What each endpoint documents passes.
    app.get("/v1/activities?limit=5&offset=0&status=open&search=ana&unread=false", sk).await.assert_status(200);
    app.get(&format!("/v1/activities/{activity}/messages?limit=5"), sk).await.assert_status(200);
    // Authentication comes first: no key, no list of parameters.
    app.get("/v1/activities?serach=ana", "").await.assert_error(401, "UNAUTHORIZED");
}

async fn activity_lists_filter_by_statuses_assignee_channel_and_since(app: TestApp) {
    let conv = |name: &'static str, channel: (&'static str, &'static str), status| {
        let app = &app;
        async move {
            app.tick();
            app.conversation(&app.a, name, channel, status).await.1
        }
    };
    let ana = conv("Ana", ("whatsapp", "5215550001"), ActivityStatus::Open).await;
    let bo = conv("Bo", ("instagram", "ig_bo"), ActivityStatus::Pending).await;
    let cy = conv("Cy", ("email", "cy@shop.mx"), ActivityStatus::Closed).await;
    let di = conv("Di Ana", ("whatsapp", "5215550004"), ActivityStatus::Open).await;
    app.conversation(&app.b, "Theirs", ("whatsapp", "5215550009"), ActivityStatus::Open).await;
    assign(&app, &ana, json!("user_1")).await;
    assign(&app, &cy, json!("user_2")).await;
    let before_di_moved = app.get(&format!("/v1/activities/{cy}"), &app.a.secret).await.data()["updated_at"].as_str().unwrap().to_string();
    assign(&app, &di, json!("user_1")).await;
    assign(&app, &di, Value::Null).await;

    // Newest first: di, cy, ana, bo.
    assert_eq!(listed(&app, "/v1/activities").await, [di.as_str(), cy.as_str(), ana.as_str(), bo.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?status=open,pending").await, [di.as_str(), ana.as_str(), bo.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?status=closed,open,pending").await.len(), 4, "all three: no filter");
    assert_eq!(listed(&app, "/v1/activities?assigned_to=none").await, [di.as_str(), bo.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?assigned_to=none&status=open").await, [di.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?assigned_to=user_1").await, [ana.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?assigned_to=nobody").await, Vec::<String>::new());
    assert_eq!(listed(&app, "/v1/activities?channel_type=instagram").await, [bo.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?channel_type=whatsapp&assigned_to=none").await, [di.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?channel_type=sms").await, Vec::<String>::new());
    assert_eq!(listed(&app, "/v1/activities?unread=false").await.len(), 4, "nobody wrote in");
    assert_eq!(listed(&app, "/v1/activities?unread=true").await, Vec::<String>::new());
    assert_eq!(listed(&app, &format!("/v1/activities?since={before_di_moved}")).await, [di.as_str()], "updated after, not at");
    assert_eq!(listed(&app, "/v1/activities?since=2000-01-01T00:00:00Z&search=ana").await, [di.as_str(), ana.as_str()]);
    assert_eq!(listed(&app, "/v1/activities?search=ana&assigned_to=none").await, [di.as_str()]);
    let vip = app.tag(&app.a, "VIP").await;
    for id in [&ana, &bo] {
        app.post(&format!("/v1/activities/{id}/tags"), &app.a.secret, json!({"tag_ids": [vip]})).await.assert_status(200);
    }
    assert_eq!(listed(&app, &format!("/v1/activities?tag={vip}&status=open,pending&assigned_to=none")).await, [bo.as_str()]);

    // Pages of a filtered list neither repeat nor skip, and count only matches.
    let first = app.get("/v1/activities?status=open,pending&limit=2", &app.a.secret).await;
    assert_eq!(first.body["pagination"], json!({"total": 3, "limit": 2, "offset": 0, "has_more": true}));
    let second = app.get("/v1/activities?status=open,pending&limit=2&offset=2", &app.a.secret).await;
    assert_eq!([ids(&first), ids(&second)].concat().len(), 3);

    let bad = app.get("/v1/activities?status=open,archived&assigned_to=&channel_type=fax&unread=1&since=today", &app.a.secret).await;
    assert_invalid(&bad, &["status", "assigned_to", "channel_type", "unread", "since"]);
}

async fn contact_lists_search_names_emails_and_numbers(app: TestApp) {
    let create = |body: Value| {
        let app = &app;
        async move {
            app.tick();
            let r = app.post("/v1/contacts", &app.a.secret, body).await;
            r.assert_status(201);
            r.data()["id"].as_str().unwrap().to_string()
        }
    };
    let ana = create(json!({"channel_type": "whatsapp", "channel_id": "+52 55 1234 5678", "profile_name": "Ana María"})).await;
    let bo = create(json!({"channel_type": "email", "channel_id": "Bo@Shop.MX", "profile_name": "Bo"})).await;
    let cy = create(json!({"channel_type": "instagram", "channel_id": "ig_cy", "profile_name": "Cy", "email": "cy.ana@mail.com"})).await;
    app.post("/v1/contacts", &app.b.secret, json!({"channel_type": "whatsapp", "channel_id": "5255123456", "profile_name": "Ana B"}))
        .await
        .assert_status(201);

    assert_eq!(listed(&app, "/v1/contacts?search=ANA").await, [cy.as_str(), ana.as_str()], "the name, and the email address");
    assert_eq!(listed(&app, "/v1/contacts?search=shop.mx").await, [bo.as_str()], "an email channel's address");
    assert_eq!(listed(&app, "/v1/contacts?search=55-1234").await, [ana.as_str()], "digits of a number");
    assert_eq!(listed(&app, "/v1/contacts?search=12").await, Vec::<String>::new(), "two digits are no number");
    assert_eq!(listed(&app, "/v1/contacts?channel_type=email").await, [bo.as_str()]);
    assert_eq!(listed(&app, "/v1/contacts?channel_type=whatsapp&search=ana").await, [ana.as_str()]);
    assert_eq!(listed(&app, "/v1/contacts?search=%25").await, Vec::<String>::new(), "wildcards are literal");

    // A changed email is searched as it now is.
    app.patch(&format!("/v1/contacts/{cy}"), &app.a.secret, json!({"email": "cy@other.io"})).await.assert_status(200);
    assert_eq!(listed(&app, "/v1/contacts?search=mail.com").await, Vec::<String>::new());
    assert_eq!(listed(&app, "/v1/contacts?search=other.io").await, [cy.as_str()]);
    // A rename through the contact's activity too.
    let opened = app.post("/v1/activities", &app.a.secret, json!({"contact_id": bo})).await;
    let activity = opened.data()["id"].as_str().unwrap().to_string();
    app.patch(&format!("/v1/activities/{activity}"), &app.a.secret, json!({"profile_name": "Bruno"})).await.assert_status(200);
    assert_eq!(listed(&app, "/v1/contacts?search=bruno").await, [bo.as_str()]);

    let bad = app.get("/v1/contacts?search=&channel_type=fax", &app.a.secret).await;
    assert_invalid(&bad, &["search", "channel_type"]);
}

async fn opening_an_activity_answers_201_once_then_200_with_the_same(app: TestApp) {
    let r = app
        .post("/v1/contacts", &app.a.secret, json!({"channel_type": "whatsapp", "channel_id": "5215550001", "profile_name": "Ana"}))
        .await;
    let contact = r.data()["id"].as_str().unwrap().to_string();
    let opened = app.post("/v1/activities", &app.a.secret, json!({"contact_id": contact})).await;
    opened.assert_status(201);
    let data = opened.data();
    assert_eq!((&data["status"], &data["contact_id"], &data["unread_count"]), (&json!("pending"), &json!(contact), &json!(0)));
    let again = app.post("/v1/activities", &app.a.secret, json!({"contact_id": contact})).await;
    again.assert_status(200);
    assert_eq!(again.data()["id"], data["id"], "one activity per contact");
    assert_eq!(app.get("/v1/activities", &app.a.secret).await.body["pagination"]["total"], 1);
    let events = app.get("/v1/events?type=activity.created", &app.a.secret).await;
    assert_eq!(events.data().as_array().unwrap().len(), 1, "one activity.created: {}", events.body);

    app.post("/v1/activities", &app.b.secret, json!({"contact_id": contact})).await.assert_error(404, "NOT_FOUND");
    app.post("/v1/activities", &app.a.secret, json!({"contact_id": "con_unknown"})).await.assert_error(404, "NOT_FOUND");
    assert_invalid(&app.post("/v1/activities", &app.a.secret, json!({})).await, &["contact_id"]);
    app.post("/v1/activities", &app.a.secret, json!({"contact_id": contact, "status": "open"})).await.assert_error(400, "VALIDATION_ERROR");
    app.post("/v1/activities", &app.a.publishable, json!({"contact_id": contact})).await.assert_error(403, "FORBIDDEN");
}

http_tests!(
    unknown_query_parameters_are_refused_naming_each,
    activity_lists_filter_by_statuses_assignee_channel_and_since,
    contact_lists_search_names_emails_and_numbers,
    opening_an_activity_answers_201_once_then_200_with_the_same,
);
