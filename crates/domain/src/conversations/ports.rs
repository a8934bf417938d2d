//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

/// An agent's tags, which label its activities. Names are unique per agent, ignoring case.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TagRepository: Send + Sync {
    /// Ordered by name ignoring case, then id.
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Tag>>;
    /// The agent's tag `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &TagId) -> StoreResult<Option<Tag>>;
    /// The agent's tags among `ids`, in any order; unknown ids are simply absent.
    async fn find_many(&self, agent: &AgentId, ids: &[TagId]) -> StoreResult<Vec<Tag>>;
    /// Inserts the tag and stores `events` in the same transaction. MUST return `Conflict` when
    /// the agent has a tag of the same name ignoring case, and `false`, writing nothing, when
    /// the agent already has `max_per_agent` tags (counted in the insert's transaction:
    /// concurrent inserts never pass the limit together).
    async fn insert(&self, tag: &Tag, max_per_agent: u32, events: &[Event]) -> StoreResult<bool>;
    /// Replaces name, color, description and `updated_at`, storing `events` with the change;
    /// `false`, writing nothing, when the tag is unknown. MUST return `Conflict` on a duplicate
    /// name.
    async fn update(&self, tag: &Tag, events: &[Event]) -> StoreResult<bool>;
    /// Deletes the tag, detaches it from every activity and stores `events`, in one
    /// transaction; `false`, writing nothing, when unknown.
    async fn delete(&self, agent: &AgentId, id: &TagId, events: &[Event]) -> StoreResult<bool>;
}

/// A team's saved answers (`/v1/canned_responses`).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CannedResponseRepository: Send + Sync {
    /// The agent's canned responses by short code, those `search` matches
    /// ([`CannedSearch::matches`]) when given, with their total.
    async fn list(&self, agent: &AgentId, search: Option<CannedSearch>, page: PageRequest) -> StoreResult<Page<CannedResponse>>;
    /// The agent's canned response `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<Option<CannedResponse>>;
    /// MUST return `Conflict` when the agent has one with the same short code, and `false`,
    /// writing nothing, when it already has `max_per_agent` (counted in the insert's
    /// transaction: concurrent inserts never pass the limit together).
    async fn insert(&self, response: &CannedResponse, max_per_agent: u32) -> StoreResult<bool>;
    /// Replaces short code, text and `updated_at`; `false` when unknown. MUST return `Conflict`
    /// on a short code another of the agent's responses holds.
    async fn update(&self, response: &CannedResponse) -> StoreResult<bool>;
    /// `false` when unknown.
    async fn delete(&self, agent: &AgentId, id: &CannedResponseId) -> StoreResult<bool>;
}

/// An agent's contacts. Each channel (a phone number, an account, an address) belongs to at
/// most one contact of the agent; another agent may hold the same channel.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ContactRepository: Send + Sync {
    /// MUST return `Conflict` when one of its channels already belongs to a contact of the agent.
    async fn insert(&self, contact: &Contact, events: &[Event]) -> StoreResult<()>;
    /// A new contact and its first activity, in one transaction: what a message from (or a send
    /// to) someone new makes. `Conflict` as [`insert`](Self::insert), and then nothing is written.
    async fn insert_conversation(&self, contact: &Contact, activity: &Activity, events: &[Event]) -> StoreResult<()>;
    /// The agent's contact `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &ContactId) -> StoreResult<Option<Contact>>;
    /// The agent's contact on `channel` (same channel type and value), if any.
    async fn find_by_channel(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<Contact>>;
    /// The contact on `channel` and its activity, if it has one: what every inbound message and
    /// every send to a number asks first, in one read. A channel that knows its user's id
    /// ([`Channel::user`]) finds the contact with that user id first, then the one on its
    /// address (the same type and `channel_id`).
    async fn find_conversation(&self, agent: &AgentId, channel: &Channel) -> StoreResult<Option<(Contact, Option<Activity>)>>;
    /// Replaces the agent's contact's channel `before` (found by its type and `channel_id`) with
    /// `after`: what a message told of the user (a phone, a user id, a username). `contact` is
    /// the contact as it now is (`after` among its channels): its `updated_at` and everything
    /// that shows or searches its channels are written with it, in one
    /// transaction with `events`. `false`, writing nothing, when the contact has no channel
    /// `before` (another request changed it first). MUST return `Conflict`, writing nothing,
    /// when `after`'s address or user id belongs to another contact of the agent.
    async fn update_channel(&self, contact: &Contact, before: &Channel, after: &Channel, events: &[Event]) -> StoreResult<bool>;
    /// Those `filter` keeps ([`ContactFilter::matches`]), newest first (`created_at` desc, then
    /// id desc); `total` counts under the same filter.
    async fn list(&self, agent: &AgentId, filter: &ContactFilter, page: PageRequest) -> StoreResult<Page<Contact>>;
    /// Replaces profile name, email, notes, custom attributes and `updated_at`; `false` when unknown.
    async fn update(&self, contact: &Contact, events: &[Event]) -> StoreResult<bool>;
    /// Erases the agent's contact and everything that holds what it wrote or what it is, in one
    /// transaction: its channels, its activity (tags detached, counts moved), the activity's
    /// messages and their stored files, the template sends addressed to it, the platforms'
    /// processed deliveries that named it, idempotent answers about its activity; events stored
    /// about it keep their ids and nothing else. Carts stay (they are the storefront's).
    /// `events` (its `contact.deleted`) are written with it. `false` when the agent has no
    /// such contact.
    async fn erase(&self, agent: &AgentId, id: &ContactId, events: &[Event]) -> StoreResult<bool>;
}

/// Activities: a contact's one conversation, with its status, assignee and tags, shown as an
/// [`ActivityView`] (with what it shows of its contact, tags and last message).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ActivityRepository: Send + Sync {
    /// MUST return `Conflict` when the contact already has an activity.
    async fn insert(&self, activity: &Activity, events: &[Event]) -> StoreResult<()>;
    /// The agent's activity `id` as the API shows it; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<Option<ActivityView>>;
    /// The activity of the agent's contact `contact`, if it has one (a contact has at most one).
    async fn find_by_contact(&self, agent: &AgentId, contact: &ContactId) -> StoreResult<Option<Activity>>;
    /// Most recently updated first (`updated_at` desc, then id desc).
    async fn list(&self, agent: &AgentId, filter: &ActivityFilter, page: PageRequest) -> StoreResult<Page<ActivityView>>;
    /// Replaces status, assignee, `last_inbound_at` and `updated_at`, and renames the contact
    /// when the write says so, all in one transaction; `false` when unknown. An assignee that is
    /// one of the agent's members is shown as the view's `assignee` from then on. MUST return
    /// `Conflict`, writing nothing, when the write is `if_unassigned` and the stored activity
    /// has an assignee.
    async fn update<'a>(&self, write: ActivityWrite<'a>, events: &[Event]) -> StoreResult<bool>;
    /// Attaches the agent's tags among `tags` (others are ignored); attaching twice is a no-op.
    /// Bumps `updated_at` to `at` only when something was attached. `false` when the activity is unknown.
    /// MUST return `Conflict`, attaching nothing, when the activity would then hold more than
    /// [`MAX_TAGS_PER_ACTIVITY`] tags.
    async fn attach_tags(&self, agent: &AgentId, id: &ActivityId, tags: &[TagId], at: Timestamp, events: &[Event]) -> StoreResult<bool>;
    /// Detaches one tag; bumps `updated_at` only when it was attached. `false` when the activity is unknown.
    async fn detach_tag(&self, agent: &AgentId, id: &ActivityId, tag: &TagId, at: Timestamp, events: &[Event]) -> StoreResult<bool>;
    /// Sets the activity's `unread_count` to 0: the business read the conversation. `false`
    /// when the agent has no such activity. Moves nothing else (not `updated_at`: reading is
    /// not a change to the conversation).
    async fn mark_read(&self, agent: &AgentId, id: &ActivityId) -> StoreResult<bool>;
}
