//! The README's first session, run verbatim against the real `parley` binary on a fresh
//! embedded database: what a newcomer pastes must work as printed.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The shell block of the README's "A first session" section.
fn session_block() -> String {
    let readme = include_str!("../../../README.md");
    let section = readme.split("## A first session").nth(1).expect("README has a first-session section");
    let block = section.split("```sh\n").nth(1).expect("the section has a sh block");
    block.split("```").next().unwrap().to_string()
}

#[test]
fn readme_session() {
    let dir = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .env("DATABASE_URL", format!("sqlite://{}", dir.path().join("parley.db").display()))
        .env("PARLEY_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the parley binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let _server = Server(child);

    // The banner's export line gives the URL and the demo keys, as it does to a newcomer.
    let exports = lines.by_ref().map_while(Result::ok).find_map(|l| l.trim().strip_prefix("export ").map(str::to_string));
    let exports = exports.expect("the banner prints an export line");
    std::thread::spawn(move || lines.for_each(drop)); // keep reading what the server prints
    let vars: Vec<(String, String)> =
        exports.split_whitespace().map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).unwrap()).collect();
    assert_eq!(vars.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["PARLEY_URL", "PARLEY_KEY", "PARLEY_PUBLISHABLE_KEY"]);

    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the server never listened");
        std::thread::sleep(Duration::from_millis(50));
    }

    let out = Command::new("bash").args(["-euo", "pipefail", "-c", &session_block()]).envs(vars).output().expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the README session failed:\nstdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(r#""name":"Priority""#), "{stdout}");
    assert!(stdout.contains(r#""profile_name":"Iris Chen""#) && stdout.contains(r#""channel_id":"14155550100""#), "{stdout}");
    assert!(stdout.contains(r#""status":"closed""#) && stdout.contains(r#""assigned_to":"user_42""#), "{stdout}");
    assert!(stdout.contains(r#""total_items":36"#), "the demo catalog's categories: {stdout}");
    assert!(stdout.contains(r#""qty":2"#) && stdout.contains(r#""expires_at":"#), "the cart is read back: {stdout}");
    assert!(stdout.contains(r#""code":"VALIDATION_ERROR""#), "the last command shows the error shape: {stdout}");
}
