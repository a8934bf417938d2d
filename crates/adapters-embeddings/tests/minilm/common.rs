//! The model folder and the reference data, shared by the tests of this binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use parley_adapters_embeddings::MiniLmEmbedder;
use serde_json::Value;

/// Where the model is looked for when `PARLEY_MODEL_DIR` is not set, under the workspace root.
const DEFAULT_DIR: &str = "models/all-MiniLM-L6-v2";

pub struct Case {
    pub text: String,
    pub token_ids: Vec<u32>,
    pub embedding: Vec<f32>,
}

pub fn reference() -> Vec<Case> {
    let json: Value = serde_json::from_str(include_str!("../data/minilm-reference.json")).unwrap();
    assert_eq!(json["max_tokens"], 256);
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 5);
    cases
        .iter()
        .map(|c| Case {
            text: c["text"].as_str().unwrap().to_owned(),
            token_ids: serde_json::from_value(c["token_ids"].clone()).unwrap(),
            embedding: serde_json::from_value(c["embedding"].clone()).unwrap(),
        })
        .collect()
}

/// One embedder for every test of the binary: loading reads and hashes 90 MB.
pub fn embedder() -> &'static MiniLmEmbedder {
    static EMBEDDER: OnceLock<MiniLmEmbedder> = OnceLock::new();
    EMBEDDER.get_or_init(|| MiniLmEmbedder::load(&model_dir()).unwrap())
}

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().and_then(Path::parent).expect("the crate lives in <root>/crates/")
}

/// `PARLEY_MODEL_DIR`, else `models/all-MiniLM-L6-v2` under the workspace root. When the folder
/// has no weights, `cargo xtask fetch-model` puts it in place, once per test binary (the
/// `OnceLock` holds the other tests back meanwhile); parallel test binaries are safe too, as the
/// task unpacks into its own staging folder and an atomic rename decides who placed it.
///
/// Running cargo from inside `cargo test` does not wait on cargo's build lock: `cargo test`
/// releases it once the test binaries are built, before it runs them.
pub fn model_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("PARLEY_MODEL_DIR").map_or_else(|| workspace_root().join(DEFAULT_DIR), PathBuf::from);
        if !dir.join("model.safetensors").is_file() {
            fetch(&dir);
        }
        dir
    })
    .clone()
}

fn fetch(dir: &Path) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(workspace_root())
        .args(["xtask", "fetch-model", "--dir"])
        .arg(dir)
        .output()
        .expect("cannot run cargo xtask fetch-model");
    assert!(
        out.status.success(),
        "cargo xtask fetch-model failed ({}); the model tests need it:\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
