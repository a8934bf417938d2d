//! `parley channels …` and `parley templates sync` through the real binary, against a fake
//! Graph API: the token comes from an environment variable, never from the command line.

use std::process::{Command, Output};

use parley_adapters_diesel::testing::TestDb;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn parley(db: &TestDb, graph: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(args)
        .env("DATABASE_URL", &db.url)
        .env("PARLEY_WHATSAPP_API_BASE", graph)
        .env("PARLEY_LOG", "warn")
        .envs(env.iter().copied())
        .output()
        .expect("parley runs")
}

fn json_out(out: &Output) -> Value {
    assert!(out.status.success(), "parley failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn template(id: &str, name: &str, status: &str) -> Value {
    json!({"id": id, "name": name, "language": "en_US", "status": status, "category": "UTILITY",
        "components": [{"type": "BODY", "text": "Hello {{1}}"}]})
}

async fn agent(db: &TestDb) -> String {
    crate::common::system_state(db.store.repositories()).keys.create_agent("Lines").await.unwrap().id.into_string()
}

async fn adding_a_line_reads_its_token_from_the_environment_and_syncs_its_templates(backend: &str) {
    let db = TestDb::of(backend).await;
    let graph = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/v23.0/555000111/message_templates"))
        .and(header("authorization", "Bearer EAAG-from-env-123"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": [template("11", "hello", "APPROVED"), template("12", "promo", "PENDING")]})),
        )
        .expect(2)
        .mount(&graph)
        .await;
    let agent = agent(&db).await;
    let args = [
        "channels",
        "add",
        "--agent",
        &agent,
        "--phone-number-id",
        "444000111",
        "--waba-id",
        "555000111",
        "--access-token-env",
        "LINE_TOKEN",
    ];
    let added = json_out(&parley(&db, &graph.uri(), &args, &[("LINE_TOKEN", "EAAG-from-env-123")]));
    assert_eq!((added["sandbox"].as_bool(), added["templates"].as_u64()), (Some(false), Some(2)));
    assert!(added["id"].as_str().unwrap().starts_with("chn_"));

    let listed = json_out(&parley(&db, &graph.uri(), &["channels", "list", "--agent", &agent], &[]));
    assert_eq!(listed[0]["phone_number_id"], "444000111");
    assert!(!listed.to_string().contains("EAAG"), "the token is never printed: {listed}");

    let synced = parley(&db, &graph.uri(), &["templates", "sync", "--agent", &agent], &[]);
    assert!(synced.status.success(), "{}", String::from_utf8_lossy(&synced.stderr));
    assert!(String::from_utf8_lossy(&synced.stdout).contains("\"templates\":2"));

    let again = parley(&db, &graph.uri(), &args, &[("LINE_TOKEN", "EAAG-from-env-123")]);
    assert!(!again.status.success() && String::from_utf8_lossy(&again.stderr).contains("already exists"), "one line per phone number id");
}

async fn a_missing_token_variable_is_a_clear_error_and_sandbox_lines_need_none(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let missing = parley(
        &db,
        "http://127.0.0.1:9",
        &["channels", "add", "--agent", &agent, "--phone-number-id", "1", "--waba-id", "2", "--access-token-env", "NOPE_TOKEN"],
        &[],
    );
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("NOPE_TOKEN is not set"));

    let sandbox = json_out(&parley(
        &db,
        "http://127.0.0.1:9",
        &["channels", "add", "--agent", &agent, "--phone-number-id", "1", "--waba-id", "2", "--sandbox"],
        &[],
    ));
    assert_eq!(
        (sandbox["sandbox"].as_bool(), sandbox["templates"].as_u64()),
        (Some(true), Some(6)),
        "the sandbox's own templates, no network"
    );
}

/// A mailbox: its password from the environment, servers checked, the inbound token printed once
/// and working; a sandbox mailbox needs no servers; a listing never shows a secret; and the
/// sandbox contact writes an email that lands on the timeline.
async fn a_mailbox_is_added_with_its_password_from_the_environment_and_its_token_shown_once(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let add = |extra: &[&str]| {
        let mut args = vec!["channels", "add", "--agent", &agent, "--type", "email"];
        args.extend_from_slice(extra);
        args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>, env: &[(&str, &str)]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        parley(&db, "http://127.0.0.1:9", &args, env)
    };
    let full = ["--address", "Shop@Example.com", "--smtp-url", "smtps://mail.example.com:465", "--imap-url", "imaps://mail.example.com"];
    let mut with_password = full.to_vec();
    with_password.extend(["--password-env", "MAIL_PASSWORD"]);
    let added = json_out(&run(add(&with_password), &[("MAIL_PASSWORD", "hunter 2 ñ")]));
    assert_eq!(added["type"], "email");
    assert_eq!(added["address"], "shop@example.com");
    assert_eq!(
        (added["smtp_url"].as_str(), added["imap_url"].as_str()),
        (Some("smtps://mail.example.com:465"), Some("imaps://mail.example.com"))
    );
    assert_eq!(added["username"], "shop@example.com", "the login defaults to the address");
    let token = added["inbound_token"].as_str().unwrap().to_string();
    assert!(token.starts_with("it_"), "{added}");
    let state = crate::common::system_state(db.store.repositories());
    let id = parley_domain::model::LineId::new(added["id"].as_str().unwrap());
    assert!(state.lines.mailbox_for_token(&id, &token).await.unwrap().is_some(), "the printed token opens the mailbox");

    let listed = json_out(&parley(&db, "http://127.0.0.1:9", &["channels", "list", "--agent", &agent], &[]));
    assert!(listed[0].get("inbound_token").is_none(), "shown once: {listed}");
    assert!(!listed.to_string().contains("hunter"), "never the password: {listed}");

    let bad_url = run(add(&["--address", "a@example.com", "--smtp-url", "http://mail.example.com", "--password-env", "P"]), &[("P", "x")]);
    assert!(
        !bad_url.status.success() && String::from_utf8_lossy(&bad_url.stderr).contains("--smtp-url"),
        "{}",
        String::from_utf8_lossy(&bad_url.stderr)
    );
    let no_password = run(add(&full), &[]);
    assert!(!no_password.status.success() && String::from_utf8_lossy(&no_password.stderr).contains("--password-env"));
    let twice = run(add(&with_password), &[("MAIL_PASSWORD", "x")]);
    assert!(!twice.status.success() && String::from_utf8_lossy(&twice.stderr).contains("already exists"), "one line per address");

    let sandbox = json_out(&run(add(&["--address", "hello@demo.example.com", "--sandbox"]), &[]));
    assert_eq!((sandbox["sandbox"].as_bool(), sandbox["inbound_token"].is_string()), (Some(true), true));
    let wrote = json_out(&parley(
        &db,
        "http://127.0.0.1:9",
        &[
            "sandbox",
            "receive",
            "--agent",
            &agent,
            "--channel-type",
            "email",
            "--from",
            "Zoe@Example.com",
            "--name",
            "Zoë Kim",
            "--subject",
            "Sizes",
            "--text",
            "Do you have L?",
        ],
        &[],
    ));
    let agent_id = parley_domain::model::AgentId::new(agent.clone());
    let message = state.messages.by_platform_id(&agent_id, wrote["platform_message_id"].as_str().unwrap()).await.unwrap().unwrap();
    let email = message.content.email().expect("an email");
    assert_eq!((email.from.as_str(), email.subject.as_deref(), email.text.trim()), ("zoe@example.com", Some("Sizes"), "Do you have L?"));
    assert_eq!(message.line_id.as_ref().map(|l| l.as_str()), sandbox["id"].as_str());
}

macro_rules! on_both_backends {
    ($($name:ident),*) => {
        mod sqlite { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("sqlite").await } )* }
        mod postgres { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("postgres").await } )* }
    };
}

on_both_backends!(
    adding_a_line_reads_its_token_from_the_environment_and_syncs_its_templates,
    a_missing_token_variable_is_a_clear_error_and_sandbox_lines_need_none,
    a_mailbox_is_added_with_its_password_from_the_environment_and_its_token_shown_once,
    a_lines_pace_is_set_by_the_command_and_listed
);

async fn a_lines_pace_is_set_by_the_command_and_listed(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let graph = "http://127.0.0.1:9";
    let add = ["channels", "add", "--agent", &agent, "--phone-number-id", "444000222", "--waba-id", "555000222", "--sandbox"];
    let added = json_out(&parley(&db, graph, &add, &[]));
    assert_eq!(added["messages_per_second"], 80, "the platform's default: {added}");
    let line = added["id"].as_str().unwrap().to_string();
    let pace = |n: &str| ["channels", "pace", "--agent", &agent, "--line", &line, "--messages-per-second", n].map(str::to_string);
    let paced = json_out(&parley(&db, graph, &pace("250").iter().map(String::as_str).collect::<Vec<_>>(), &[]));
    assert_eq!((paced["id"].as_str(), paced["messages_per_second"].as_u64()), (Some(line.as_str()), Some(250)));
    let listed = json_out(&parley(&db, graph, &["channels", "list", "--agent", &agent], &[]));
    assert_eq!(listed[0]["messages_per_second"], 250);
    for value in ["0", "1001"] {
        let refused = parley(&db, graph, &pace(value).iter().map(String::as_str).collect::<Vec<_>>(), &[]);
        assert!(!refused.status.success());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains("messages_per_second") && stderr.contains("from 1 to 1000"), "{stderr}");
    }
    let unknown = parley(&db, graph, &["channels", "pace", "--agent", &agent, "--line", "chn_nope", "--messages-per-second", "5"], &[]);
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("not found"), "{unknown:?}");
}
