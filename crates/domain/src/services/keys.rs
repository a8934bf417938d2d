use std::sync::Arc;

use crate::model::*;
use crate::ports::{AgentRepository, ApiKeyRepository, Clock, IdSource};
use crate::{DomainError, StoreError};

/// Agents and their API keys: what operators do from the command line, and authentication.
pub struct KeyService {
    agents: Arc<dyn AgentRepository>,
    keys: Arc<dyn ApiKeyRepository>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

impl KeyService {
    pub fn new(agents: Arc<dyn AgentRepository>, keys: Arc<dyn ApiKeyRepository>, clock: Arc<dyn Clock>, ids: Arc<dyn IdSource>) -> Self {
        Self { agents, keys, clock, ids }
    }

    pub async fn create_agent(&self, name: &str) -> Result<Agent, DomainError> {
        let agent = Agent { id: AgentId::new(self.ids.new_id(IdKind::Agent)), name: AgentName::new(name)?, created_at: self.clock.now() };
        self.agents.insert(&agent).await?;
        Ok(agent)
    }

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

    pub async fn keys_of(&self, agent: &AgentId) -> Result<Vec<ApiKey>, DomainError> {
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        Ok(self.keys.list_for_agent(agent).await?)
    }

    pub async fn revoke(&self, key: &ApiKeyId) -> Result<ApiKey, DomainError> {
        self.keys.revoke(key, self.clock.now()).await?.ok_or(DomainError::not_found("key"))
    }

    /// Resolves an `X-API-Key` value to its agent. Missing, malformed, unknown and revoked keys
    /// are all `Unauthorized`, indistinguishably.
    pub async fn authenticate(&self, presented: Option<&str>) -> Result<Principal, DomainError> {
        let presented = PresentedKey::parse(presented.ok_or(DomainError::Unauthorized)?)?;
        let key = self.keys.find_by_hash(presented.hash()).await?.ok_or(DomainError::Unauthorized)?;
        if key.revoked_at.is_some() || key.kind != presented.kind() {
            return Err(DomainError::Unauthorized);
        }
        Ok(Principal { agent_id: key.agent_id, key_id: key.id, kind: key.kind })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockAgentRepository, MockApiKeyRepository, MockClock, MockIdSource};

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
        keys.expect_find_by_hash().returning(|hash| {
            Ok(Some(ApiKey {
                id: ApiKeyId::new("key_1"),
                agent_id: AgentId::new("agt_1"),
                kind: KeyKind::Secret,
                hash: hash.clone(),
                hint: "ZZZZ".into(),
                created_at: chrono::Utc::now(),
                revoked_at: Some(chrono::Utc::now()),
            }))
        });
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
}
