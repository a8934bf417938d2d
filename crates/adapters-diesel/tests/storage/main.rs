//! The storage adapter's integration tests, one binary: the domain's conformance suite on both
//! backends, the data migrations, and SQLite's connection settings.

#![allow(clippy::unwrap_used)] // tests: a failed unwrap is a failed test

mod conformance;
mod docs;
mod migrations;
mod sqlite_settings;
