//! `parley channels …` and `parley templates sync` through the real binary, against a fake
//! Graph API: the token comes from an environment variable, never from the command line.

use std::process::{Command, Output};

use parley_adapters_diesel::testing::TestDb;
use parley_api::runtime::state::AppState;
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
    AppState::with_system(db.store.repositories()).keys.create_agent("Lines").await.unwrap().id.into_string()
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

macro_rules! on_both_backends {
    ($($name:ident),*) => {
        mod sqlite { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("sqlite").await } )* }
        mod postgres { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("postgres").await } )* }
    };
}

on_both_backends!(
    adding_a_line_reads_its_token_from_the_environment_and_syncs_its_templates,
    a_missing_token_variable_is_a_clear_error_and_sandbox_lines_need_none
);
