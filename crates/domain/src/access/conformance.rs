//! The storage contract of agents and API keys (`AgentRepository`, `ApiKeyRepository`).

#![expect(clippy::unwrap_used, reason = "a test suite: a failed step is a failed check")]

use crate::StoreError;
use crate::model::*;
use crate::ports::Repositories;

use crate::conformance::fixtures::*;

/// Agents read back as inserted; an unknown id is `None`; `list` is oldest first, then by id.
pub async fn agents_round_trip(r: Repositories) {
    let a = agent(&r, "Shop A").await;
    let b = agent(&r, "Shop B").await;
    assert_eq!(r.agents.get(&a).await.unwrap().unwrap().name.as_str(), "Shop A");
    assert!(r.agents.get(&AgentId::new("agt_nope")).await.unwrap().is_none());
    let all: Vec<_> = r.agents.list().await.unwrap().into_iter().map(|x| x.id).collect();
    assert_eq!(all, [a, b], "agents list oldest first, then by id");
}

/// Key hashes are unique across agents (`Conflict`); keys are found by hash, revoked ones too;
/// an agent's keys list oldest first; revoking twice keeps the first `revoked_at`.
pub async fn keys_are_found_by_hash_and_revoked_once(r: Repositories) {
    let a = agent(&r, "A").await;
    let b = agent(&r, "B").await;
    let key = |agent: &AgentId, secret: &str, at| ApiKey {
        id: ApiKeyId::new(id("key")),
        agent_id: agent.clone(),
        kind: KeyKind::Secret,
        hash: KeyHash::of(secret),
        hint: "abcd".into(),
        created_at: at,
        revoked_at: None,
    };
    let k1 = key(&a, "sk_one", t(1));
    let k2 = key(&a, "sk_two", t(2));
    r.keys.insert(&k1).await.unwrap();
    r.keys.insert(&k2).await.unwrap();
    r.keys.insert(&key(&b, "sk_three", t(3))).await.unwrap();
    assert_eq!(r.keys.insert(&key(&b, "sk_one", t(4))).await.map_err(|e| matches!(e, StoreError::Conflict(_))), Err(true));

    assert_eq!(r.keys.find_by_hash(&KeyHash::of("sk_one")).await.unwrap().unwrap(), k1);
    assert!(r.keys.find_by_hash(&KeyHash::of("sk_unknown")).await.unwrap().is_none());
    let listed: Vec<_> = r.keys.list_for_agent(&a).await.unwrap().into_iter().map(|k| k.id).collect();
    assert_eq!(listed, [k1.id.clone(), k2.id.clone()]);

    let revoked = r.keys.revoke(&k1.id, t(10)).await.unwrap().unwrap();
    assert_eq!(revoked.revoked_at, Some(t(10)));
    let again = r.keys.revoke(&k1.id, t(20)).await.unwrap().unwrap();
    assert_eq!(again.revoked_at, Some(t(10)), "revoking twice keeps the first time");
    assert!(r.keys.revoke(&ApiKeyId::new("key_nope"), t(1)).await.unwrap().is_none());
}
