//! A team member's browser in HTTP tests: a member added with its one-time password, signed in,
//! its password replaced, and requests made with its session cookie and anti-forgery token.

use actix_web::test::TestRequest;
use serde_json::{Value, json};

use super::{Reply, Tenant, TestApp};

/// A member's browser: its session cookie and anti-forgery token.
pub struct Browser {
    pub cookie: String,
    pub csrf: String,
}

/// The session token of a `Set-Cookie: parley_session=…` answer.
pub fn session_token(r: &Reply) -> String {
    let set = r.header("set-cookie").unwrap_or_else(|| panic!("no Set-Cookie: {}", r.body));
    let value = set.strip_prefix("parley_session=").unwrap_or_else(|| panic!("{set}"));
    value.split(';').next().unwrap().to_string()
}

pub async fn add_member(app: &TestApp, tenant: &Tenant, email: &str, role: &str) -> (String, String) {
    let r = app.post("/v1/members", &tenant.secret, json!({"email": email, "name": format!("Name of {email}"), "role": role})).await;
    r.assert_status(201);
    (r.data()["id"].as_str().unwrap().to_string(), r.data()["password"].as_str().unwrap().to_string())
}

pub async fn sign_in(app: &TestApp, email: &str, password: &str) -> Reply {
    app.call(TestRequest::post().uri("/v1/sign_in").set_json(json!({"email": email, "password": password}))).await
}

pub async fn signed_in(app: &TestApp, email: &str, password: &str) -> Browser {
    let r = sign_in(app, email, password).await;
    r.assert_status(200);
    Browser { cookie: session_token(&r), csrf: r.data()["csrf_token"].as_str().unwrap().to_string() }
}

/// A member who has replaced its one-time password with `new`.
pub async fn ready_member(app: &TestApp, tenant: &Tenant, email: &str, role: &str, new: &str) -> (String, Browser) {
    let (id, first) = add_member(app, tenant, email, role).await;
    let browser = signed_in(app, email, &first).await;
    browse(app, &browser, "POST", "/v1/session/password", Some(json!({"current_password": first, "new_password": new})))
        .await
        .assert_status(200);
    (id, browser)
}

/// A request with the browser's cookie and, for writes, its anti-forgery token.
pub async fn browse(app: &TestApp, browser: &Browser, method: &str, path: &str, body: Option<Value>) -> Reply {
    let req = request(method, path, browser, body);
    app.call(if method == "GET" { req } else { req.insert_header(("X-CSRF-Token", browser.csrf.as_str())) }).await
}

pub fn request(method: &str, path: &str, browser: &Browser, body: Option<Value>) -> TestRequest {
    let req = match method {
        "GET" => TestRequest::get(),
        "POST" => TestRequest::post(),
        "PATCH" => TestRequest::patch(),
        "DELETE" => TestRequest::delete(),
        other => panic!("{other}"),
    }
    .uri(path)
    .cookie(actix_web::cookie::Cookie::new("parley_session", browser.cookie.clone()));
    match body {
        Some(body) => req.set_json(body),
        None => req,
    }
}
