//! The embedded database's settings, observed from outside: WAL journaling (a `-wal` file
//! beside the database after a write) and enforced foreign keys (a cascade happens).

use chrono::Utc;
use parley_adapters_diesel::testing::TestDb;
use parley_domain::model::{Agent, AgentId, AgentName, MAX_TAGS_PER_AGENT, Tag, TagColor, TagId, TagName};

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_runs_in_wal_mode_with_foreign_keys_enforced() {
    let db = TestDb::sqlite().await;
    let repos = db.store.repositories();
    let agent = Agent { id: AgentId::new("agt_wal"), name: AgentName::new("WAL").unwrap(), created_at: Utc::now() };
    repos.agents.insert(&agent).await.unwrap();

    let path = db.url.strip_prefix("sqlite://").unwrap();
    assert!(std::path::Path::new(&format!("{path}-wal")).exists(), "writes go through a write-ahead log");

    let orphan = Tag {
        id: TagId::new("tag_orphan"),
        agent_id: AgentId::new("agt_missing"),
        name: TagName::new("orphan").unwrap(),
        color: TagColor::default_color(),
        description: None,
        created_at: Utc::now(),
        updated_at: Utc::now(),
    };
    assert!(repos.tags.insert(&orphan, MAX_TAGS_PER_AGENT, &[]).await.is_err(), "a tag of an unknown agent violates its foreign key");
}
