//! `ProductVectorRepository`: products' search vectors and each agent's catalog revision, which
//! every catalog write raises and stamps on the products it writes, so a reader of changes
//! (`changes`) sees each product once, at its latest revision.

use async_trait::async_trait;
use parley_domain::model::*;
use parley_domain::ports::{ProductVectorRepository, StoreResult};

use crate::store::{MemoryStore, StoredProduct};

/// The product as a search index keeps it, when it is to be found: active, with a vector made by
/// `embedder`.
fn searchable(p: &StoredProduct, embedder: &str) -> Option<Searchable> {
    let (made_by, vector) = p.vector.as_ref()?;
    (p.product.is_active() && made_by == embedder).then(|| Searchable {
        vector: vector.clone(),
        kind: p.product.kind,
        category_tags: p.product.category_tags.clone(),
    })
}

/// Whether the product has no vector from `embedder`.
fn missing(p: &StoredProduct, embedder: &str) -> bool {
    p.vector.as_ref().is_none_or(|(made_by, _)| made_by != embedder)
}

#[async_trait]
impl ProductVectorRepository for MemoryStore {
    async fn revisions(&self) -> StoreResult<Vec<(AgentId, u64)>> {
        Ok(self.with(|s| s.catalog_revisions.iter().map(|(agent, revision)| (agent.clone(), *revision)).collect()))
    }

    async fn changes(&self, agent: &AgentId, embedder: &str, after: &ChangeCursor, limit: u32) -> StoreResult<Vec<VectorChange>> {
        let mut changed: Vec<VectorChange> = self.with(|s| {
            s.catalog(agent)
                .filter(|p| match &after.product {
                    Some(id) => p.revision > after.revision || (p.revision == after.revision && p.product.id > *id),
                    None => p.revision > after.revision,
                })
                .map(|p| VectorChange { product: p.product.id.clone(), revision: p.revision, searchable: searchable(p, embedder) })
                .collect()
        });
        changed.sort_by(|x, y| (x.revision, &x.product).cmp(&(y.revision, &y.product)));
        changed.truncate(limit as usize);
        Ok(changed)
    }

    async fn needing_vectors<'a>(
        &self,
        agent: &AgentId,
        embedder: &str,
        after: Option<&'a ProductId>,
        limit: u32,
        all: bool,
    ) -> StoreResult<Vec<Product>> {
        // The agent's range of the map is in `_id` order already.
        Ok(self.with(|s| {
            s.catalog(agent)
                .filter(|p| after.is_none_or(|after| p.product.id > *after))
                .filter(|p| all || missing(p, embedder))
                .take(limit as usize)
                .map(|p| p.product.clone())
                .collect()
        }))
    }

    async fn store_vectors(&self, agent: &AgentId, embedder: &str, vectors: &[(ProductId, Vec<f32>)]) -> StoreResult<()> {
        if vectors.is_empty() {
            return Ok(());
        }
        self.with(|s| {
            s.require_agent(agent)?;
            let revision = s.next_revision(agent);
            for (id, vector) in vectors {
                // Unknown ids, another agent's included, are ignored.
                if let Some(p) = s.products.get_mut(&(agent.clone(), id.clone())) {
                    p.vector = Some((embedder.to_string(), vector.clone()));
                    p.revision = revision;
                }
            }
            Ok(())
        })
    }

    async fn count_missing(&self, embedder: &str) -> StoreResult<u64> {
        Ok(self.with(|s| s.products.values().filter(|p| p.product.is_active() && missing(p, embedder)).count() as u64))
    }
}
