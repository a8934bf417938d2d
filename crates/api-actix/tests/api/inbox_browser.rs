//! The inbox page in the system's headless Chromium, driven by its accessible labels through
//! Playwright (`tests/browser/inbox.mjs`), against the real `parley serve --demo` on each
//! backend: sign in (a wrong password first), replace the one-time password, filter the list,
//! open a conversation, answer it, see a new inbound message arrive without reloading, insert a
//! canned response, leave a note, send a product card, assign, tag, close, fall back to a
//! template when the window has closed, read a conversation full of markup and script that
//! must show as text and never run, read the reports, and write a rule in the rules screen, see
//! it run, switch it off, edit and delete it (and, as a member who is not an admin, only read
//! it). Screenshots go to `target/tmp/inbox-screenshots/<backend>/`.
//!
//! Needs Node.js, Debian's `chromium` and `playwright-core` in `tests/browser/node_modules`
//! (`cargo xtask test` readies all three); it fails, never skips, without them.

use std::path::{Path, PathBuf};
use std::process::Command;

use parley_adapters_diesel::testing::TestDb;
use serde_json::{Value, json};

use crate::common::server::{ParleyServer, free_port};

/// Markup a customer (or anyone who can name a file) may send: each must show as these very
/// characters, and none may run.
const SCRIPT: &str = "<script>window.__xss='script'</script>";
const IMG: &str = "<img src=x onerror=\"window.__xss='img'\">";
const JS_LINK: &str = "javascript:window.__xss='link'";

fn browser_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

/// Chromium's absolute path (Playwright wants one), found on `PATH`.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .expect("this test needs Chromium: `apt-get install chromium` (`cargo xtask test` installs it)")
}

/// `parley sandbox receive …` on the server's database; its output names the activity.
fn receive(database_url: &str, args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(["sandbox", "receive"])
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("PARLEY_LOG", "warn")
        .output()
        .expect("parley runs");
    assert!(out.status.success(), "sandbox receive {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("sandbox receive prints JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

struct Api {
    url: String,
    key: String,
    http: reqwest::Client,
}

impl Api {
    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let r = self.http.request(method, format!("{}{path}", self.url)).header("X-API-Key", &self.key).json(&body).send().await.unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {body}");
        body
    }
}

async fn the_inbox_works_in_a_browser(backend: &str) {
    let node_modules = browser_dir().join("node_modules/playwright-core");
    assert!(node_modules.exists(), "playwright-core is not installed: `cargo xtask test`, or `npm ci` in {}", browser_dir().display());
    let db = TestDb::of(backend).await;
    let server = ParleyServer::start_with(&db.url, free_port(), &["--demo"], &[], |l| l.trim_start().starts_with("one-time password:"));
    let agent = server
        .banner
        .iter()
        .find_map(|l| {
            l.split(" (").nth(1).and_then(|rest| rest.strip_prefix("agt_")).map(|rest| format!("agt_{}", &rest[..rest.find(')').unwrap()]))
        })
        .expect("the banner names the demo agent");
    let email = server.banner_value("sign in as:").expect("the banner names the demo member");
    let password = server.banner_value("one-time password:").expect("the banner prints the one-time password");
    let password = password.split_whitespace().next().unwrap().to_string();
    let api = Api { url: server.url(), key: server.banner_value("secret key:").unwrap(), http: reqwest::Client::new() };

    // What the session uses besides the demo: a canned response, and a conversation full of
    // markup in every text a customer or a file name can carry.
    api.send(reqwest::Method::POST, "/v1/canned_responses", json!({"short_code": "thanks", "text": "Thank you for your order!"})).await;
    let hostile = receive(&db.url, &["--agent", &agent, "--from", "15550001111", "--name", IMG, "--text", SCRIPT]);
    let hostile_activity = hostile["activity_id"].as_str().expect("the activity's id").to_string();
    receive(&db.url, &["--agent", &agent, "--from", "15550001111", "--text", JS_LINK]);
    receive(&db.url, &["--agent", &agent, "--from", "15550001111", "--image", "--caption", IMG]);
    let messages = format!("/v1/activities/{hostile_activity}/messages");
    api.send(
        reqwest::Method::POST,
        &messages,
        json!({"type": "document", "document": {"link": "https://files.example.com/a.pdf", "filename": IMG, "caption": SCRIPT}}),
    )
    .await;
    api.send(
        reqwest::Method::POST,
        &messages,
        json!({"type": "image", "image": {"link": "https://files.example.com/a.png", "caption": IMG}}),
    )
    .await;
    api.send(reqwest::Method::POST, &format!("/v1/activities/{hostile_activity}/notes"), json!({"text": JS_LINK, "author": IMG})).await;
    let detail = api.send(reqwest::Method::GET, &format!("/v1/activities/{hostile_activity}"), Value::Null).await;
    let contact = detail["data"]["contact_id"].as_str().unwrap().to_string();
    api.send(
        reqwest::Method::PATCH,
        &format!("/v1/contacts/{contact}"),
        json!({"notes": SCRIPT, "custom_attributes": {"link": JS_LINK, "html": IMG}}),
    )
    .await;
    api.send(reqwest::Method::POST, "/v1/tags", json!({"name": IMG})).await;
    // A member who is not an admin: reads the rules, changes none.
    let member =
        api.send(reqwest::Method::POST, "/v1/members", json!({"email": "sam@demo.parley.test", "name": "Sam", "role": "member"})).await;
    let member = json!(["sam@demo.parley.test", member["data"]["password"]]);

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inbox-screenshots").join(backend);
    std::fs::create_dir_all(&shots).unwrap();
    let inbound = json!([env!("CARGO_BIN_EXE_parley"), "sandbox", "receive", "--agent", agent, "--from", "525512345678", "--text"]);
    // A week of past conversations, written when the session reaches the reports view.
    let history = json!([env!("CARGO_BIN_EXE_parley"), "demo", "history", "--agent", agent, "--conversations", "60", "--days", "7"]);
    let out = Command::new("node")
        .arg(browser_dir().join("inbox.mjs"))
        .current_dir(browser_dir())
        .env("PARLEY_URL", server.url())
        .env("PARLEY_EMAIL", &email)
        .env("PARLEY_PASSWORD", &password)
        .env("PARLEY_INBOUND", inbound.to_string())
        .env("PARLEY_HISTORY", history.to_string())
        .env("PARLEY_MEMBER", member.to_string())
        .env("DATABASE_URL", &db.url)
        .env("PARLEY_LOG", "warn")
        .env("PARLEY_HOSTILE_ACTIVITY", &hostile_activity)
        .env("PARLEY_XSS", json!([SCRIPT, IMG, JS_LINK]).to_string())
        .env("CHROMIUM", chromium())
        .env("SCREENSHOTS", &shots)
        .output()
        .expect("node runs (install Node.js: `cargo xtask test` does)");
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{said}");
    assert!(out.status.success(), "the browser session failed on {backend}:\n{said}");
    for shot in
        ["sign-in", "inbox", "conversation", "hostile", "reports", "rule-editor", "rules", "rule-runs", "phone-list", "phone-conversation"]
    {
        assert!(shots.join(format!("{shot}.png")).exists(), "no screenshot {shot}.png in {}", shots.display());
    }
}

backend_tests!(the_inbox_works_in_a_browser);
