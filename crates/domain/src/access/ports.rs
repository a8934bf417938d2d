//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// Agents: the tenants every other record belongs to. The one repository not scoped by agent.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AgentRepository: Send + Sync {
    /// Stores a new agent.
    async fn insert(&self, agent: &Agent) -> StoreResult<()>;
    /// The agent `id`, or `None` when unknown.
    async fn get(&self, id: &AgentId) -> StoreResult<Option<Agent>>;
    /// All agents, oldest first.
    async fn list(&self) -> StoreResult<Vec<Agent>>;
}

/// API keys, stored by the hash of the whole key (never the key itself). Finding a key by hash
/// (how a request's agent is known) and revoking one by id are not scoped by agent.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ApiKeyRepository: Send + Sync {
    /// MUST return `Conflict` when the hash is already stored.
    async fn insert(&self, key: &ApiKey) -> StoreResult<()>;
    /// Revoked keys are returned too; the caller decides.
    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>>;
    /// Oldest first.
    async fn list_for_agent(&self, agent: &AgentId) -> StoreResult<Vec<ApiKey>>;
    /// Sets `revoked_at` once; returns the key as it now is, or `None` when unknown.
    async fn revoke(&self, id: &ApiKeyId, at: Timestamp) -> StoreResult<Option<ApiKey>>;
}
