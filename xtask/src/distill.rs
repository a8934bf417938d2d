//! `cargo xtask distill [--untuned] [options]`: rebuilds the static embedder's table from the
//! full all-MiniLM-L6-v2 model (fetched first when missing), then tunes it on WordNet 3.0
//! (fetched too) unless `--untuned`. The search development sets are exported for the tuning to
//! score each epoch on the queries not held out. The work itself is the `parley-distill` tool of
//! the embeddings crate, so xtask stays free of the model's dependencies.

use serde_json::{Value, json};

use crate::bench::devset::{self, LabeledCatalog};
use crate::bench::labeled;
use crate::{cargo, fetch_corpus, fetch_model, root};

const TABLE: &str = "crates/adapters-embeddings/assets/static-minilm-l6-v2.table";
const TOKENIZER: &str = "crates/adapters-embeddings/assets/minilm-tokenizer.json";
/// The teacher's cached vectors and the exported dev sets: rebuildable, never committed.
const WORK_DIR: &str = "target/distill";

pub fn run(args: &[&str]) -> Result<(), String> {
    let model_dir = root().join(fetch_model::DEFAULT_DIR);
    fetch_model::run(&[])?;
    let (untuned, passed): (Vec<&str>, Vec<&str>) = args.iter().partition(|a| **a == "--untuned");
    let (model, table) = (model_dir.display().to_string(), root().join(TABLE).display().to_string());
    let mut command = cargo();
    command.args([
        "run",
        "--release",
        "--quiet",
        "--package",
        "parley-adapters-embeddings",
        "--features",
        "distill",
        "--bin",
        "parley-distill",
        "--",
    ]);
    command.args(["--model-dir", &model, "--out", &table]);
    if untuned.is_empty() {
        let wordnet = fetch_corpus::ensure()?;
        let work = root().join(WORK_DIR);
        let dev_sets = work.join("dev-sets.json");
        export_dev_sets(&dev_sets)?;
        command.arg("--wordnet").arg(&wordnet).arg("--cache").arg(&work).arg("--dev-sets").arg(&dev_sets);
    }
    command.args(passed);
    let status = command.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("parley-distill failed".into());
    }
    // The table has one row per entry of this tokenizer's vocabulary: they ship together.
    std::fs::copy(model_dir.join("tokenizer.json"), root().join(TOKENIZER)).map_err(|e| format!("cannot copy the tokenizer: {e}"))?;
    println!("distill: wrote {TABLE} and {TOKENIZER}; rebuild to compile them in");
    Ok(())
}

/// The catalogs and labeled queries `bench search` measures, for the tuning to score epochs on.
fn export_dev_sets(path: &std::path::Path) -> Result<(), String> {
    let catalogs = [devset::demo()?, labeled::generated()?];
    let document = json!({ "catalogs": catalogs.iter().map(catalog_json).collect::<Vec<_>>() });
    std::fs::create_dir_all(path.parent().expect("the work folder has a parent"))
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    std::fs::write(path, document.to_string()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn catalog_json(catalog: &LabeledCatalog) -> Value {
    json!({
        "name": catalog.name,
        "products": catalog.active().map(|p| json!({ "id": p.id, "text": p.text })).collect::<Vec<_>>(),
        "queries": catalog.queries.iter().map(|q| json!({ "text": q.text, "labels": q.labels, "held_out": q.held_out })).collect::<Vec<_>>(),
    })
}
