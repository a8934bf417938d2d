//! Project automation: `cargo xtask <task>`. Dependency-free so it builds in seconds.
//!
//! - `codegen [--check]`: regenerate `docs/openapi.json` from the code (or fail if stale).
//! - `tidy`: repository rules (migration folders in step, the domain free of I/O crates).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  codegen [--check]   write docs/openapi.json from the code; with --check, fail if it is stale
  tidy                check repository rules (migrations in step, domain crate free of I/O deps)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => codegen(false),
        ["codegen", "--check"] => codegen(true),
        ["tidy"] => tidy(),
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

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

const OPENAPI: &str = "docs/openapi.json";

fn codegen(check: bool) -> Result<(), String> {
    let out = cargo()
        .args(["run", "--quiet", "--package", "parley-api", "--", "openapi"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!("`parley openapi` failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let generated = String::from_utf8(out.stdout).map_err(|e| e.to_string())?;
    let path = root().join(OPENAPI);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if generated == committed {
        println!("{OPENAPI} is up to date");
        return Ok(());
    }
    if check {
        return Err(format!("{OPENAPI} is stale: run `cargo xtask codegen` and commit the result"));
    }
    std::fs::write(&path, generated).map_err(|e| format!("cannot write {OPENAPI}: {e}"))?;
    println!("wrote {OPENAPI}");
    Ok(())
}

fn tidy() -> Result<(), String> {
    let problems: Vec<String> = [migrations_in_step(), domain_is_pure()].into_iter().filter_map(Result::err).collect();
    if problems.is_empty() {
        println!("tidy: ok");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn migration_names(backend: &str) -> Result<Vec<String>, String> {
    let dir = root().join("crates/adapters-diesel/migrations").join(backend);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    Ok(names)
}

/// Both backends must carry the same migrations, or one schema drifts from the other.
fn migrations_in_step() -> Result<(), String> {
    let (sqlite, postgres) = (migration_names("sqlite")?, migration_names("postgres")?);
    if sqlite == postgres { Ok(()) } else { Err(format!("migration folders differ:\n  sqlite:   {sqlite:?}\n  postgres: {postgres:?}")) }
}

/// Crates that do I/O or belong to a framework: the domain must never depend on them.
const FORBIDDEN_IN_DOMAIN: [&str; 8] =
    ["diesel", "diesel-async", "actix-web", "reqwest", "tokio-postgres", "hyper", "rand", "libsqlite3-sys"];

fn domain_is_pure() -> Result<(), String> {
    let out = cargo()
        .args(["tree", "--package", "parley-domain", "--edges", "normal", "--prefix", "none", "--format", "{p}", "--all-features"])
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo tree failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let found: Vec<&str> =
        tree.lines().filter_map(|l| l.split_whitespace().next()).filter(|name| FORBIDDEN_IN_DOMAIN.contains(name)).collect();
    if found.is_empty() { Ok(()) } else { Err(format!("parley-domain must stay free of I/O crates but depends on {found:?}")) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn migrations_are_in_step() {
        super::migrations_in_step().unwrap();
    }

    #[test]
    fn the_domain_crate_does_no_io() {
        super::domain_is_pure().unwrap();
    }
}
