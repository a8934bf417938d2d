//! Search across processes, through the real binary: an import made by the CLI reaches every
//! `parley serve` over one PostgreSQL within seconds, and a change of embedder is caught up by
//! `parley catalog reindex`.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::KeyKind;
use serde_json::{Value, json};

fn parley(url: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(args)
        .env("DATABASE_URL", url)
        .env("PARLEY_LOG", "warn")
        .envs(env.iter().copied())
        .output()
        .expect("parley runs")
}

fn stdout_json(out: &Output) -> Value {
    assert!(out.status.success(), "parley failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn search_ids(server: &ParleyServer, key: &str, q: &str) -> Vec<String> {
    let url = format!("{}/v1/products/search?q={}&limit=50", server.url(), q.replace(' ', "%20"));
    let out = Command::new("curl").args(["-s", "--fail-with-body", "-H", &format!("X-API-Key: {key}"), &url]).output().expect("curl runs");
    assert!(out.status.success(), "search failed: {}", String::from_utf8_lossy(&out.stdout));
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    body["data"].as_array().unwrap().iter().map(|p| p["_id"].as_str().unwrap().to_string()).collect()
}

/// Polls until every server agrees with `expected`; returns how long that took.
fn until_all(servers: &[ParleyServer], key: &str, q: &str, expected: impl Fn(&[String]) -> bool) -> Duration {
    let started = Instant::now();
    for server in servers {
        while !expected(&search_ids(server, key, q)) {
            assert!(started.elapsed() < Duration::from_secs(15), "instance on port {} never caught up", server.port);
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    started.elapsed()
}

fn catalog_file(dir: &Path, status: &str) -> String {
    let lines = [
        json!({"_id": "prd_dog_bed", "kind": "product", "title": "Calming Donut Dog Bed", "currency": "USD", "base_price": 59,
            "description": "A deep, plush bolster bed that helps anxious pets feel safe and settle down.", "category_tags": ["Pets"], "status": status}),
        json!({"_id": "prd_kettle", "kind": "product", "title": "Stovetop Whistling Kettle", "currency": "USD", "base_price": 35,
            "description": "Brushed steel, 2 litres, a cheerful whistle when the water boils.", "category_tags": ["Kitchen"]}),
    ];
    let path = dir.join(format!("catalog-{status}.jsonl"));
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path.display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_by_the_cli_reaches_every_instance_within_seconds() {
    let db = TestDb::postgres().await;
    let state = crate::common::system_state(db.store.repositories());
    let agent = state.keys.create_agent("Two instances").await.unwrap().id;
    let key = state.keys.issue_key(&agent, KeyKind::Publishable).await.unwrap().plaintext;
    let env = [("PARLEY_INDEX_REFRESH_MS", "200")];
    let servers: Vec<ParleyServer> =
        (0..2).map(|_| ParleyServer::start_on(&db.url, free_port(), &env, |l| l.starts_with("Parley is serving"))).collect();
    let q = "something to help my dog sleep through thunderstorms";
    assert!(search_ids(&servers[0], &key, q).is_empty() && search_ids(&servers[1], &key, q).is_empty());

    let dir = tempfile::tempdir().unwrap();
    stdout_json(&parley(&db.url, &["catalog", "import", "--agent", agent.as_str(), &catalog_file(dir.path(), "active")], &[]));
    let seen = until_all(&servers, &key, q, |ids| ids.first().map(String::as_str) == Some("prd_dog_bed"));
    eprintln!("both instances found the imported product {} ms after the import finished", seen.as_millis());

    stdout_json(&parley(&db.url, &["catalog", "import", "--agent", agent.as_str(), &catalog_file(dir.path(), "draft")], &[]));
    let gone = until_all(&servers, &key, q, |ids| ids == ["prd_kettle"]);
    eprintln!("both instances dropped the drafted product {} ms after the import finished", gone.as_millis());
}

/// Vectors remember their embedder: after a change of embedder, `reindex` embeds exactly the
/// products whose vector is missing or stale, and a second run has nothing to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reindex_catches_up_after_a_change_of_embedder() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, Request, ResponseTemplate};
    let upstream = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(|req: &Request| {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let data: Vec<Value> = body["input"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(i, text)| json!({"index": i, "embedding": [text.as_str().unwrap().len() as f32, 1.0, 0.5, 0.25]}))
                .collect();
            ResponseTemplate::new(200).set_body_json(json!({"data": data}))
        })
        .mount(&upstream)
        .await;
    let base = format!("{}/v1", upstream.uri());
    let openai = [("PARLEY_EMBEDDER", "openai"), ("PARLEY_OPENAI_BASE_URL", base.as_str()), ("PARLEY_OPENAI_DIMENSIONS", "4")];

    let db = TestDb::sqlite().await;
    let agent = crate::common::system_state(db.store.repositories()).keys.create_agent("Reindexed").await.unwrap().id;
    let dir = tempfile::tempdir().unwrap();
    // The fake service runs on a thread of its own, so the blocking CLI calls below cannot starve it.
    stdout_json(&parley(&db.url, &["catalog", "import", "--agent", agent.as_str(), &catalog_file(dir.path(), "active")], &[]));
    let first = stdout_json(&parley(&db.url, &["catalog", "reindex"], &openai));
    assert_eq!((first["embedded"].as_u64(), first["embedder"].as_str()), (Some(2), Some("openai:text-embedding-3-small:4")));
    let again = stdout_json(&parley(&db.url, &["catalog", "reindex"], &openai));
    assert_eq!(again["embedded"].as_u64(), Some(0), "nothing is stale any more");
    let all = stdout_json(&parley(&db.url, &["catalog", "reindex", "--agent", agent.as_str(), "--all"], &openai));
    assert_eq!(all["embedded"].as_u64(), Some(2), "--all re-embeds everything");
    let back = stdout_json(&parley(&db.url, &["catalog", "reindex"], &[]));
    assert_eq!(back["embedded"].as_u64(), Some(2), "switching back re-embeds with the static table");
}
