use std::sync::Arc;

use crate::model::*;
use crate::ports::{AgentRepository, ApiKeyRepository, Clock, IdSource};
use crate::services::key_cache::KeyCache;
use crate::{DomainError, StoreError};

/// Agents and their API keys: what operators do from the command line, and authentication.
pub struct KeyService {
    agents: Arc<dyn AgentRepository>,
    keys: Arc<dyn ApiKeyRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    verified: KeyCache,
}

impl KeyService {
    /// A service over these ports, with an empty cache of verified keys.
    pub fn new(agents: Arc<dyn AgentRepository>, keys: Arc<dyn ApiKeyRepository>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self { agents, keys, clock, ids, verified: KeyCache::default() }
    }

    /// Creates an agent named `name` (trimmed, 1–128 characters); `Validation` on `name`
    /// otherwise.
    pub async fn create_agent(&self, name: &str) -> Result<Agent, DomainError> {
        let agent = Agent { id: AgentId::new(self.ids.new_id(IdKind::Agent)), name: AgentName::new(name)?, created_at: self.clock.now() };
        self.agents.insert(&agent).await?;
        Ok(agent)
    }

    /// Every agent, oldest first.
    pub async fn agents(&self) -> Result<Vec<Agent>, DomainError> {
        Ok(self.agents.list().await?)
    }

    /// Mints a key for an existing agent. The plaintext is returned once and never stored.
    pub async fn issue_key(&self, agent: &AgentId, kind: KeyKind) -> Result<IssuedKey, DomainError> {
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        loop {
            let plaintext = format!("{}{}", kind.prefix(), self.ids.secret(KEY_SECRET_LEN));
            let key = ApiKey {
                id: ApiKeyId::new(self.ids.new_id(IdKind::ApiKey)),
                agent_id: agent.clone(),
                kind,
                hash: KeyHash::of(&plaintext),
                hint: plaintext[plaintext.len() - 4..].to_string(),
                created_at: self.clock.now(),
                revoked_at: None,
            };
            match self.keys.insert(&key).await {
                Ok(()) => return Ok(IssuedKey { key, plaintext }),
                // Astronomically unlikely with 238 random bits, but never hand out a shared key.
                Err(StoreError::Conflict(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// The agent's keys, revoked ones included, oldest first; `NotFound` (`agent`) when the
    /// agent is unknown.
    pub async fn keys_of(&self, agent: &AgentId) -> Result<Vec<ApiKey>, DomainError> {
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        Ok(self.keys.list_for_agent(agent).await?)
    }

    /// Revokes a key, whichever agent it belongs to, and returns it as it now is; a key revoked
    /// before keeps its first revocation time. `NotFound` (`key`) when unknown. This process
    /// refuses it at once; others within [`KEY_CACHE_TTL`](crate::services::KEY_CACHE_TTL).
    pub async fn revoke(&self, key: &ApiKeyId) -> Result<ApiKey, DomainError> {
        let revoked = self.keys.revoke(key, self.clock.now()).await?.ok_or(DomainError::not_found("key"))?;
        self.verified.forget(key);
        Ok(revoked)
    }

    /// Resolves an `X-API-Key` value to its agent. Missing, malformed, unknown and revoked keys
    /// are all `Unauthorized`, indistinguishably. A valid key is remembered for
    /// [`KEY_CACHE_TTL`](crate::services::KEY_CACHE_TTL), so a busy key costs one query per interval.
    pub async fn authenticate(&self, presented: Option<&str>) -> Result<Principal, DomainError> {
        let presented = PresentedKey::parse(presented.ok_or(DomainError::Unauthorized)?)?;
        let now = self.clock.now();
        if let Some(principal) = self.verified.get(presented.hash(), now) {
            return Ok(principal);
        }
        let key = self.keys.find_by_hash(presented.hash()).await?.ok_or(DomainError::Unauthorized)?;
        if key.revoked_at.is_some() || key.kind != presented.kind() {
            return Err(DomainError::Unauthorized);
        }
        let principal = Principal { agent_id: key.agent_id, caller: Caller::Key(key.id), kind: key.kind };
        self.verified.put(presented.hash().clone(), principal.clone(), now);
        Ok(principal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockAgentRepository, MockApiKeyRepository, MockClock, MockIdSource};
    use crate::services::KEY_CACHE_TTL;

    fn service(agents: MockAgentRepository, keys: MockApiKeyRepository) -> KeyService {
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        let mut ids = MockIdSource::new();
        ids.expect_new_id().returning(|k| format!("{}_1", k.prefix()));
        ids.expect_secret().returning(|n| "Z".repeat(n));
        KeyService::new(Arc::new(agents), Arc::new(keys), Arc::new(clock), Arc::new(ids))
    }

    fn agent_repo() -> MockAgentRepository {
        let mut agents = MockAgentRepository::new();
        agents
            .expect_get()
            .returning(|id| Ok(Some(Agent { id: id.clone(), name: AgentName::new("Shop").unwrap(), created_at: chrono::Utc::now() })));
        agents
    }

    #[tokio::test]
    async fn issued_keys_store_only_the_hash() {
        let mut keys = MockApiKeyRepository::new();
        keys.expect_insert().withf(|k| k.hash == KeyHash::of(&format!("pk_{}", "Z".repeat(40))) && k.hint == "ZZZZ").returning(|_| Ok(()));
        let issued = service(agent_repo(), keys).issue_key(&AgentId::new("agt_1"), KeyKind::Publishable).await.unwrap();
        assert!(issued.plaintext.starts_with("pk_"));
        assert_eq!(issued.plaintext.len(), 43);
    }

    #[tokio::test]
    async fn revoked_and_unknown_keys_are_unauthorized() {
        let good = format!("sk_{}", "Z".repeat(40));
        let mut keys = MockApiKeyRepository::new();
        keys.expect_find_by_hash().returning(|hash| Ok(Some(ApiKey { revoked_at: Some(chrono::Utc::now()), ..live_key(hash) })));
        let svc = service(agent_repo(), keys);
        assert!(matches!(svc.authenticate(Some(&good)).await, Err(DomainError::Unauthorized)));
        assert!(matches!(svc.authenticate(None).await, Err(DomainError::Unauthorized)));
    }

    #[tokio::test]
    async fn keys_for_unknown_agents_are_refused() {
        let mut agents = MockAgentRepository::new();
        agents.expect_get().returning(|_| Ok(None));
        let err = service(agents, MockApiKeyRepository::new()).issue_key(&AgentId::new("agt_x"), KeyKind::Secret).await.unwrap_err();
        assert!(matches!(err, DomainError::NotFound { resource: "agent", .. }));
    }

    fn live_key(hash: &KeyHash) -> ApiKey {
        ApiKey {
            id: ApiKeyId::new("key_1"),
            agent_id: AgentId::new("agt_1"),
            kind: KeyKind::Secret,
            hash: hash.clone(),
            hint: "ZZZZ".into(),
            created_at: chrono::Utc::now(),
            revoked_at: None,
        }
    }

    /// A clock the test moves by hand.
    fn clock_at(now: Arc<std::sync::Mutex<Timestamp>>) -> MockClock {
        let mut clock = MockClock::new();
        clock.expect_now().returning(move || *now.lock().unwrap());
        clock
    }

    #[tokio::test]
    async fn a_verified_key_is_trusted_for_the_cache_interval_then_checked_again() {
        let good = format!("sk_{}", "Z".repeat(40));
        let now = Arc::new(std::sync::Mutex::new(chrono::Utc::now()));
        let mut keys = MockApiKeyRepository::new();
        keys.expect_find_by_hash().times(2).returning(|hash| Ok(Some(live_key(hash))));
        let svc = KeyService::new(Arc::new(agent_repo()), Arc::new(keys), Arc::new(clock_at(now.clone())), Arc::new(MockIdSource::new()));
        for _ in 0..3 {
            assert_eq!(svc.authenticate(Some(&good)).await.unwrap().agent_id, AgentId::new("agt_1"));
        }
        *now.lock().unwrap() += KEY_CACHE_TTL;
        svc.authenticate(Some(&good)).await.unwrap();
        svc.authenticate(Some(&good)).await.unwrap();
    }

    #[tokio::test]
    async fn a_key_revoked_in_this_process_is_refused_at_once() {
        let good = format!("sk_{}", "Z".repeat(40));
        let revoked = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut keys = MockApiKeyRepository::new();
        let seen = revoked.clone();
        keys.expect_find_by_hash().times(2).returning(move |hash| {
            let mut key = live_key(hash);
            key.revoked_at = seen.load(std::sync::atomic::Ordering::SeqCst).then(chrono::Utc::now);
            Ok(Some(key))
        });
        let flag = revoked.clone();
        keys.expect_revoke().returning(move |id, at| {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            let mut key = live_key(&KeyHash::of("x"));
            key.id = id.clone();
            key.revoked_at = Some(at);
            Ok(Some(key))
        });
        let svc = service(agent_repo(), keys);
        svc.authenticate(Some(&good)).await.unwrap();
        svc.revoke(&ApiKeyId::new("key_1")).await.unwrap();
        assert!(matches!(svc.authenticate(Some(&good)).await, Err(DomainError::Unauthorized)));
    }
}
