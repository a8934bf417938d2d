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

/// An agent's team members. Finding members by email (how a sign-in starts) is not scoped by
/// agent: an address may be a member of several agents.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MemberRepository: Send + Sync {
    /// MUST return `Conflict`, storing nothing, when the agent has a member with that email.
    async fn insert(&self, member: &Member) -> StoreResult<()>;
    /// The agent's member `id`, or `None` when unknown (or another agent's).
    async fn get(&self, agent: &AgentId, id: &MemberId) -> StoreResult<Option<Member>>;
    /// The agent's members, oldest first, then by id.
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Member>>;
    /// Every member with this email, whichever agent, oldest first.
    async fn find_by_email(&self, email: &Email) -> StoreResult<Vec<Member>>;
    /// Replaces the password's hash, `must_change_password` and `updated_at`, and ends the
    /// member's sessions other than `keep`, in one transaction; `false` when unknown.
    async fn set_password<'a>(&self, member: &Member, keep: Option<&'a SessionId>) -> StoreResult<bool>;
    /// Replaces the member's `max_open` and `updated_at`; `false` when unknown.
    async fn set_max_open(&self, agent: &AgentId, id: &MemberId, max_open: Option<MaxOpen>, at: Timestamp) -> StoreResult<bool>;
    /// Deletes the member and its sessions in one transaction; activities assigned to it keep
    /// their `assigned_to` but no longer show it as their assignee. `false` when unknown.
    async fn delete(&self, agent: &AgentId, id: &MemberId) -> StoreResult<bool>;
}

/// Members' signed-in sessions, stored by the hash of their token (never the token itself).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SessionRepository: Send + Sync {
    /// MUST return `Conflict` when the hash is already stored.
    async fn insert(&self, session: &Session) -> StoreResult<()>;
    /// The session with this token hash and its member as it now is; `None` when unknown (a
    /// removed member's sessions are gone with it).
    async fn find_by_hash(&self, hash: &KeyHash) -> StoreResult<Option<(Session, Member)>>;
    /// Sets `last_seen_at`.
    async fn touch(&self, id: &SessionId, at: Timestamp) -> StoreResult<()>;
    /// Ends one session; `false` when unknown.
    async fn delete(&self, id: &SessionId) -> StoreResult<bool>;
    /// Ends every session last seen before `before` (idle ones); returns how many.
    async fn delete_idle(&self, before: Timestamp) -> StoreResult<u64>;
}

/// Failed sign-ins by email, whether or not a member has that email (so a lock-out does not tell
/// which addresses are members), for [`SignInGuard`].
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait SignInAttemptRepository: Send + Sync {
    /// Records one attempt's mark at `at`.
    async fn record(&self, email: &Email, mark: SignInMark, at: Timestamp) -> StoreResult<()>;
    /// The failures recorded for `email` at or after `since`, and its newest lock at or after
    /// `since`.
    async fn since(&self, email: &Email, since: Timestamp) -> StoreResult<SignInHistory>;
    /// Forgets the email's failures (a successful sign-in); its locks stay.
    async fn clear_failures(&self, email: &Email) -> StoreResult<()>;
    /// Forgets every mark older than `before`; returns how many.
    async fn prune(&self, before: Timestamp) -> StoreResult<u64>;
}

/// Password hashing: slow on purpose (Argon2id), so it runs where it cannot hold up the server.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait PasswordHashing: Send + Sync {
    /// A new salted hash of `password`.
    async fn hash(&self, password: &NewPassword) -> Result<PasswordDigest, crate::DomainError>;
    /// Whether `password` is the one `digest` was made from; a digest this hasher cannot read is
    /// `false`. Without a digest (no member has the email), the same work is done against a
    /// decoy and the answer is `false`: a sign-in takes as long whether or not the email is a
    /// member's.
    async fn verify<'a>(&self, password: &str, digest: Option<&'a PasswordDigest>) -> bool;
}
