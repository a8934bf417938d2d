//! The README's first session, run verbatim against the real `parley` binary on a fresh
//! embedded database: what a newcomer pastes must work as printed.

use std::process::Command;

use crate::common::server::{ParleyServer, free_port};

/// The shell block of the README's "A first session" section.
fn session_block() -> String {
    let readme = include_str!("../../../../README.md");
    let section = readme.split("## A first session").nth(1).expect("README has a first-session section");
    let block = section.split("```sh\n").nth(1).expect("the section has a sh block");
    block.split("```").next().unwrap().to_string()
}

#[test]
fn readme_session() {
    let dir = tempfile::tempdir().unwrap();
    // The banner's export line gives the URL and the demo keys, as it does to a newcomer.
    let server = ParleyServer::start(&dir.path().join("parley.db"), free_port(), &[], |l| l.trim_start().starts_with("export "));
    let exports = server.banner.last().unwrap().trim().strip_prefix("export ").unwrap().to_string();
    let vars: Vec<(String, String)> =
        exports.split_whitespace().map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).unwrap()).collect();
    assert_eq!(vars.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["PARLEY_URL", "PARLEY_KEY", "PARLEY_PUBLISHABLE_KEY"]);

    let out = Command::new("bash").args(["-euo", "pipefail", "-c", &session_block()]).envs(vars).output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the README session failed:\nstdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(r#""name":"Priority""#), "{stdout}");
    assert!(stdout.contains(r#""profile_name":"Iris Chen""#) && stdout.contains(r#""channel_id":"14155550100""#), "{stdout}");
    assert!(stdout.contains(r#""status":"closed""#) && stdout.contains(r#""assigned_to":"user_42""#), "{stdout}");
    assert!(stdout.contains(r#""total_items":36"#), "the demo catalog's categories: {stdout}");
    assert!(stdout.contains(r#""qty":2"#) && stdout.contains(r#""expires_at":"#), "the cart is read back: {stdout}");
    assert!(stdout.contains(r#""code":"VALIDATION_ERROR""#), "the last command shows the error shape: {stdout}");
    // The demo's messages: Ana's question, her cart on the conversation, our reply, the window.
    assert!(stdout.contains("Is this still in stock?") && stdout.contains(r#""direction":"inbound""#), "{stdout}");
    assert!(stdout.contains(r#""carts":[{"code":""#), "Ana's cart on her conversation: {stdout}");
    assert!(stdout.contains(r#""text":"Yes, reserve them""#), "Ana's tap on the demo's buttons: {stdout}");
    assert!(stdout.contains(r#""type":"cart""#) && stdout.contains(r#"Total: 68 USD"#), "her cart sent back, exact: {stdout}");
    assert!(stdout.contains(r#""unread_count":0"#) && stdout.contains(r#""unread_count":3"#), "read, then 0: {stdout}");
    assert!(stdout.contains(r#""text":"Reserved! They are yours until tomorrow.""#) && stdout.contains(r#""status":"sent""#), "{stdout}");
    assert!(stdout.contains(r#""code":"WINDOW_CLOSED""#), "Bruno never wrote: {stdout}");
    assert!(
        stdout.contains(r#""text":"It is! Want me to hold one for you?""#) && stdout.contains(r#""channel_type":"instagram""#),
        "the reply to Inês goes out on Instagram: {stdout}"
    );
    assert!(
        stdout.contains(r#""text":"Of course, Noah: both bottles will be gift-wrapped.""#)
            && stdout.contains(r#""subject":"Re: Gift wrapping for my order?""#)
            && stdout.contains(r#""in_reply_to":"demo"#),
        "the reply to Noah goes out by email, in his thread: {stdout}"
    );
}
