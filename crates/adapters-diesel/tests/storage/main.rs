//! The storage adapter's integration tests, one binary: the domain's conformance suite on both
//! backends, the data migrations, and SQLite's connection settings.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

mod change_probe;
mod conformance;
mod docs;
mod migrations;
mod runtimes;
mod schema_parity;
mod sqlite_settings;
