//! `cargo xtask test [ARGS…]`: the one command that runs every test on a fresh machine. It
//! readies what the tests need (`.ci/services`: PostgreSQL, Redis, Chromium and the mail
//! servers, installed when missing and started when down; then the model folder), then runs
//! `cargo test --workspace ARGS…`, whose exit status it returns. `.ci/run` runs it too.

use std::process::Command;
use std::time::Instant;

use crate::root;

pub fn run(args: &[&str]) -> Result<(), String> {
    let started = Instant::now();
    let services = root().join(".ci/services");
    println!("test: readying the services ({})", services.display());
    let status =
        Command::new("bash").arg(&services).current_dir(root()).status().map_err(|e| format!("cannot run {}: {e}", services.display()))?;
    if !status.success() {
        return Err(format!(".ci/services failed ({status}): the tests need what it sets up"));
    }
    println!("test: the embedder model");
    crate::fetch_model::run(&[])?;
    println!("test: services ready in {:.0} s; cargo test --workspace {}", started.elapsed().as_secs_f64(), args.join(" "));
    let status = crate::cargo().args(["test", "--workspace"]).args(args).status().map_err(|e| format!("cannot run cargo test: {e}"))?;
    println!("test: {} in {:.0} s", if status.success() { "passed" } else { "failed" }, started.elapsed().as_secs_f64());
    if status.success() { Ok(()) } else { Err(format!("cargo test --workspace failed ({status})")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The command the README gives for running every test: its first `sh` block after "Run every test".
    fn readme_test_command(readme: &str) -> Option<&str> {
        let after = readme.split("Run every test").nth(1)?;
        let block = after.split("```sh\n").nth(1)?.split("```").next()?;
        Some(block.trim())
    }

    #[test]
    fn the_readme_and_ci_run_the_same_test_command() {
        let read = |path: &str| std::fs::read_to_string(root().join(path)).unwrap();
        let readme = read("README.md");
        let command = readme_test_command(&readme).expect("the README gives a test command");
        assert_eq!(command, "cargo xtask test");
        assert!(read(".ci/run").lines().any(|l| l.trim() == command), ".ci/run runs `{command}` as it is");
    }
}
