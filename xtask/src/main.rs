//! Project automation: `cargo xtask <task>`. Dependency-free so it builds in seconds.
//!
//! - `codegen [--check]`: regenerate `docs/openapi.json` from the code (or fail if stale).
//! - `tidy`: repository rules (migration folders in step, the domain free of I/O crates).
//! - `bench catalog`: import and read figures on SQLite and PostgreSQL (a benchmark, not a test).
//! - `bench search`: search quality (nDCG@10, recall@10, MRR on labeled dev sets, against a BM25
//!   baseline) per embedder, and search latency, start-up and memory at 10k–1M products.

mod bench;
mod codegen;
mod tidy;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  codegen [--check]   write docs/openapi.json from the code; with --check, fail if it is stale
  tidy                check repository rules (migrations in step, domain crate free of I/O deps)
  bench catalog [--sizes 10000,100000] [--backends sqlite,postgres]
                      import and catalog-read figures on both backends; writes docs/performance.md
  bench search [--embedders static,minilm] [--sizes 10000,100000] [--backends sqlite] [--million]
                      search quality on the dev sets (xtask/data/search-*.json) against BM25, and
                      search latency, start-up and memory; writes docs/performance.md.
                      --million: latency alone at 1,000,000 products (minutes), its own section";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => codegen::codegen(false),
        ["codegen", "--check"] => codegen::codegen(true),
        ["tidy"] => tidy::tidy(),
        ["bench", rest @ ..] => bench::run(rest),
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
