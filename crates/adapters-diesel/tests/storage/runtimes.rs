//! A pool serves every runtime of the process: connections made while another runtime (the
//! background workers') queried still work once that runtime is gone, as at a graceful
//! shutdown, which counts what is left after the workers stop.

use parley_adapters_diesel::testing::TestDb;
use parley_domain::ports::Repositories;

/// `n` health checks and backlog counts (what a shutdown reads) at once, so that the pool makes
/// connections rather than reusing one.
async fn checks(repos: &Repositories, n: usize) -> Vec<Result<(), String>> {
    let each = (0..n).map(|_| async {
        repos.health.check().await.map_err(|e| e.to_string())?;
        repos.inbound.backlog().await.map(drop).map_err(|e| e.to_string())
    });
    futures_util::future::join_all(each).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_connections_made_on_a_runtime_that_ended_still_work() {
    connections_made_on_a_runtime_that_ended_still_work("sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connections_made_on_a_runtime_that_ended_still_work() {
    connections_made_on_a_runtime_that_ended_still_work("postgres").await;
}

async fn connections_made_on_a_runtime_that_ended_still_work(backend: &str) {
    let db = TestDb::of(backend).await;
    let repos = db.store.repositories();
    let workers = repos.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let results = runtime.block_on(checks(&workers, 8));
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        // The runtime ends here, as the workers' does at shutdown.
    })
    .join()
    .unwrap();
    for round in 0..3 {
        let results = checks(&repos, 8).await;
        assert!(results.iter().all(Result::is_ok), "round {round}: {results:?}");
    }
}
