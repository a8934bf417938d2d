//! The ports: what the use cases need from the outside world. Adapters implement them.
//!
//! Every repository method is scoped by agent: an id of another agent behaves exactly like an
//! unknown id. Storage backends are held to these contracts by the shared conformance suite
//! (`conformance` feature).

use async_trait::async_trait;

use crate::StoreError;
use crate::model::*;

pub type StoreResult<T> = Result<T, StoreError>;

/// The current time, truncated to milliseconds.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// Unguessable identifiers and key secrets, from a cryptographically secure source.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait IdSource: Send + Sync {
    /// `{prefix}_{random}`, e.g. `tag_3kTq…`.
    fn new_id(&self, kind: IdKind) -> String;
    /// `len` random base-62 characters.
    fn secret(&self, len: usize) -> String;
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AgentRepository: Send + Sync {
    async fn insert(&self, agent: &Agent) -> StoreResult<()>;
    async fn get(&self, id: &AgentId) -> StoreResult<Option<Agent>>;
    /// All agents, oldest first.
    async fn list(&self) -> StoreResult<Vec<Agent>>;
}

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

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TagRepository: Send + Sync {
    /// Ordered by name ignoring case, then id.
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Tag>>;
    async fn get(&self, agent: &AgentId, id: &TagId) -> StoreResult<Option<Tag>>;
    /// The agent's tags among `ids`, in any order; unknown ids are simply absent.
    async fn find_many(&self, agent: &AgentId, ids: &[TagId]) -> StoreResult<Vec<Tag>>;
    /// MUST return `Conflict` when the agent has a tag of the same name ignoring case.
    async fn insert(&self, tag: &Tag) -> StoreResult<()>;
    /// Replaces name, color, description and `updated_at`; `false` when the tag is unknown.
    /// MUST return `Conflict` on a duplicate name.
    async fn update(&self, tag: &Tag) -> StoreResult<bool>;
    /// Deletes the tag and detaches it from every activity; `false` when unknown.
    async fn delete(&self, agent: &AgentId, id: &TagId) -> StoreResult<bool>;
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ContactRepository: Send + Sync {
    /// MUST return `Conflict` when one of its channels already belongs to a contact of the agent.
    async fn insert(&self, contact: &Contact) -> StoreResult<()>;
    async fn get(&self, agent: &AgentId, id: &ContactId) -> StoreResult<Option<Contact>>;
    async fn find_by_channel(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<Contact>>;
    /// Newest first (`created_at` desc, then id desc).
    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<Contact>>;
    /// Replaces profile name, email, notes, custom attributes and `updated_at`; `false` when unknown.
    async fn update(&self, contact: &Contact) -> StoreResult<bool>;
}

#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ActivityRepository: Send + Sync {
    /// MUST return `Conflict` when the contact already has an activity.
    async fn insert(&self, activity: &Activity) -> StoreResult<()>;
    async fn get(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<Option<ActivityView>>;
    async fn find_by_contact(&self, agent: &AgentId, contact: &ContactId) -> StoreResult<Option<Activity>>;
    /// Most recently updated first (`updated_at` desc, then id desc).
    async fn list(&self, agent: &AgentId, filter: &ActivityFilter, page: PageRequest) -> StoreResult<Page<ActivityView>>;
    /// Replaces status, assignee, `last_inbound_at` and `updated_at`, and renames the contact
    /// when `rename` is given, all in one transaction; `false` when unknown.
    async fn update<'a>(&self, activity: &Activity, rename: Option<&'a ProfileName>) -> StoreResult<bool>;
    /// Attaches tags (already known to be the agent's); attaching twice is a no-op.
    /// Bumps `updated_at` to `at` only when something was attached. `false` when the activity is unknown.
    async fn attach_tags(&self, agent: &AgentId, id: &ActivityId, tags: &[TagId], at: Timestamp) -> StoreResult<bool>;
    /// Detaches one tag; bumps `updated_at` only when it was attached. `false` when the activity is unknown.
    async fn detach_tag(&self, agent: &AgentId, id: &ActivityId, tag: &TagId, at: Timestamp) -> StoreResult<bool>;
}

/// Every repository port, as one storage backend provides them.
#[derive(Clone)]
pub struct Repositories {
    pub agents: std::sync::Arc<dyn AgentRepository>,
    pub keys: std::sync::Arc<dyn ApiKeyRepository>,
    pub tags: std::sync::Arc<dyn TagRepository>,
    pub contacts: std::sync::Arc<dyn ContactRepository>,
    pub activities: std::sync::Arc<dyn ActivityRepository>,
}
