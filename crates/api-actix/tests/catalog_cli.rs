//! `parley catalog import|export` through the real binary, on SQLite and PostgreSQL.

use std::path::Path;
use std::process::{Command, Output};

use parley_adapters_diesel::testing::{TestDb, analyzed_tables};
use parley_api::state::AppState;
use parley_domain::model::{AgentId, ProductId};
use serde_json::{Value, json};

fn parley(db: &TestDb, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parley"))
        .args(args)
        .env("DATABASE_URL", &db.url)
        .env("PARLEY_LOG", "warn")
        .output()
        .expect("parley runs")
}

fn stdout_json(out: &Output) -> Value {
    assert!(out.status.success(), "parley failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn product(id: &str, tags: &[&str], status: &str) -> Value {
    json!({"_id": id, "kind": "product", "title": format!("Product {id}"), "description": "Made to last.", "currency": "EUR",
        "base_price": 12.5, "category_tags": tags, "status": status,
        "media": [{"url": "https://cdn.example.com/a.jpg", "alt": "front", "type": "image", "position": 0}],
        "variants": [{"id": "v1", "title": "Small", "price": 12.5, "selected_options": [{"name": "Size", "value": "S"}]}]})
}

async fn agent(db: &TestDb) -> AgentId {
    let state = AppState::with_system(db.store.repositories());
    state.keys.create_agent("Importer").await.unwrap().id
}

async fn active_count(db: &TestDb, agent: &AgentId) -> u64 {
    let state = AppState::with_system(db.store.repositories());
    state.catalog.list(agent, Default::default()).await.unwrap().total
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.display().to_string()
}

async fn imports_json_lines_and_arrays_and_reports_counts(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..3).map(|i| format!("{}\n", product(&format!("p{i}"), &["Home"], "active"))).collect();
    let out = parley(&db, &["catalog", "import", "--agent", agent.as_str(), &write(dir.path(), "a.jsonl", &lines)]);
    let summary = stdout_json(&out);
    assert_eq!((summary["imported"].as_u64(), summary["inserted"].as_u64(), summary["updated"].as_u64()), (Some(3), Some(3), Some(0)));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("embedding: 3/3 products") && stderr.contains("writing: 3/3 products"),
        "progress of both stages is shown: {stderr}"
    );

    let array = serde_json::to_string_pretty(&json!([product("p2", &["Garden"], "active"), product("p9", &[], "draft")])).unwrap();
    let summary = stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &write(dir.path(), "b.json", &array)]));
    assert_eq!((summary["inserted"].as_u64(), summary["updated"].as_u64()), (Some(1), Some(1)), "upsert by _id");
    assert_eq!(active_count(&db, &agent).await, 3, "the draft is stored but not listed");
}

async fn bad_rows_are_reported_by_line_and_nothing_is_written(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let mut bad_price = product("p2", &[], "active");
    bad_price["compare_at_price"] = json!(10);
    let content =
        [product("p1", &[], "active").to_string(), "{not json".into(), bad_price.to_string(), product("p1", &[], "active").to_string()]
            .join("\n");
    let out = parley(&db, &["catalog", "import", "--agent", agent.as_str(), &write(dir.path(), "bad.jsonl", &content)]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 2:"), "{stderr}");
    assert!(stderr.contains("line 3: compare_at_price must be greater"), "{stderr}");
    assert!(stderr.contains("line 4: _id \"p1\" already appears on line 1"), "{stderr}");
    assert!(!stderr.contains("line 1:"), "good rows are not reported: {stderr}");
    assert!(stderr.contains("3 bad row(s)") && stderr.contains("nothing was imported"), "{stderr}");
    assert_eq!(active_count(&db, &agent).await, 0, "one bad row writes nothing");
}

async fn dry_run_validates_without_writing(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a.jsonl", &format!("{}\n", product("p1", &["Home"], "active")));
    let summary = stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), "--dry-run", &file]));
    assert_eq!(summary, json!({"dry_run": true, "valid_rows": 1, "would_insert": 1, "would_update": 0}));
    assert_eq!(active_count(&db, &agent).await, 0);
    let out = parley(&db, &["catalog", "import", "--agent", "agt_unknown", &file]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("agent not found"));
}

async fn export_then_import_round_trips_exactly(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let mut sale = product("p2", &["Home", "Gifts"], "active");
    sale["compare_at_price"] = json!(19.99);
    sale["created_at"] = json!("2026-03-04T05:06:07.089Z");
    let content =
        [product("p1", &["Home"], "active"), sale, product("p3", &[], "draft")].iter().map(Value::to_string).collect::<Vec<_>>().join("\n");
    stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &write(dir.path(), "in.jsonl", &content)]));

    let first = dir.path().join("first.jsonl");
    let out = parley(&db, &["catalog", "export", "--agent", agent.as_str(), "--output", &first.display().to_string()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let exported = std::fs::read_to_string(&first).unwrap();
    assert_eq!(exported.lines().count(), 3, "drafts are exported too");
    let p2: Value = serde_json::from_str(exported.lines().nth(1).unwrap()).unwrap();
    assert_eq!(
        (p2["created_at"].as_str(), p2["compare_at_price"].as_f64(), p2["status"].as_str()),
        (Some("2026-03-04T05:06:07.089Z"), Some(19.99), Some("active"))
    );

    let state = AppState::with_system(db.store.repositories());
    let before: Vec<_> = state.catalog.export_page(&agent, None, 10).await.unwrap();
    stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &first.display().to_string()]));
    let after: Vec<_> = state.catalog.export_page(&agent, None, 10).await.unwrap();
    assert_eq!(before, after, "re-importing an export changes nothing");
    let again = parley(&db, &["catalog", "export", "--agent", agent.as_str()]);
    assert_eq!(String::from_utf8_lossy(&again.stdout), exported, "export → import → export is byte-identical");
    assert!(state.catalog.get(&agent, &ProductId::lookup("p3")).await.is_err(), "drafts stay hidden");
}

/// SQLite keeps no planner statistics unless asked: a command refreshes the stale ones as it
/// ends (an import grew `products` from nothing), and `parley analyze` analyzes every table on
/// either backend.
async fn commands_keep_planner_statistics_and_analyze_refreshes_all(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    assert!(!analyzed_tables(&db.store).await.contains(&"products".to_string()), "a fresh database has none");
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..3).map(|i| format!("{}\n", product(&format!("p{i}"), &["Home"], "active"))).collect();
    stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &write(dir.path(), "a.jsonl", &lines)]));
    if backend == "sqlite" {
        assert!(analyzed_tables(&db.store).await.contains(&"products".to_string()), "the import left statistics of what it wrote");
    }
    let out = parley(&db, &["analyze"]);
    assert!(out.status.success(), "analyze failed: {}", String::from_utf8_lossy(&out.stderr));
    let analyzed = analyzed_tables(&db.store).await;
    for table in ["agents", "products", "product_categories", "catalog_facets"] {
        assert!(analyzed.contains(&table.to_string()), "{table} analyzed on {backend}: {analyzed:?}");
    }
}

macro_rules! on_both_backends {
    ($($name:ident),*) => {
        mod sqlite { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("sqlite").await } )* }
        mod postgres { $( #[tokio::test(flavor = "multi_thread")] async fn $name() { super::$name("postgres").await } )* }
    };
}

on_both_backends!(
    imports_json_lines_and_arrays_and_reports_counts,
    bad_rows_are_reported_by_line_and_nothing_is_written,
    dry_run_validates_without_writing,
    export_then_import_round_trips_exactly,
    commands_keep_planner_statistics_and_analyze_refreshes_all
);
