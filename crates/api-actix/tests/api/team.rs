//! Team members and their sessions over HTTP, on both backends: members added, listed and
//! removed; signing in with the one-time password and changing it; the cookie, the anti-forgery
//! token, lock-out, idle expiry; assignees checked, taken once, and `me`.

use crate::common::sessions::{Browser, add_member, browse, ready_member, request, session_token, sign_in, signed_in};
use crate::common::{Reply, TestApp};
use actix_web::test::TestRequest;
use parley_domain::model::ActivityStatus;
use serde_json::json;

async fn members_are_added_listed_and_removed_within_their_agent(app: TestApp) {
    let r = app.post("/v1/members", &app.a.secret, json!({"email": " Ana@Shop.Example ", "name": "Ana"})).await;
    r.assert_status(201);
    let ana = r.data().clone();
    assert!(ana["id"].as_str().unwrap().starts_with("usr_"));
    assert_eq!(
        (ana["email"].as_str(), ana["role"].as_str(), ana["must_change_password"].as_bool()),
        (Some("ana@shop.example"), Some("member"), Some(true))
    );
    assert_eq!(ana["password"].as_str().unwrap().len(), 20, "the one-time password is shown once");

    app.post("/v1/members", &app.a.secret, json!({"email": "ANA@shop.example", "name": "Other"})).await.assert_error(409, "CONFLICT");
    app.post("/v1/members", &app.b.secret, json!({"email": "ana@shop.example", "name": "Ana at B"})).await.assert_status(201);
    let bad = app.post("/v1/members", &app.a.secret, json!({"email": "not an email", "name": "", "role": "owner"})).await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields: Vec<_> = bad.body["error"]["details"].as_array().unwrap().iter().map(|d| d["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["email", "name", "role"]);

    let listed = app.get("/v1/members", &app.a.secret).await;
    let listed = listed.data().as_array().unwrap();
    assert_eq!(listed.len(), 1, "only A's member: {listed:?}");
    assert!(listed[0].get("password").is_none(), "never listed with a password");

    let id = ana["id"].as_str().unwrap();
    app.delete(&format!("/v1/members/{id}"), &app.b.secret).await.assert_error(404, "NOT_FOUND");
    app.delete(&format!("/v1/members/{id}"), &app.a.secret).await.assert_status(200);
    assert_eq!(app.get("/v1/members", &app.a.secret).await.data().as_array().unwrap().len(), 0);
    app.get("/v1/members", &app.a.publishable).await.assert_error(403, "FORBIDDEN");
}

async fn a_member_signs_in_changes_its_password_and_works_the_inbox(app: TestApp) {
    let (id, first) = add_member(&app, &app.a, "ana@shop.example", "member").await;
    let r = sign_in(&app, "ANA@shop.example", &first).await;
    r.assert_status(200);
    let cookie = r.header("set-cookie").unwrap().to_string();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attribute), "{attribute} in {cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: no Secure flag ({cookie})");
    assert_eq!(r.data()["member"]["id"], id.as_str());
    let browser = Browser { cookie: session_token(&r), csrf: r.data()["csrf_token"].as_str().unwrap().to_string() };

    // Until the one-time password is replaced, only the session itself answers.
    browse(&app, &browser, "GET", "/v1/activities", None).await.assert_error(403, "PASSWORD_CHANGE_REQUIRED");
    browse(&app, &browser, "GET", "/v1/session", None).await.assert_status(200);
    let change = json!({"current_password": first, "new_password": "short"});
    let r = browse(&app, &browser, "POST", "/v1/session/password", Some(change)).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "new_password");
    let wrong = json!({"current_password": "not the password", "new_password": "a long new passphrase"});
    let r = browse(&app, &browser, "POST", "/v1/session/password", Some(wrong)).await;
    assert_eq!(r.body["error"]["details"][0]["field"], "current_password", "{}", r.body);
    let change = json!({"current_password": first, "new_password": "a long new passphrase"});
    let r = browse(&app, &browser, "POST", "/v1/session/password", Some(change)).await;
    r.assert_status(200);
    assert_eq!(r.data()["member"]["must_change_password"], false);

    // Now the session reaches what a secret key reaches, for its agent.
    let (_, act) = app.conversation(&app.a, "Lu", ("whatsapp", "5215550101"), ActivityStatus::Open).await;
    let (_, foreign) = app.conversation(&app.b, "Bo", ("whatsapp", "5215550102"), ActivityStatus::Open).await;
    browse(&app, &browser, "GET", &format!("/v1/activities/{foreign}"), None).await.assert_error(404, "NOT_FOUND");
    let r = browse(&app, &browser, "PATCH", &format!("/v1/activities/{act}"), Some(json!({"assigned_to": "me"}))).await;
    r.assert_status(200);
    assert_eq!(r.data()["assigned_to"], id.as_str());
    assert_eq!(r.data()["assignee"], json!({"id": id, "name": "Name of ana@shop.example"}));
    let mine = browse(&app, &browser, "GET", "/v1/activities?assigned_to=me", None).await;
    assert_eq!(mine.body["pagination"]["total"], 1);
    assert_eq!(mine.body["data"][0]["assignee"]["id"], id.as_str());
    let r = app.get("/v1/activities?assigned_to=me", &app.a.secret).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert!(r.body["error"]["details"][0]["issue"].as_str().unwrap().contains("member's session"), "{}", r.body);

    // The old password is gone; the new one signs in.
    sign_in(&app, "ana@shop.example", &first).await.assert_error(401, "UNAUTHORIZED");
    signed_in(&app, "ana@shop.example", "a long new passphrase").await;
}

async fn writes_in_a_session_need_the_anti_forgery_token_from_this_site(app: TestApp) {
    let (_, browser) = ready_member(&app, &app.a, "ana@shop.example", "member", "a long new passphrase").await;
    let (_, act) = app.conversation(&app.a, "Lu", ("whatsapp", "5215550101"), ActivityStatus::Open).await;
    let path = format!("/v1/activities/{act}");
    let body = json!({"status": "closed"});
    // A forged form: the cookie alone.
    app.call(request("PATCH", &path, &browser, Some(body.clone()))).await.assert_error(403, "FORBIDDEN");
    let wrong = request("PATCH", &path, &browser, Some(body.clone())).insert_header(("X-CSRF-Token", "0".repeat(64)));
    app.call(wrong).await.assert_error(403, "FORBIDDEN");
    let cross_site = request("PATCH", &path, &browser, Some(body.clone()))
        .insert_header(("X-CSRF-Token", browser.csrf.as_str()))
        .insert_header(("Sec-Fetch-Site", "cross-site"));
    app.call(cross_site).await.assert_error(403, "FORBIDDEN");
    assert_eq!(app.get(&path, &app.a.secret).await.data()["status"], "open", "nothing was written");
    browse(&app, &browser, "PATCH", &path, Some(body)).await.assert_status(200);
    // Reads need no token.
    app.call(request("GET", &path, &browser, None)).await.assert_status(200);
}

async fn sign_in_failures_answer_alike_and_lock_the_email_for_fifteen_minutes(app: TestApp) {
    let (_, first) = add_member(&app, &app.a, "ana@shop.example", "member").await;
    let unknown = sign_in(&app, "nobody@shop.example", "whatever it is").await;
    unknown.assert_error(401, "UNAUTHORIZED");
    let wrong = sign_in(&app, "ana@shop.example", "whatever it is").await;
    wrong.assert_error(401, "UNAUTHORIZED");
    assert_eq!(unknown.body["error"]["message"], wrong.body["error"]["message"], "an unknown email and a wrong password read alike");
    for _ in 0..4 {
        sign_in(&app, "ana@shop.example", "still not it").await.assert_error(401, "UNAUTHORIZED");
    }
    // Five failures: the right password is refused too, without being checked.
    let locked = sign_in(&app, "ana@shop.example", &first).await;
    locked.assert_error(429, "RATE_LIMITED");
    let retry: u64 = locked.header("retry-after").unwrap().parse().unwrap();
    assert!((14 * 60..=15 * 60).contains(&retry), "{retry}");
    // The same for an address no member has: a lock tells nothing.
    for _ in 0..4 {
        sign_in(&app, "nobody@shop.example", "whatever it is").await.assert_error(401, "UNAUTHORIZED");
    }
    // (One failure for that address above, four here: the fifth locked it.)
    sign_in(&app, "nobody@shop.example", "whatever it is").await.assert_error(429, "RATE_LIMITED");

    app.clock.advance(chrono::TimeDelta::minutes(15));
    signed_in(&app, "ana@shop.example", &first).await;
    sign_in(&app, "ana@shop.example", "").await.assert_error(401, "UNAUTHORIZED");
    let missing = app.call(TestRequest::post().uri("/v1/sign_in").set_json(json!({"email": "ana@shop.example"}))).await;
    missing.assert_error(400, "VALIDATION_ERROR");
}

async fn sessions_end_when_signed_out_idle_forged_or_their_member_is_removed(app: TestApp) {
    let (id, browser) = ready_member(&app, &app.a, "ana@shop.example", "member", "a long new passphrase").await;
    let forged = Browser { cookie: "A".repeat(40), csrf: browser.csrf.clone() };
    browse(&app, &forged, "GET", "/v1/tags", None).await.assert_error(401, "UNAUTHORIZED");
    let garbage = Browser { cookie: "<script>".into(), csrf: String::new() };
    browse(&app, &garbage, "GET", "/v1/tags", None).await.assert_error(401, "UNAUTHORIZED");

    app.clock.advance(chrono::TimeDelta::hours(11));
    browse(&app, &browser, "GET", "/v1/tags", None).await.assert_status(200);
    app.clock.advance(chrono::TimeDelta::hours(11));
    browse(&app, &browser, "GET", "/v1/tags", None).await.assert_status(200);
    app.clock.advance(chrono::TimeDelta::hours(12));
    let ended = browse(&app, &browser, "GET", "/v1/tags", None).await;
    ended.assert_error(401, "UNAUTHORIZED");
    assert!(ended.body["error"]["message"].as_str().unwrap().contains("sign in again"), "{}", ended.body);

    let again = signed_in(&app, "ana@shop.example", "a long new passphrase").await;
    let out = browse(&app, &again, "DELETE", "/v1/session", None).await;
    out.assert_status(200);
    assert!(out.header("set-cookie").unwrap().contains("parley_session=;"), "the cookie is cleared");
    browse(&app, &again, "GET", "/v1/tags", None).await.assert_error(401, "UNAUTHORIZED");

    let last = signed_in(&app, "ana@shop.example", "a long new passphrase").await;
    app.delete(&format!("/v1/members/{id}"), &app.a.secret).await.assert_status(200);
    browse(&app, &last, "GET", "/v1/tags", None).await.assert_error(401, "UNAUTHORIZED");
    app.get("/v1/session", &app.a.secret).await.assert_error(401, "UNAUTHORIZED");
}

async fn only_admins_and_keys_change_the_team(app: TestApp) {
    let (_, member) = ready_member(&app, &app.a, "ana@shop.example", "member", "a long new passphrase").await;
    let (_, admin) = ready_member(&app, &app.a, "bea@shop.example", "admin", "another long passphrase").await;
    let body = json!({"email": "cy@shop.example", "name": "Cy"});
    browse(&app, &member, "POST", "/v1/members", Some(body.clone())).await.assert_error(403, "FORBIDDEN");
    assert_eq!(browse(&app, &member, "GET", "/v1/members", None).await.data().as_array().unwrap().len(), 2, "members see the team");
    let r = browse(&app, &admin, "POST", "/v1/members", Some(body)).await;
    r.assert_status(201);
    let cy = r.data()["id"].as_str().unwrap().to_string();
    browse(&app, &member, "DELETE", &format!("/v1/members/{cy}"), None).await.assert_error(403, "FORBIDDEN");
    browse(&app, &admin, "DELETE", &format!("/v1/members/{cy}"), None).await.assert_status(200);
}

async fn assignees_are_members_of_the_agent_and_a_conversation_is_taken_once(app: TestApp) {
    let (ana, ana_browser) = ready_member(&app, &app.a, "ana@shop.example", "member", "a long new passphrase").await;
    let (bea, bea_browser) = ready_member(&app, &app.a, "bea@shop.example", "member", "another long passphrase").await;
    let (stranger, _) = add_member(&app, &app.b, "bo@shop.example", "member").await;
    let (_, act) = app.conversation(&app.a, "Lu", ("whatsapp", "5215550101"), ActivityStatus::Open).await;
    let path = format!("/v1/activities/{act}");

    let r = app.patch(&path, &app.a.secret, json!({"assigned_to": stranger})).await;
    r.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(r.body["error"]["details"][0]["field"], "assigned_to");
    app.patch(&path, &app.a.secret, json!({"if_unassigned": true})).await.assert_error(400, "VALIDATION_ERROR");
    let free = app.patch(&path, &app.a.secret, json!({"assigned_to": "crm-user-7"})).await;
    assert_eq!((free.data()["assigned_to"].as_str(), free.data()["assignee"].is_null()), (Some("crm-user-7"), true));
    app.patch(&path, &app.a.secret, json!({"assigned_to": null})).await.assert_status(200);

    let updates = |r: Reply| r.body["pagination"]["total"].as_u64().unwrap();
    let before = updates(app.get("/v1/events?type=activity.updated", &app.a.secret).await);
    // Two people take the conversation at once: one has it, the other is told.
    let take = json!({"assigned_to": "me", "if_unassigned": true});
    let (first, second) = futures_util::join!(
        browse(&app, &ana_browser, "PATCH", &path, Some(take.clone())),
        browse(&app, &bea_browser, "PATCH", &path, Some(take.clone())),
    );
    let mut statuses = [first.status, second.status];
    statuses.sort();
    assert_eq!(statuses, [200, 409], "{} / {}", first.body, second.body);
    let holder = app.get(&path, &app.a.secret).await.data()["assigned_to"].as_str().unwrap().to_string();
    assert!(holder == ana || holder == bea);
    let events = app.get("/v1/events?type=activity.updated", &app.a.secret).await;
    assert_eq!(events.body["pagination"]["total"].as_u64(), Some(before + 1), "one assignment, one event: {}", events.body);
    assert_eq!(events.body["data"][0]["data"]["object"]["assignee"]["id"], holder.as_str(), "the event shows the assignee");

    let removed = if holder == ana { &ana } else { &bea };
    app.delete(&format!("/v1/members/{removed}"), &app.a.secret).await.assert_status(200);
    let after = app.get(&path, &app.a.secret).await;
    assert_eq!((after.data()["assigned_to"].as_str(), after.data()["assignee"].is_null()), (Some(removed.as_str()), true));
    app.patch(&path, &app.a.secret, json!({"assigned_to": removed})).await.assert_error(400, "VALIDATION_ERROR");
}

http_tests!(
    members_are_added_listed_and_removed_within_their_agent,
    a_member_signs_in_changes_its_password_and_works_the_inbox,
    writes_in_a_session_need_the_anti_forgery_token_from_this_site,
    sign_in_failures_answer_alike_and_lock_the_email_for_fifteen_minutes,
    sessions_end_when_signed_out_idle_forged_or_their_member_is_removed,
    only_admins_and_keys_change_the_team,
    assignees_are_members_of_the_agent_and_a_conversation_is_taken_once,
);
