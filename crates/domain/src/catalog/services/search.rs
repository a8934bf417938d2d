//! Semantic product search: embedding products and queries, and keeping this process's vector
//! index in step with the catalog that every process writes.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::lock::Mutex;

use crate::DomainError;
use crate::model::*;
use crate::ports::{Embedder, ProductRepository, ProductVectorRepository, VectorIndex};

/// Texts per embedder call: large enough to amortize a remote round trip, small enough that
/// progress moves often.
const EMBED_BATCH: usize = 64;
/// Changes read per storage round trip while refreshing the index.
const REFRESH_PAGE: u32 = 2_000;
/// Products re-embedded per transaction by a reindex.
const REINDEX_PAGE: u32 = 500;
/// Extra candidates taken from the index, so that a product turned into a draft by another
/// process (and not yet dropped from this index) does not shorten the answer.
const CANDIDATE_SLACK: usize = 10;

/// What one refresh of the index did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// Agents whose catalog had changed.
    pub agents: usize,
    /// Vectors added or replaced.
    pub upserted: usize,
    /// Products dropped from the index (drafts, or no vector from the current embedder).
    pub removed: usize,
}

/// Semantic product search for every agent: embeds products and queries through the
/// configured embedder, and answers from this process's vector index, refreshed from storage.
pub struct SearchService {
    products: Arc<dyn ProductRepository>,
    vectors: Arc<dyn ProductVectorRepository>,
    embedder: Arc<dyn Embedder>,
    index: Arc<dyn VectorIndex>,
    /// How far each agent's catalog changes have been applied to the index. Held for a whole
    /// refresh, so two refreshes never apply changes out of order.
    cursors: Mutex<HashMap<AgentId, ChangeCursor>>,
}

impl SearchService {
    /// A service over these ports. Nothing is read yet: the first [`refresh`](Self::refresh)
    /// loads every agent's catalog into `index`.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        vectors: Arc<dyn ProductVectorRepository>,
        embedder: Arc<dyn Embedder>,
        index: Arc<dyn VectorIndex>,
    ) -> Self {
        Self { products, vectors, embedder, index, cursors: Mutex::new(HashMap::new()) }
    }

    /// The configured embedder's identity, as stored beside the vectors it makes.
    pub fn embedder(&self) -> String {
        self.embedder.identity()
    }

    /// The agent's active products closest in meaning to the request's `q` among those that
    /// match its filter, best first. `Validation` names every bad field of the request;
    /// `EmbedderFailed` when the query cannot be embedded.
    pub async fn search(&self, agent: &AgentId, request: SearchRequest<'_>) -> Result<Vec<SearchHit>, DomainError> {
        let query = SearchQuery::parse(request).map_err(DomainError::Validation)?;
        let vector = self.embed_texts(vec![query.text().to_string()]).await?.pop().ok_or_else(|| wrong_count(1, 0))?;
        let limit = query.limit() as usize;
        let ranked = self.index.top_k(agent, &vector, limit + CANDIDATE_SLACK, query.filter());
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<ProductId> = ranked.iter().map(|(id, _)| id.clone()).collect();
        let mut active: HashMap<ProductId, Product> =
            self.products.find_active(agent, &ids).await?.into_iter().map(|p| (p.id.clone(), p)).collect();
        Ok(ranked
            .into_iter()
            .filter_map(|(id, score)| active.remove(&id).map(|product| SearchHit { product, score }))
            .take(limit)
            .collect())
    }

    /// One vector per product (of its [`Product::search_text`]), in order, embedded in batches;
    /// `progress` gets the running count.
    pub async fn embed_products(
        &self,
        products: &[Product],
        progress: &(dyn Fn(usize) + Send + Sync),
    ) -> Result<ImportVectors, DomainError> {
        let mut vectors = Vec::with_capacity(products.len());
        for batch in products.chunks(EMBED_BATCH) {
            vectors.extend(self.embed_texts(batch.iter().map(Product::search_text).collect()).await?);
            progress(vectors.len());
        }
        Ok(ImportVectors { embedder: self.embedder.identity(), vectors })
    }

    async fn embed_texts(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, DomainError> {
        let vectors = self.embedder.embed(&texts).await.map_err(|e| DomainError::EmbedderFailed(crate::Cause::new(e)))?;
        let dimensions = self.embedder.dimensions();
        if vectors.len() != texts.len() {
            return Err(wrong_count(texts.len(), vectors.len()));
        }
        if let Some(bad) = vectors.iter().find(|v| v.len() != dimensions) {
            return Err(DomainError::Internal(
                format!("the embedder returned a vector of {} dimensions, not {dimensions}", bad.len()).into(),
            ));
        }
        Ok(vectors)
    }

    /// Brings the index up to date with every agent's catalog changes since the last refresh
    /// (at start, everything). Cheap when nothing changed: one read of the revisions.
    pub async fn refresh(&self) -> Result<RefreshReport, DomainError> {
        let mut cursors = self.cursors.lock().await;
        let embedder = self.embedder.identity();
        let mut report = RefreshReport::default();
        for (agent, revision) in self.vectors.revisions().await? {
            let cursor = cursors.entry(agent.clone()).or_default();
            if revision <= cursor.revision {
                continue;
            }
            report.agents += 1;
            loop {
                let changes = self.vectors.changes(&agent, &embedder, cursor, REFRESH_PAGE).await?;
                let Some(last) = changes.last() else { break };
                *cursor = ChangeCursor { revision: last.revision, product: Some(last.product.clone()) };
                let full_page = changes.len() == REFRESH_PAGE as usize;
                let (mut upserts, mut removals) = (Vec::new(), Vec::new());
                for change in changes {
                    match change.searchable {
                        Some(searchable) => upserts.push((change.product, searchable)),
                        None => removals.push(change.product),
                    }
                }
                report.upserted += upserts.len();
                report.removed += removals.len();
                self.index.upsert(&agent, &upserts);
                self.index.remove(&agent, &removals);
                if !full_page {
                    break;
                }
            }
            // Writes of one agent are serialized: once `revision` is visible, all before it are.
            *cursor = ChangeCursor { revision: revision.max(cursor.revision), product: None };
        }
        Ok(report)
    }

    /// How many active products have no vector from the configured embedder (they cannot be
    /// found until `reindex` embeds them).
    pub async fn missing_vectors(&self) -> Result<u64, DomainError> {
        Ok(self.vectors.count_missing(&self.embedder.identity()).await?)
    }

    /// Embeds the products of `agent` (every agent with a catalog when `None`) that have no
    /// vector from the configured embedder, or all of them when `all`. Each page is stored in its
    /// own transaction, so an interrupted reindex keeps what it did. Returns how many it embedded.
    pub async fn reindex(
        &self,
        agent: Option<&AgentId>,
        all: bool,
        progress: &(dyn Fn(usize) + Send + Sync),
    ) -> Result<usize, DomainError> {
        let agents = match agent {
            Some(a) => vec![a.clone()],
            None => self.vectors.revisions().await?.into_iter().map(|(a, _)| a).collect(),
        };
        let embedder = self.embedder.identity();
        let mut done = 0;
        for agent in agents {
            let mut after: Option<ProductId> = None;
            loop {
                let page = self.vectors.needing_vectors(&agent, &embedder, after.as_ref(), REINDEX_PAGE, all).await?;
                let Some(last) = page.last() else { break };
                after = Some(last.id.clone());
                let vectors = self.embed_products(&page, &|_| {}).await?.vectors;
                let items: Vec<(ProductId, Vec<f32>)> = page.iter().map(|p| p.id.clone()).zip(vectors).collect();
                self.vectors.store_vectors(&agent, &embedder, &items).await?;
                done += items.len();
                progress(done);
            }
        }
        Ok(done)
    }
}

fn wrong_count(asked: usize, got: usize) -> DomainError {
    DomainError::Internal(format!("the embedder returned {got} vectors for {asked} texts").into())
}

#[cfg(test)]
mod tests;
