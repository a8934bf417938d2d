//! The ports: what the use cases need from the outside world. Adapters implement them.
//!
//! What a request asks of a repository is scoped by agent: each method takes the agent, or a
//! record that names its agent, and an id of another agent behaves exactly like an unknown id.
//! The exceptions serve the process rather than a tenant: finding a key by its hash (how a
//! request's agent becomes known), lines by id, platform account or all of them (a platform's
//! delivery names a line, not an agent), and the workers' claims and counts (inbound
//! deliveries, event deliveries, mailbox leases, vectors still to compute). Storage backends are
//! held to these contracts by the shared conformance suite (`conformance` feature).

use async_trait::async_trait;

use crate::StoreError;
use crate::model::*;

/// What every repository method returns: its answer, or the [`StoreError`] the backend met.
pub type StoreResult<T> = Result<T, StoreError>;

/// The current time, truncated to milliseconds.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait Clock: Send + Sync {
    /// The current instant, in UTC, truncated to milliseconds.
    fn now(&self) -> Timestamp;
}

/// Unguessable identifiers and key secrets, from a cryptographically secure source.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait IdSource: Send + Sync {
    /// `{prefix}_{random}`, e.g. `tag_3kTq…`.
    fn new_id(&self, kind: IdKind) -> String;
    /// `len` random base-62 characters.
    fn secret(&self, len: usize) -> String;
    /// `len` random characters drawn uniformly from `alphabet` (cart codes).
    fn code(&self, alphabet: &'static [u8], len: usize) -> String;
    /// `len` random bytes (signing keys).
    fn bytes(&self, len: usize) -> Vec<u8>;
    /// A number drawn uniformly from [0, 1) (retry jitter).
    fn unit(&self) -> f64;
}

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
    /// when `rename` is given, all in one transaction; `false` when unknown.
    async fn update<'a>(&self, activity: &Activity, rename: Option<&'a ProfileName>, events: &[Event]) -> StoreResult<bool>;
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

/// The messages of activities' timelines: inbound, outbound and internal notes.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MessageRepository: Send + Sync {
    /// Stores a message on its activity, in one transaction that also moves the activity's
    /// `updated_at` to the message's `updated_at` and makes the message the activity's
    /// `last_message` when it is the newest (by `created_at`, then id). An inbound message also
    /// reopens the activity (status `open`) and raises its `last_inbound_at` to the message's
    /// `created_at` when later, never lowering it. Returns `false`, storing
    /// nothing, when the agent already has a message with the same platform message id (the
    /// platform retries webhooks). MUST return `NotFound` when the activity is not the agent's.
    async fn insert(&self, message: &Message, events: &[Event]) -> StoreResult<bool>;
    /// [`insert`](Self::insert), with `update` of the message's contact made in the same
    /// transaction, first: the message and what it taught of its contact are stored together
    /// or not at all. The update is [`ContactRepository::update_channel`]'s compare-and-set: when
    /// the channel changed since it was read, or its new phone or user id is another contact's,
    /// the contact is left as it is (`update.events` not emitted) and the message is stored all
    /// the same. MUST return `NotFound`, storing nothing, when the activity is not the agent's.
    async fn insert_learning(&self, message: &Message, update: &ChannelUpdate, events: &[Event]) -> StoreResult<bool>;
    /// The message `id` of the agent's activity `activity`; `None` when it is on another activity
    /// or another agent's.
    async fn get(&self, agent: &AgentId, activity: &ActivityId, id: &MessageId) -> StoreResult<Option<Message>>;
    /// The activity's messages, newest first (`created_at` desc, then id desc). With
    /// `filter.since`, only those whose `updated_at` is after it; `total` counts under the same
    /// filter. MUST return `NotFound` when the activity is not the agent's (the caller reads
    /// nothing else to answer 404).
    async fn list(&self, agent: &AgentId, activity: &ActivityId, filter: MessageFilter, page: PageRequest) -> StoreResult<Page<Message>>;
    /// The agent's message with this platform message id (`pm.…`), on any activity.
    async fn find_by_platform_id(&self, agent: &AgentId, platform_message_id: &str) -> StoreResult<Option<Message>>;
    /// Writes status, times, error, platform message id and `updated_at` only if the stored
    /// status is still `expected` (compare-and-set, as for executions); `false` otherwise. A
    /// `sending` reply gets its platform message id this way, when the platform accepts it or a
    /// status report names it; `Conflict` if the agent already has a message with that id.
    async fn update_status(&self, message: &Message, expected: MessageStatus, events: &[Event]) -> StoreResult<bool>;
    /// The agent's message with this id, on any activity: a status report's
    /// `biz_opaque_callback_data` names a reply this way.
    async fn find_by_id(&self, agent: &AgentId, id: &MessageId) -> StoreResult<Option<Message>>;
    /// Removes a message still `sending` (the platform refused it outright), in one transaction
    /// that undoes what its insert changed on the activity: `message_count` less one, and when it
    /// was the activity's `last_message`, the newest remaining message (or none) instead. The
    /// activity's `updated_at` (and its mirrors) go back to `activity_updated_at`, unless
    /// something moved them since the message's insert (they are no longer its `updated_at`).
    /// `false`, changing nothing, when the message is not the agent's or no longer `sending`.
    async fn remove_sending(&self, message: &Message, activity_updated_at: Timestamp) -> StoreResult<bool>;
    /// The activity's newest inbound message: the line a reply goes out through.
    async fn last_inbound(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Option<Message>>;
    /// The activity's outbound messages on `line` still `sent` or `delivered` and created at or
    /// before `up_to`, oldest first (`created_at`, then id), at most `limit`: what a contact's
    /// read receipt moves to `read`.
    async fn unread_outbound(
        &self,
        agent: &AgentId,
        activity: &ActivityId,
        line: &LineId,
        up_to: Timestamp,
        limit: u32,
    ) -> StoreResult<Vec<Message>>;
    /// Writes `deleted_at` and `updated_at` of the agent's message `message.id`, with `events`,
    /// only if it was not deleted yet; `false` (changing nothing) otherwise. Its content stays.
    async fn mark_deleted(&self, message: &Message, events: &[Event]) -> StoreResult<bool>;
    /// The agent's carts that the activity's messages carry, each once, newest cart first
    /// (`created_at` desc, then code desc); codes of no cart of the agent are left out.
    async fn carts(&self, agent: &AgentId, activity: &ActivityId) -> StoreResult<Vec<CartMention>>;
    /// How many of the agent's messages sent under campaign `key` carry each pricing, in any
    /// order, each pricing once; messages not priced yet are left out. Read by the campaign's
    /// summary, which sums the billed ones per category.
    async fn pricing_counts(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<Vec<(Pricing, u64)>>;
}

/// Reports how many products an import has written so far.
pub type ImportProgress = std::sync::Arc<dyn Fn(usize) + Send + Sync>;

/// An agent's catalog: products imported in bulk by `_id`, drafts kept but hidden from lists
/// and look-ups.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ProductRepository: Send + Sync {
    /// Upserts by `(agent, _id)` in ONE transaction: all products are written or none.
    /// Category facets are brought up to date in the same transaction, and the agent's catalog
    /// revision grows (see [`ProductVectorRepository`]). `vectors`, when given, holds one vector
    /// per product, stored with it; without them the products have no vector. Calls `progress`
    /// with the running count as batches are written.
    async fn import<'a>(
        &self,
        agent: &AgentId,
        products: &[Product],
        vectors: Option<&'a ImportVectors>,
        progress: ImportProgress,
    ) -> StoreResult<()>;
    /// `created_at` of every stored product of the agent, drafts included.
    async fn created_times(&self, agent: &AgentId) -> StoreResult<std::collections::HashMap<ProductId, Timestamp>>;
    /// Active products only, newest first (`created_at` desc, then `_id` desc), as their
    /// documents: exactly [`ProductDocument::of`] the product imported.
    async fn list(&self, agent: &AgentId, filter: &ProductFilter, page: PageRequest) -> StoreResult<Page<ProductDocument>>;
    /// An active product's document; drafts and other agents' products are `None`.
    async fn get(&self, agent: &AgentId, id: &ProductId) -> StoreResult<Option<ProductDocument>>;
    /// The active products among `ids`, in any order.
    async fn find_active(&self, agent: &AgentId, ids: &[ProductId]) -> StoreResult<Vec<Product>>;
    /// Every product, drafts included, by `_id`, starting after `after`: for export.
    async fn export_page(&self, agent: &AgentId, after: Option<ProductId>, limit: u32) -> StoreResult<Vec<Product>>;
    /// Category counts and the active total, from counts kept up to date by imports.
    async fn facets(&self, agent: &AgentId) -> StoreResult<CatalogFacets>;
}

/// Products' search vectors, and the catalog revisions that let every instance's in-memory index
/// follow changes made by any process.
///
/// Each agent has a catalog revision that every catalog write (import, vector store) raises by
/// one, stamping the products it wrote with the new value. Writes of one agent are serialized, so
/// once a revision is visible every product stamped with it or before it is visible too.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ProductVectorRepository: Send + Sync {
    /// Every agent that has a catalog, with its current revision.
    async fn revisions(&self) -> StoreResult<Vec<(AgentId, u64)>>;
    /// The agent's products (drafts included) stamped after `after`, ordered by revision then
    /// `_id`, at most `limit`. A change's vector is set only for an active product whose stored
    /// vector was made by `embedder`.
    async fn changes(&self, agent: &AgentId, embedder: &str, after: &ChangeCursor, limit: u32) -> StoreResult<Vec<VectorChange>>;
    /// The agent's products (drafts included) by `_id` after `after`, at most `limit`: those with
    /// no vector from `embedder`, or all of them when `all`.
    async fn needing_vectors<'a>(
        &self,
        agent: &AgentId,
        embedder: &str,
        after: Option<&'a ProductId>,
        limit: u32,
        all: bool,
    ) -> StoreResult<Vec<Product>>;
    /// Stores vectors made by `embedder` for existing products of the agent (unknown ids are
    /// ignored) in one transaction that raises the revision.
    async fn store_vectors(&self, agent: &AgentId, embedder: &str, vectors: &[(ProductId, Vec<f32>)]) -> StoreResult<()>;
    /// How many active products (of every agent) have no vector from `embedder`.
    async fn count_missing(&self, embedder: &str) -> StoreResult<u64>;
}

/// Carts: snapshots of products and quantities under a short code, written once and never
/// changed, even when the catalog changes.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait CartRepository: Send + Sync {
    /// MUST return `Conflict` when the code is taken (by any agent).
    async fn insert(&self, cart: &Cart, events: &[Event]) -> StoreResult<()>;
    /// The agent's cart, expired or not; another agent's cart is `None`.
    async fn get(&self, agent: &AgentId, code: &CartCode) -> StoreResult<Option<Cart>>;
}

/// Why the messaging platform did not take a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The platform refused it (a 4xx other than authentication), e.g. 131026 undeliverable or
    /// 132000 parameter count mismatch: `code` and `message` as the platform gave them,
    /// `details` from its `error_data.details`.
    #[error("the platform refused the message ({code:?}): {message}")]
    Rejected {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's `error_data.details`, when given.
        details: Option<String>,
    },
    /// The platform refused a free-form message because the customer service window is closed
    /// on its side: the same refusal as Parley's own check. Its code and words as given.
    #[error("the platform's messaging window is closed ({code:?}): {message}")]
    WindowClosed {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's details, when given.
        details: Option<String>,
    },
    /// The platform cannot deliver this message to this recipient (an authentication template
    /// to someone known only by a business-scoped user id). Its code and words as given.
    #[error("the platform cannot deliver this message to the recipient ({code:?}): {message}")]
    RecipientUnsupported {
        /// The platform's numeric error code, when it gave one.
        code: Option<i64>,
        /// The platform's explanation, as given.
        message: String,
        /// The platform's details, when given.
        details: Option<String>,
    },
    /// The line's token is invalid or expired (HTTP 401, error code 190).
    #[error("the platform refused the line's credentials: {message}")]
    Unauthorized {
        /// The platform's explanation, as given.
        message: String,
    },
    /// The platform failed or could not be reached (5xx, timeout, connection). For a send, the
    /// message may or may not have gone out.
    #[error("the platform is unavailable: {message}")]
    Unavailable {
        /// What failed: the status, the time-out or the connection error.
        message: String,
    },
}

impl PlatformError {
    /// Whether the platform refused (rather than failed or refused the credentials): the
    /// same request would be refused again.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::Rejected { .. } | Self::WindowClosed { .. } | Self::RecipientUnsupported { .. })
    }

    /// One line for records and logs: `131026: Message undeliverable (details)`, the shape the
    /// webhook path records too.
    pub fn reason(&self) -> String {
        match self {
            PlatformError::Rejected { code, message, details }
            | PlatformError::WindowClosed { code, message, details }
            | PlatformError::RecipientUnsupported { code, message, details } => {
                let code = code.map(|c| format!("{c}: ")).unwrap_or_default();
                let details = details.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
                format!("{code}{message}{details}")
            }
            PlatformError::Unauthorized { message } => format!("190: {message}"),
            PlatformError::Unavailable { message } => message.clone(),
        }
    }
}

/// The platform's receipt for an accepted message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentMessage {
    /// `pm.…`: every status webhook of the message names it.
    pub message_id: String,
    /// The recipient's WhatsApp id, when the platform reports it.
    pub wa_id: Option<String>,
}

/// The messaging platform (WhatsApp Business Cloud API) as seen from one line.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MessagingPlatform: Send + Sync {
    /// Every template of the line's business account, following the platform's paging.
    async fn templates(&self, line: &Line) -> Result<Vec<TemplateDefinition>, PlatformError>;
    /// Sends a template message from the line. `callback_data` (the campaign key) is echoed in
    /// every status webhook of the message. MUST NOT retry a request that may have reached the
    /// platform: a duplicate message is worse than a reported failure.
    async fn send_template<'a>(
        &self,
        line: &Line,
        message: &TemplateMessage,
        callback_data: Option<&'a str>,
    ) -> Result<SentMessage, PlatformError>;
    /// Sends a free-form message (a reply inside the 24-hour window) from the line. The same
    /// rule as for templates: never retried once it may have reached the platform.
    async fn send_message(&self, line: &Line, message: &FreeFormMessage) -> Result<SentMessage, PlatformError>;
    /// An inbound media file by the platform's media id: its URL looked up, then the file
    /// fetched with the line's token, streamed.
    async fn media(&self, line: &Line, media_id: &str) -> Result<MediaFile, PlatformError>;
    /// The name a contact shows on the line's platform, for a contact whose messages carry
    /// none (Instagram's): `None` when the platform has no such look-up or no name.
    async fn profile_name(&self, line: &Line, contact: &str) -> Result<Option<String>, PlatformError> {
        let _ = (line, contact);
        Ok(None)
    }
    /// Tells the contact the business read their messages (and, with `typing`, is writing),
    /// where the platform shows it: nothing on a platform without read receipts (email).
    async fn mark_read(&self, line: &Line, mark: &ReadMark) -> Result<(), PlatformError> {
        let _ = (line, mark);
        Ok(())
    }
}

/// A file Parley keeps for a message (an email's attachment), served by the media endpoint.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredFile {
    /// `att_…`, derived from the message it came in (see [`InboundFile`]).
    pub id: String,
    /// The agent whose file it is: ids are unique per agent, not across agents.
    pub agent_id: AgentId,
    /// The name the file came with, when it had one.
    pub filename: Option<String>,
    /// Its media type, as the message gave it (`application/pdf`).
    pub mime_type: String,
    /// The whole content, possibly empty.
    pub bytes: Vec<u8>,
    /// When the message that brought it was received.
    pub created_at: Timestamp,
}

impl std::fmt::Debug for StoredFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredFile")
            .field("id", &self.id)
            .field("agent_id", &self.agent_id)
            .field("filename", &self.filename)
            .field("mime_type", &self.mime_type)
            .field("size", &self.bytes.len())
            .finish()
    }
}

/// The files Parley keeps: written once, never changed.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait FileRepository: Send + Sync {
    /// Keeps `file` once: MUST do nothing when the agent already has a file with its id (a
    /// delivery processed again).
    async fn put(&self, file: &StoredFile) -> StoreResult<()>;
    /// The agent's file `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &str) -> StoreResult<Option<StoredFile>>;
}

/// The mailboxes of email lines, read in bounded batches after a position.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MailboxReader: Send + Sync {
    /// The line's new mail after `after` (all of it when `None`, or when the mailbox's epoch
    /// changed), at most `limit` messages. `Unavailable` for what may pass (the server down),
    /// `Unauthorized` for a refused login, `Rejected` for a line it cannot read.
    async fn read_after(&self, line: &Line, after: Option<MailboxPosition>, limit: u32) -> Result<MailBatch, PlatformError>;
}

/// Where each polled mailbox's reader is, and which instance reads it now: one reader per
/// mailbox across instances, by a lease its holder renews as it advances.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MailboxCursorRepository: Send + Sync {
    /// Takes the line's mailbox for `holder` until `until` when no one holds it, the lease ran
    /// out (`now`), or `holder` already does; returns its position (the default for one never
    /// read), or `None` when another holder has it.
    async fn claim(&self, line: &LineId, holder: &str, now: Timestamp, until: Timestamp) -> StoreResult<Option<MailboxPosition>>;
    /// Moves the position and renews the lease, only while `holder` holds it; `false` when it
    /// does not (the lease ran out and another took it).
    async fn advance(&self, line: &LineId, holder: &str, to: MailboxPosition, until: Timestamp) -> StoreResult<bool>;
    /// Lets the mailbox go, if `holder` holds it.
    async fn release(&self, line: &LineId, holder: &str) -> StoreResult<()>;
}

/// Reads one platform's webhook bodies into Parley's terms: the platform's wire format stays in
/// its adapter. Pure (no I/O), deterministic, and lenient: a part of unexpected shape is skipped
/// or set aside with why, never an error for the rest.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait InboundDecoder: Send + Sync {
    /// What `body` tells about each line it names. `Err` only when it is not a body of the
    /// platform's webhook at all (then no attempt could ever read it).
    fn decode(&self, body: &str) -> Result<Vec<LineNews>, String>;
}

/// A media file as the platform serves it.
pub struct MediaFile {
    /// Always usable as a `Content-Type`: an unusable type from the platform is
    /// `application/octet-stream`.
    pub mime_type: crate::model::MediaType,
    /// In bytes, when the platform says.
    pub length: Option<u64>,
    /// The file's bytes, in chunks as they arrive; an `Err` ends the stream (the download failed
    /// part way).
    pub body: futures_util::stream::BoxStream<'static, Result<Vec<u8>, PlatformError>>,
}

impl std::fmt::Debug for MediaFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MediaFile").field("mime_type", &self.mime_type).field("length", &self.length).finish_non_exhaustive()
    }
}

/// Lines: an agent's accounts on a messaging platform (or mailboxes), through which its
/// messages come and go.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait LineRepository: Send + Sync {
    /// MUST return `Conflict` when the account is already a line (of any agent) of the same
    /// channel type: webhooks find a line by it.
    async fn insert(&self, line: &Line) -> StoreResult<()>;
    /// The agent's line `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &LineId) -> StoreResult<Option<Line>>;
    /// The line `id` of whichever agent: for a platform that names the line in its request
    /// and proves it with the line's own secret (email forwarders).
    async fn find(&self, id: &LineId) -> StoreResult<Option<Line>>;
    /// The agent's lines, oldest first (then id).
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Line>>;
    /// Every line of every agent, oldest first: for periodic template sync.
    async fn all(&self) -> StoreResult<Vec<Line>>;
    /// The line of `channel_type` whose platform account is `account_id`
    /// ([`LineAccount::account_id`](crate::model::LineAccount::account_id)), of any agent.
    async fn find_by_account(&self, channel_type: ChannelType, account_id: &str) -> StoreResult<Option<Line>>;
}

/// Message templates, as the platform lists them for each line's business account, kept up to
/// date by template sync.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait TemplateRepository: Send + Sync {
    /// Makes the line's stored templates exactly `templates` (the platform's current list), in one
    /// transaction: new ones get `created_at = at`, known ones keep theirs, missing ones go.
    async fn replace_for_line(&self, line: &Line, templates: &[TemplateDefinition], at: Timestamp, events: &[Event]) -> StoreResult<()>;
    /// All the agent's templates, by name, then language, then line's age, then line id.
    async fn list(&self, agent: &AgentId) -> StoreResult<Vec<Template>>;
    /// One line's templates, by name, then language.
    async fn list_for_line(&self, agent: &AgentId, line: &LineId) -> StoreResult<Vec<Template>>;
    /// A template by the platform's id; when lines share a business account, the copy on the
    /// agent's oldest line.
    async fn get(&self, agent: &AgentId, id: &TemplateId) -> StoreResult<Option<Template>>;
}

/// Executions: one record per template message sent under a campaign key, following the
/// message's delivery status.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait ExecutionRepository: Send + Sync {
    /// Stores a new execution. MUST return `Conflict` when the agent already has an execution with
    /// the same platform message id; executions without one (refused sends) never clash.
    async fn insert(&self, execution: &Execution) -> StoreResult<()>;
    /// The agent's execution for the platform message id `message_id` (`pm.…`): how a status
    /// report finds the send it is about.
    async fn find_by_message(&self, agent: &AgentId, message_id: &str) -> StoreResult<Option<Execution>>;
    /// Writes `execution` only if the stored status is still `expected` (compare-and-set, so
    /// concurrent webhook processors never lose an update); `false` otherwise.
    async fn update(&self, execution: &Execution, expected: ExecutionStatus, events: &[Event]) -> StoreResult<bool>;
    /// The key's executions changed after `since`, by `updated_at` then id, at most `limit`.
    async fn list(&self, agent: &AgentId, key: &CampaignKey, since: Option<Timestamp>, limit: u32) -> StoreResult<Vec<Execution>>;
    /// Whether the agent ever sent under `key`.
    async fn key_exists(&self, agent: &AgentId, key: &CampaignKey) -> StoreResult<bool>;
}

/// Idempotency keys: a request repeated with the same key (per agent) gets the first one's
/// answer instead of running again.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait IdempotencyRepository: Send + Sync {
    /// Claims `key` for the agent with the request's fingerprint, atomically. A record older
    /// than `expired_before` is forgotten first, so the key is free again.
    async fn claim(
        &self,
        agent: &AgentId,
        key: &str,
        fingerprint: &str,
        at: Timestamp,
        expired_before: Timestamp,
    ) -> StoreResult<IdempotencyClaim>;
    /// Records the answer of the request that claimed `key`.
    async fn complete(&self, agent: &AgentId, key: &str, response: &IdempotentResponse) -> StoreResult<()>;
    /// Attaches a recovery point to the agent's claimed `key`: the id of what the request
    /// recorded (a reply's message), so a retry after the request was cut can answer it. A later
    /// call replaces it; an unknown key changes nothing.
    async fn set_recovery_point(&self, agent: &AgentId, key: &str, resource: &str) -> StoreResult<()>;
    /// The recovery point attached to the agent's `key`, if any.
    async fn recovery_point(&self, agent: &AgentId, key: &str) -> StoreResult<Option<String>>;
}

/// The messaging platforms' webhook deliveries, stored as received and processed afterwards,
/// with retries, so none is lost. Not scoped by agent: a delivery names lines, not agents.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait InboundDeliveryRepository: Send + Sync {
    /// Stores an event as received, to be processed (`next_attempt_at = received_at`).
    async fn insert(&self, event: &InboundDelivery) -> StoreResult<()>;
    /// Unprocessed events due by `now`, oldest first, at most `limit`.
    async fn due(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Takes up to `limit` events due by `now`, oldest first, for one processor until `until`
    /// (their next attempt moves there), in one write, and returns them as they are now.
    /// Several `parley serve` processes share the table and each event must be processed by
    /// one: events another processor holds (claimed, or being claimed at this moment) are
    /// skipped, never waited for. A processor that crashes leaves its events due again at `until`.
    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Hands back events claimed until `until` and not started: due again at `at`. Events no
    /// longer held by that claim (processed, or claimed again after it ran out) are left alone.
    async fn release(&self, ids: &[String], until: Timestamp, at: Timestamp) -> StoreResult<()>;
    /// Marks events processed, in one write, with nothing set aside (clearing what an earlier
    /// processing set aside).
    async fn mark_processed(&self, ids: &[String], at: Timestamp) -> StoreResult<()>;
    /// Marks one event processed with the parts it set aside (`set_aside`, kept whole and in
    /// order, replacing any earlier list): listed by [`failed`](Self::failed) and put back by
    /// [`retry`](Self::retry) until a processing sets nothing aside.
    async fn mark_set_aside(&self, id: &str, set_aside: &[SetAside], at: Timestamp) -> StoreResult<()>;
    /// Records a failed attempt and when to try again.
    async fn mark_failed(&self, id: &str, error: &str, next_attempt_at: Timestamp) -> StoreResult<()>;
    /// Records a failed attempt as the last one: the event gets `failed_at = at`, no next
    /// attempt (never due again, out of the backlog) until [`retry`](Self::retry) puts it back.
    async fn give_up(&self, id: &str, error: &str, at: Timestamp) -> StoreResult<()>;
    /// Unprocessed events that failed at least once (waiting for a retry, or given up), and
    /// events with parts set aside, oldest first: for operators.
    async fn failed(&self, limit: u32) -> StoreResult<Vec<InboundDelivery>>;
    /// Puts a given-up event, or a processed one with parts set aside, back to be processed:
    /// due at `now`, attempts counted from zero again, `failed_at` and `processed_at` cleared
    /// (`last_error` and `set_aside` kept until the next processing). False when `id` is
    /// neither (unknown, processed whole, or still being retried).
    async fn retry(&self, id: &str, now: Timestamp) -> StoreResult<bool>;
    /// [`retry`](Self::retry) for every given-up event; returns how many.
    async fn retry_all(&self, now: Timestamp) -> StoreResult<u64>;
    /// How many events are stored and not processed yet (due now, waiting for a retry, or
    /// stored while processing is off): the backlog, for metrics. Given-up events are not in it.
    async fn backlog(&self) -> StoreResult<u64>;
    /// How many events were given up on and wait for an operator: for metrics.
    async fn given_up(&self) -> StoreResult<u64>;
}

/// Why texts could not be embedded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// The embedding service failed or could not be reached (remote embedders).
    #[error("the embedder is unavailable: {0}")]
    Unavailable(String),
    #[error("the embedder failed: {0}")]
    /// The embedder ran and could not embed the texts (a model error, an unusable answer):
    /// trying again will not help.
    Failed(String),
}

/// Turns texts into unit-length vectors whose dot product is their cosine similarity.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Names the model and its version (e.g. `static-minilm-l6-v2@1`). Stored vectors record it,
    /// so a change of embedder is detected and the catalog re-embedded.
    fn identity(&self) -> String;
    /// Length of every vector this embedder returns.
    fn dimensions(&self) -> usize;
    /// One L2-normalized vector per text, in order.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// Exact nearest-neighbour search over unit vectors, one collection per agent, in memory.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
pub trait VectorIndex: Send + Sync {
    /// Adds or replaces the vectors (and the facets filters match) of some of an agent's
    /// products. Every vector MUST have the index's dimensions.
    fn upsert(&self, agent: &AgentId, items: &[(ProductId, Searchable)]);
    /// Forgets some of an agent's products; unknown ids are ignored.
    fn remove(&self, agent: &AgentId, ids: &[ProductId]);
    /// The `k` products of the agent that match `filter` most similar to `query` (cosine
    /// similarity, as vectors are unit length), best first; equal scores by product id. Exact:
    /// fewer than `k` only when fewer match. Never another agent's products.
    fn top_k(&self, agent: &AgentId, query: &[f32], k: usize, filter: &ProductFilter) -> Vec<(ProductId, f32)>;
    /// How many vectors the agent has.
    fn len(&self, agent: &AgentId) -> usize;
}

/// A storage connection pool right now, for metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStatus {
    /// The most connections the pool opens.
    pub max_size: usize,
    /// Connections open now, in use or idle.
    pub size: usize,
    /// Idle connections ready to be handed out.
    pub available: usize,
    /// Requests waiting for a connection.
    pub waiting: usize,
}

/// Whether storage can serve requests right now (for readiness probes and metrics).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait StorageHealth: Send + Sync {
    /// `Unavailable` when the database cannot be reached.
    async fn check(&self) -> StoreResult<()>;
    /// `"sqlite"` or `"postgres"`.
    fn backend(&self) -> &'static str;
    /// The connection pool's state (no I/O).
    fn pool(&self) -> PoolStatus;
}

/// Host names to addresses, for the webhook endpoints' address rules: checked when an endpoint
/// is created or changed, and again at each delivery (DNS can change).
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait AddressResolver: Send + Sync {
    /// Every address `host` resolves to, or why it does not resolve.
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<std::net::IpAddr>, String>;
}

/// Webhook endpoints, each agent's own.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookEndpointRepository: Send + Sync {
    /// Stores a new endpoint unless its agent already has `max_per_agent` (`false`, nothing
    /// written). The count and the insert are one step: concurrent creations never pass the
    /// limit together.
    async fn insert(&self, endpoint: &WebhookEndpoint, max_per_agent: u32) -> StoreResult<bool>;
    /// The agent's endpoint `id`; another agent's is `None`.
    async fn get(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<Option<WebhookEndpoint>>;
    /// Newest first (`created_at` desc, then id desc), with the agent's total.
    async fn list(&self, agent: &AgentId, page: PageRequest) -> StoreResult<Page<WebhookEndpoint>>;
    /// Replaces url, events, description, secrets, `disabled`, `failing_since`,
    /// `paused_until` and `updated_at`;
    /// `false` when the agent has no such endpoint.
    async fn update(&self, endpoint: &WebhookEndpoint) -> StoreResult<bool>;
    /// Removes it with its deliveries; `false` when the agent has no such endpoint.
    async fn delete(&self, agent: &AgentId, id: &EndpointId) -> StoreResult<bool>;
}

/// Events, kept 30 days, each agent's own.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait EventRepository: Send + Sync {
    /// Stores `event` with a delivery, due now, for each of its agent's enabled endpoints
    /// subscribed to its type (to `only` alone when given, enabled or not: a test ping).
    async fn emit<'a>(&self, event: &Event, only: Option<&'a EndpointId>) -> StoreResult<()>;
    /// The agent's event `id`; another agent's, or one deleted after 30 days, is `None`.
    async fn get(&self, agent: &AgentId, id: &EventId) -> StoreResult<Option<Event>>;
    /// Newest first (`created_at` desc, then id desc), with the total of those matching.
    async fn list(&self, agent: &AgentId, filter: &EventFilter, page: PageRequest) -> StoreResult<Page<Event>>;
    /// Up to `limit` deliveries due by `now`, oldest event first, each claimed until `until`:
    /// no other claim takes it before then (several processes share the work), and one whose
    /// claimant died is due again after it.
    /// Deliveries to disabled endpoints wait, unclaimed, until the endpoint is enabled again.
    async fn claim_due(&self, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>>;
    /// [`claim_due`](Self::claim_due) of one endpoint's deliveries; the endpoint counts as
    /// served at `now` (see [`due_endpoints`](Self::due_endpoints)), whatever was claimed.
    async fn claim_due_for(&self, endpoint: &EndpointId, now: Timestamp, until: Timestamp, limit: u32) -> StoreResult<Vec<DueDelivery>>;
    /// Up to `limit` enabled endpoints (of any agent) with deliveries due by `now`, whose
    /// breaker is not open at `now` (`paused_until` unset or passed): the least recently served
    /// first (by the time of their last [`claim_due_for`](Self::claim_due_for), never served
    /// first, then by id), so every endpoint with work comes round however many others have
    /// work too. A worker claims each one's share, so a slow endpoint's backlog never stands
    /// before the others'.
    async fn due_endpoints(&self, now: Timestamp, limit: u32) -> StoreResult<Vec<DueEndpoint>>;
    /// Records a try of a delivery claimed until `until`, in one transaction: the attempt,
    /// the delivery's count and next try (none once delivered or given up), and `after` on
    /// the endpoint (`Healthy` clears `failing_since` and `paused_until`; `Pause` sets
    /// `paused_until`). Returns `false`, writing nothing, when that claim no longer holds the
    /// delivery (its lease ran out and another process took it).
    async fn record_attempt(&self, attempt: &DeliveryAttempt, until: Timestamp, after: EndpointAfterAttempt) -> StoreResult<bool>;
    /// The endpoint's attempts, newest first (`attempted_at` desc, then event id, then
    /// attempt desc), with its total. MUST return `NotFound` when the endpoint is not the agent's.
    async fn attempts(&self, agent: &AgentId, endpoint: &EndpointId, page: PageRequest) -> StoreResult<Page<DeliveryAttempt>>;
    /// Makes the event due to the endpoint at `now`, whether it was delivered, given up,
    /// still retrying or never sent there; its attempts keep counting. `false` when the agent
    /// has no such event or no such endpoint.
    async fn redeliver(&self, agent: &AgentId, event: &EventId, endpoint: &EndpointId, now: Timestamp) -> StoreResult<bool>;
    /// Deletes events created before `before`, with their deliveries and attempts, at most
    /// `limit` events per call (retention runs in short transactions); returns how many.
    async fn delete_before(&self, before: Timestamp, limit: u32) -> StoreResult<u64>;
    /// Deliveries waiting for a try (due, retrying or claimed), across agents: for metrics.
    async fn backlog(&self) -> StoreResult<u64>;
}

/// A delivery as it goes on the wire: POSTed to `url` with `Content-Type: application/json`
/// and the Standard Webhooks headers.
#[derive(Debug, Clone)]
pub struct OutgoingDelivery<'a> {
    /// The endpoint's URL.
    pub url: &'a EndpointUrl,
    /// `webhook-id`: the event id.
    pub id: &'a str,
    /// `webhook-timestamp`: unix seconds of this attempt.
    pub timestamp: i64,
    /// `webhook-signature`.
    pub signature: String,
    /// The event as JSON: the exact bytes signed.
    pub body: &'a str,
}

/// How a receiver answered a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReceiverAnswer {
    /// It answered with this status (any: 2xx is success, the caller decides).
    Status(u16),
    /// It never answered: the address was refused, the connection failed, or the time ran out.
    NoAnswer(String),
}

/// Sends deliveries to webhook endpoints over HTTP: one POST, a bounded wait, no redirects
/// followed, and a host name's addresses checked against the address rules at each send
/// (unless private addresses are allowed), since DNS can change after an endpoint was made.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// POSTs the delivery once and tells how the receiver answered; never retries, and every
    /// failure to reach the receiver is a [`ReceiverAnswer::NoAnswer`].
    async fn send<'a>(&self, delivery: &OutgoingDelivery<'a>) -> ReceiverAnswer;
}

// Every write that changes what the API shows takes `events`: the events that report the change
// (docs/events.md, "The outbox"), written in the same transaction only when the write takes
// effect (not for a duplicate message, a lost compare-and-set, a tag already attached), so a
// change and its events commit together or not at all.

/// Every repository port, as one storage backend provides them.
#[derive(Clone)]
pub struct Repositories {
    /// The tenants.
    pub agents: std::sync::Arc<dyn AgentRepository>,
    /// API keys, by hash.
    pub keys: std::sync::Arc<dyn ApiKeyRepository>,
    /// Tags that label activities, unique by name per agent.
    pub tags: std::sync::Arc<dyn TagRepository>,
    /// Saved answers, unique by short code per agent.
    pub canned_responses: std::sync::Arc<dyn CannedResponseRepository>,
    /// Contacts and their channels.
    pub contacts: std::sync::Arc<dyn ContactRepository>,
    /// Conversations.
    pub activities: std::sync::Arc<dyn ActivityRepository>,
    /// The messages and notes of activities' timelines.
    pub messages: std::sync::Arc<dyn MessageRepository>,
    /// Each agent's catalog, imported in bulk.
    pub products: std::sync::Arc<dyn ProductRepository>,
    /// The catalog's search vectors and revisions.
    pub vectors: std::sync::Arc<dyn ProductVectorRepository>,
    /// Carts, written once under codes unique across agents.
    pub carts: std::sync::Arc<dyn CartRepository>,
    /// Messaging platform accounts and mailboxes.
    pub lines: std::sync::Arc<dyn LineRepository>,
    /// Message templates of each line.
    pub templates: std::sync::Arc<dyn TemplateRepository>,
    /// Template sends and their delivery status.
    pub executions: std::sync::Arc<dyn ExecutionRepository>,
    /// Idempotency keys and their answers.
    pub idempotency: std::sync::Arc<dyn IdempotencyRepository>,
    /// The platforms' webhook deliveries, inbound.
    pub inbound: std::sync::Arc<dyn InboundDeliveryRepository>,
    /// The agents' webhook endpoints, outbound.
    pub webhook_endpoints: std::sync::Arc<dyn WebhookEndpointRepository>,
    /// Events and their deliveries to endpoints.
    pub events: std::sync::Arc<dyn EventRepository>,
    /// Files kept for messages.
    pub files: std::sync::Arc<dyn FileRepository>,
    /// Mailbox readers' positions and leases.
    pub mailboxes: std::sync::Arc<dyn MailboxCursorRepository>,
    /// Whether the database answers, and its pool.
    pub health: std::sync::Arc<dyn StorageHealth>,
}
