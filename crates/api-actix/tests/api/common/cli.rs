//! The `parley` binary run as an operator runs it, against a test database.

use std::process::{Command, Output};

use parley_adapters_diesel::testing::TestDb;
use serde_json::Value;

/// `parley ARGS` against `db`, logging only warnings: to run, or to spawn and watch.
pub fn command(db: &TestDb, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parley"));
    command.args(args).env("DATABASE_URL", &db.url).env("PARLEY_LOG", "warn");
    command
}

/// Runs `parley ARGS` against `db`.
pub fn parley(db: &TestDb, args: &[&str]) -> Output {
    command(db, args).output().expect("parley runs")
}

/// What a successful command printed, as JSON.
pub fn stdout_json(out: &Output) -> Value {
    assert!(out.status.success(), "parley failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}
