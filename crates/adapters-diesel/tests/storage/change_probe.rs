//! The store's version (`ChangeProbe`): on SQLite it moves with every commit, this store's or
//! another one's on the same file (as an operator's command in another process), and stays put
//! while nothing is committed; PostgreSQL has none.

use chrono::Utc;
use parley_adapters_diesel::testing::TestDb;
use parley_adapters_diesel::{PoolOptions, Store};
use parley_domain::model::{Agent, AgentId, AgentName};

fn agent(id: &str) -> Agent {
    Agent { id: AgentId::new(id), name: AgentName::new("Probe").unwrap(), created_at: Utc::now() }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_version_moves_with_every_commit_of_any_connection() {
    let db = TestDb::sqlite().await;
    let repos = db.store.repositories();
    let first = repos.changes.version().await.unwrap().expect("SQLite has a version");
    assert_eq!(repos.changes.version().await.unwrap(), Some(first), "nothing committed, nothing moved");
    repos.agents.list().await.unwrap();
    assert_eq!(repos.changes.version().await.unwrap(), Some(first), "reads move nothing");

    repos.agents.insert(&agent("agt_probe_1")).await.unwrap();
    let second = repos.changes.version().await.unwrap().unwrap();
    assert_ne!(second, first, "this store's commit");

    let other = Store::open(&db.url, PoolOptions::default()).unwrap().repositories();
    other.agents.insert(&agent("agt_probe_2")).await.unwrap();
    let third = repos.changes.version().await.unwrap().unwrap();
    assert_ne!(third, second, "a commit on the same file by another store");
    assert_eq!(repos.changes.version().await.unwrap(), Some(third));
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_has_no_version() {
    let db = TestDb::postgres().await;
    assert_eq!(db.store.repositories().changes.version().await.unwrap(), None);
}
