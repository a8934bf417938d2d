//! This feature's ports (re-exported by [`crate::ports`]).

use async_trait::async_trait;

use crate::model::*;
use crate::ports::StoreResult;

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
