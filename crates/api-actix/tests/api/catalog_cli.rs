//! `parley catalog import|export` through the real binary, on SQLite and PostgreSQL.

use crate::common::cli::{command, parley, stdout_json};
use std::path::Path;

use parley_adapters_diesel::testing::{TestDb, analyzed_tables};
use parley_domain::model::{AgentId, ProductId};
use serde_json::{Value, json};

fn product(id: &str, tags: &[&str], status: &str) -> Value {
    json!({"_id": id, "kind": "product", "title": format!("Product {id}"), "description": "Made to last.", "currency": "EUR",
        "base_price": 12.5, "category_tags": tags, "status": status,
        "media": [{"url": "https://cdn.example.com/a.jpg", "alt": "front", "type": "image", "position": 0}],
        "variants": [{"id": "v1", "title": "Small", "price": 12.5, "selected_options": [{"name": "Size", "value": "S"}]}]})
}

async fn agent(db: &TestDb) -> AgentId {
    let state = crate::common::system_state(db.store.repositories());
    state.keys.create_agent("Importer").await.unwrap().id
}

async fn active_count(db: &TestDb, agent: &AgentId) -> u64 {
    let state = crate::common::system_state(db.store.repositories());
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

    let state = crate::common::system_state(db.store.repositories());
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

/// Writers of another tenant while `parley catalog import` (its own process, as in production)
/// writes a catalog: SQLite has one write lock for the file, and an import that held it for its
/// whole write made writes wait past the 5 s busy timeout and fail (503). The import now stages
/// its rows outside the lock and holds it only to publish them, so every write goes through;
/// the import is still one commit.
async fn api_writes_succeed_while_an_import_runs(backend: &str) {
    const PRODUCTS: usize = 10_000;
    const WRITERS: usize = 8;
    const WRITES_EACH: usize = 25;
    let db = TestDb::of(backend).await;
    let importer = agent(&db).await;
    let state = std::sync::Arc::new(crate::common::system_state(db.store.repositories()));
    let writer = state.keys.create_agent("Writer").await.unwrap().id;
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (0..PRODUCTS).map(|i| format!("{}\n", product(&format!("p{i}"), &["Home", "Garden"], "active"))).collect();
    let file = write(dir.path(), "big.jsonl", &lines);

    let mut import = command(&db, &["catalog", "import", "--agent", importer.as_str(), &file])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("parley runs");
    // Write once the import writes (its progress says so), not while it still reads the file.
    let stderr = import.stderr.take().unwrap();
    let (writing, mut import_log) = tokio::task::spawn_blocking(move || {
        use std::io::{BufRead, BufReader};
        let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
        let mut seen = String::new();
        for line in lines.by_ref() {
            seen.push_str(&line);
            seen.push('\n');
            if line.starts_with("writing:") {
                break;
            }
        }
        let rest = std::thread::spawn(move || lines.collect::<Vec<_>>().join("\n"));
        (seen, rest)
    })
    .await
    .map(|(seen, rest)| (seen, Some(rest)))
    .unwrap();
    assert!(writing.contains("writing:"), "the import never started writing: {writing}");

    let tasks: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (state, writer) = (state.clone(), writer.clone());
            tokio::spawn(async move {
                let mut failures = Vec::new();
                for n in 0..WRITES_EACH {
                    let input = parley_domain::services::NewTagInput { name: Some(format!("w{w}-{n}")), color: None, description: None };
                    if let Err(e) = state.tags.create(&writer, input).await {
                        failures.push(e.to_string());
                    }
                }
                failures
            })
        })
        .collect();
    let mut failures = Vec::new();
    for task in tasks {
        failures.extend(task.await.unwrap());
    }
    let out = tokio::task::spawn_blocking(move || import.wait_with_output()).await.unwrap().unwrap();
    let rest = import_log.take().unwrap().join().unwrap();
    assert!(out.status.success(), "the import failed: {writing}{rest}");
    assert!(
        failures.is_empty(),
        "{} of {} writes failed during the import: {:?}",
        failures.len(),
        WRITERS * WRITES_EACH,
        &failures[..failures.len().min(3)]
    );
    assert_eq!(state.tags.list(&writer).await.unwrap().len(), WRITERS * WRITES_EACH, "every acknowledged write is there");
    assert_eq!(active_count(&db, &importer).await, PRODUCTS as u64, "and the whole import");
}

/// An import killed (SIGKILL) while it writes leaves the catalog exactly as before, and the
/// next import goes through: on SQLite its staged rows lived in the killed connection's temp
/// tables, and the publish is one transaction.
async fn a_killed_import_leaves_the_catalog_as_before(backend: &str) {
    let db = TestDb::of(backend).await;
    let agent = agent(&db).await;
    let dir = tempfile::tempdir().unwrap();
    let before = write(dir.path(), "before.jsonl", &format!("{}\n", product("p0", &["Home"], "active")));
    stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &before]));
    let lines: String = (0..10_000).map(|i| format!("{}\n", product(&format!("p{i}"), &["Garden"], "active"))).collect();
    let big = write(dir.path(), "big.jsonl", &lines);

    let mut import = command(&db, &["catalog", "import", "--agent", agent.as_str(), &big])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("parley runs");
    let stderr = import.stderr.take().unwrap();
    let writing = tokio::task::spawn_blocking(move || {
        use std::io::{BufRead, BufReader};
        BufReader::new(stderr).lines().map_while(Result::ok).any(|l| l.starts_with("writing:"))
    });
    assert!(writing.await.unwrap(), "the import never started writing");
    import.kill().unwrap();
    import.wait().unwrap();

    let state = crate::common::system_state(db.store.repositories());
    let facets = state.catalog.categories(&agent).await.unwrap();
    assert_eq!(facets.total_items, 1, "nothing of the killed import is visible");
    assert_eq!(facets.categories.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["Home"]);
    assert_eq!(active_count(&db, &agent).await, 1);
    let again = stdout_json(&parley(&db, &["catalog", "import", "--agent", agent.as_str(), &big]));
    assert_eq!((again["inserted"].as_u64(), again["updated"].as_u64()), (Some(9_999), Some(1)), "{again}");
    assert_eq!(active_count(&db, &agent).await, 10_000);
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
    commands_keep_planner_statistics_and_analyze_refreshes_all,
    api_writes_succeed_while_an_import_runs,
    a_killed_import_leaves_the_catalog_as_before
);
