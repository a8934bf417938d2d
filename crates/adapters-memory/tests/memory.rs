//! What is the memory backend's own, beside the shared contract (`conformance.rs`): which ports
//! share a state, and what it answers for its health.

#![expect(clippy::unwrap_used, reason = "tests: a failed step is a failed test, helpers included")]

use parley_adapters_memory::MemoryStore;
use parley_domain::StoreError;
use parley_domain::model::*;

fn at() -> Timestamp {
    parse_timestamp("at", "2026-01-01T00:00:00Z").unwrap()
}

fn agent(id: &str) -> Agent {
    Agent { id: AgentId::new(id), name: AgentName::new("Shop").unwrap(), created_at: at() }
}

fn tag(agent: &str, name: &str) -> Tag {
    Tag {
        id: TagId::new(format!("tag_{name}")),
        agent_id: AgentId::new(agent),
        name: TagName::new(name).unwrap(),
        color: TagColor::default_color(),
        description: None,
        created_at: at(),
        updated_at: at(),
    }
}

#[tokio::test]
async fn clones_of_a_store_share_its_state_and_new_stores_start_empty() {
    let store = MemoryStore::new();
    let (first, second) = (store.repositories(), store.clone().repositories());
    first.agents.insert(&agent("agt_a")).await.unwrap();
    assert_eq!(second.agents.list().await.unwrap().len(), 1, "another clone's ports see the write");
    assert!(parley_adapters_memory::repositories().agents.list().await.unwrap().is_empty(), "a new store is its own");
}

#[tokio::test]
async fn rows_of_an_unknown_agent_are_refused_as_the_databases_refuse_them() {
    let repos = parley_adapters_memory::repositories();
    let refused = repos.tags.insert(&tag("agt_nobody", "vip"), MAX_TAGS_PER_AGENT, &[]).await;
    assert!(matches!(refused, Err(StoreError::Conflict(_))), "{refused:?}");
    repos.agents.insert(&agent("agt_a")).await.unwrap();
    assert!(repos.tags.insert(&tag("agt_a", "vip"), MAX_TAGS_PER_AGENT, &[]).await.unwrap());
}

#[tokio::test]
async fn memory_is_always_healthy_and_says_what_it_is() {
    let repos = parley_adapters_memory::repositories();
    repos.health.check().await.unwrap();
    assert_eq!(repos.health.backend(), "memory");
    assert_eq!(repos.health.pool(), parley_domain::ports::PoolStatus::default(), "no pool, nothing waits");
}
