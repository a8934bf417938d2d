//! PostgreSQL restarts under load: the real binary keeps answering, every response is 2xx or
//! 503 `UNAVAILABLE` within a bound (no hung request, no 500), and service comes back by itself
//! once the database is back. Prints how long recovery took.
//!
//! It restarts the PostgreSQL server that every other PostgreSQL test uses, so it is ignored by
//! `cargo test` and run alone by `.ci/run` after the workspace tests:
//! `cargo test -p parley-api --test pg_restart -- --ignored --nocapture`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::server::{ParleyServer, free_port};
use parley_adapters_diesel::testing::TestDb;

/// Clients hammering the API at once.
const CLIENTS: usize = 4;
/// No answer may take longer: the pool's wait timeout (5 s by default) plus a margin.
const BOUND: Duration = Duration::from_secs(7);
/// How long PostgreSQL stays down.
const OUTAGE: Duration = Duration::from_secs(2);
/// How long, at most, service may take to come back once PostgreSQL accepts connections.
const RECOVERY_BOUND: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
struct Sample {
    /// When the request was sent, from the start of the run.
    at: Duration,
    latency: Duration,
    /// The status, or the transport error (refused, reset, timed out).
    outcome: Result<(u16, String), String>,
}

/// One `GET` over a fresh connection, with a read timeout far above [`BOUND`] so a hung request
/// shows as an error rather than blocking the test.
fn get(port: u16, path: &str, key: &str) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(BOUND * 3)).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("write: {e}"))?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply).map_err(|e| format!("read: {e}"))?;
    let status = reply.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| format!("not HTTP: {reply:?}"))?;
    let body = reply.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    Ok((status, body))
}

fn cluster_version() -> String {
    std::fs::read_dir("/etc/postgresql")
        .expect("PostgreSQL clusters are listed in /etc/postgresql")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().to_string()))
        .min()
        .expect("one PostgreSQL cluster")
}

fn pg_ctl(action: &str) -> bool {
    Command::new("pg_ctlcluster")
        .args(["--skip-systemctl-redirect", &cluster_version(), "main", action])
        .status()
        .is_ok_and(|s| s.success())
}

fn pg_ready() -> bool {
    Command::new("pg_isready").args(["-h", "127.0.0.1", "-p", "5432", "-q"]).status().is_ok_and(|s| s.success())
}

/// Whatever happens in the test, PostgreSQL is up when it ends: other tests need it.
struct PostgresUp;

impl Drop for PostgresUp {
    fn drop(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !pg_ready() && Instant::now() < deadline {
            pg_ctl("start");
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

fn parley(url: &str, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_parley")).args(args).env("DATABASE_URL", url).env("PARLEY_LOG", "warn").output().unwrap();
    assert!(out.status.success(), "parley {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "restarts the shared PostgreSQL server: run alone (.ci/run does, after the workspace tests)"]
async fn postgres_restart_under_load_is_503_then_recovers_by_itself() {
    let db = TestDb::of("postgres").await;
    let url = db.url.clone();
    tokio::task::spawn_blocking(move || run(&url)).await.unwrap();
    drop(db);
}

fn run(url: &str) {
    let _guard = PostgresUp;
    assert!(pg_ready(), "PostgreSQL must be up at the start");
    let agent = parley(url, &["agents", "create", "--name", "Restart Shop"]);
    let key = parley(url, &["keys", "create", "--agent", agent["id"].as_str().unwrap()])["key"].as_str().unwrap().to_string();
    let port = free_port();
    let server = ParleyServer::start_on(url, port, &[("PARLEY_LOG", "warn")], |l| l.starts_with("Parley is serving"));

    let started = Instant::now();
    let samples = Arc::new(Mutex::new(Vec::<Sample>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (samples, stop, key) = (samples.clone(), stop.clone(), key.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let at = started.elapsed();
                    let outcome = get(port, "/v1/tags", &key);
                    let latency = started.elapsed() - at;
                    samples.lock().unwrap().push(Sample { at, latency, outcome });
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        })
        .collect();

    // Healthy traffic first, then a restart with the server down for a while: stop (fast
    // shutdown: sessions are terminated), two seconds without a database, start.
    std::thread::sleep(Duration::from_secs(1));
    let restart_at = started.elapsed();
    assert!(pg_ctl("stop"), "pg_ctlcluster stop failed");
    std::thread::sleep(OUTAGE);
    assert!(pg_ctl("start"), "pg_ctlcluster start failed");
    while !pg_ready() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let back_at = started.elapsed();

    // Keep hammering until service is back, then a little longer.
    let deadline = Instant::now() + RECOVERY_BOUND + BOUND;
    let recovered_at = loop {
        let first_ok_after = samples
            .lock()
            .unwrap()
            .iter()
            .filter(|s| s.at >= back_at)
            .find(|s| matches!(s.outcome, Ok((200, _))))
            .map(|s| s.at + s.latency);
        if let Some(at) = first_ok_after {
            break at;
        }
        assert!(Instant::now() < deadline, "service never came back after PostgreSQL did");
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    drop(server);

    let samples = samples.lock().unwrap().clone();
    let ok = samples.iter().filter(|s| matches!(s.outcome, Ok((200..=299, _)))).count();
    let unavailable: Vec<&Sample> = samples.iter().filter(|s| matches!(s.outcome, Ok((503, _)))).collect();
    let max_latency = samples.iter().map(|s| s.latency).max().unwrap_or_default();
    let max_503 = unavailable.iter().map(|s| s.latency).max().unwrap_or_default();
    let first_failure = samples.iter().filter(|s| !matches!(s.outcome, Ok((200..=299, _)))).map(|s| s.at).min();
    let last_failure = samples.iter().filter(|s| !matches!(s.outcome, Ok((200..=299, _)))).map(|s| s.at + s.latency).max();
    eprintln!(
        "pg_restart: {} requests ({ok} 2xx, {} 503); PostgreSQL down for {:.2} s (stop, {OUTAGE:?}, start); \
         service back {:.3} s after PostgreSQL accepted connections again; \
         outage seen by clients {:.3} s (first 503 to last 503); slowest answer {:.3} s, slowest 503 {:.3} s",
        samples.len(),
        unavailable.len(),
        (back_at - restart_at).as_secs_f64(),
        recovered_at.saturating_sub(back_at).as_secs_f64(),
        match (first_failure, last_failure) {
            (Some(a), Some(b)) => (b - a).as_secs_f64(),
            _ => 0.0,
        },
        max_latency.as_secs_f64(),
        max_503.as_secs_f64(),
    );

    let wrong: Vec<&Sample> = samples.iter().filter(|s| !matches!(s.outcome, Ok((200..=299 | 503, _)))).collect();
    assert!(
        wrong.is_empty(),
        "every answer is 2xx or 503, and none is lost: {} others, e.g. {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
    for s in &unavailable {
        let (_, body) = s.outcome.as_ref().unwrap();
        assert!(body.contains("\"UNAVAILABLE\""), "a 503 is UNAVAILABLE in the error shape: {body}");
    }
    assert!(max_latency < BOUND, "no hung request: the slowest took {max_latency:?}");
    assert!(recovered_at.saturating_sub(back_at) < RECOVERY_BOUND, "service came back by itself within {RECOVERY_BOUND:?}");
    let tail_ok = samples.iter().filter(|s| s.at > recovered_at).all(|s| matches!(s.outcome, Ok((200..=299, _))));
    assert!(tail_ok, "once back, every request succeeds");
}
