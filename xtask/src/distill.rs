//! `cargo xtask distill [--dimensions N] [--sif A]`: rebuilds the static embedder's table from the
//! full all-MiniLM-L6-v2 model (fetched first when missing). The work itself is the
//! `parley-distill` tool of the embeddings crate, so xtask stays free of the model's dependencies.

use crate::{cargo, fetch_model, root};

const TABLE: &str = "crates/adapters-embeddings/assets/static-minilm-l6-v2.table";
const TOKENIZER: &str = "crates/adapters-embeddings/assets/minilm-tokenizer.json";

pub fn run(args: &[&str]) -> Result<(), String> {
    let model_dir = root().join(fetch_model::DEFAULT_DIR);
    fetch_model::run(&[])?;
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
    command.args(["--model-dir", &model, "--out", &table]).args(args);
    let status = command.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("parley-distill failed".into());
    }
    // The table has one row per entry of this tokenizer's vocabulary: they ship together.
    std::fs::copy(model_dir.join("tokenizer.json"), root().join(TOKENIZER)).map_err(|e| format!("cannot copy the tokenizer: {e}"))?;
    println!("distill: wrote {TABLE} and {TOKENIZER}; rebuild to compile them in");
    Ok(())
}
