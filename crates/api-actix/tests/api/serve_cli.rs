//! `parley serve` through the real binary: what an operator sees when it cannot start.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use parley_adapters_diesel::testing::TestDb;

use crate::common::cli::command;

/// A taken address fails the start at once and cleanly: the address is bound before any
/// background worker starts, so no worker runs (and fails) while the process exits.
#[tokio::test(flavor = "multi_thread")]
async fn a_taken_address_fails_before_any_worker_starts() {
    let db = TestDb::sqlite().await;
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let started = Instant::now();
    let out = command(&db, &["serve", "--bind", &address]).env("PARLEY_LOG", "info").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "serve on a taken address must fail: {stderr}");
    assert!(stderr.contains(&format!("cannot listen on {address}")), "{stderr}");
    assert!(!stderr.contains("webhook processing pass failed"), "a worker ran: {stderr}");
    assert!(!stderr.contains("templates synced") && !stderr.contains("template sync failed"), "a worker ran: {stderr}");
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
}
