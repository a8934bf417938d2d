//! `ProductRepository`: each agent's catalog, written by imports only. An import is one write
//! (all its products or none) that raises the agent's catalog revision (see `vectors.rs`); pages
//! and gets hand back the documents stored with the products ([`ProductDocument::of`]).

use std::collections::HashMap;

use async_trait::async_trait;
use parley_domain::StoreError;
use parley_domain::model::*;
use parley_domain::ports::{ImportProgress, ProductRepository, StoreResult};

use crate::store::{MemoryStore, State, StoredProduct, page_of};

/// How many products the databases write per batch, and so how often an import reports progress.
const IMPORT_BATCH: usize = 500;

impl State {
    /// The agent's products, drafts included, in no particular order.
    pub(crate) fn catalog<'s>(&'s self, agent: &'s AgentId) -> impl Iterator<Item = &'s StoredProduct> + 's {
        self.products.iter().filter(move |((owner, _), _)| owner == agent).map(|(_, p)| p)
    }

    /// Raises the agent's catalog revision by one and returns it: every catalog write does.
    pub(crate) fn next_revision(&mut self, agent: &AgentId) -> u64 {
        let revision = self.catalog_revisions.entry(agent.clone()).or_insert(0);
        *revision += 1;
        *revision
    }
}

/// Whether an active product passes the list's filter: a category tag matched exactly, a kind.
fn listed(product: &Product, filter: &ProductFilter) -> bool {
    product.is_active()
        && filter.kind.is_none_or(|kind| kind == product.kind)
        && filter.tag.as_ref().is_none_or(|tag| product.category_tags.contains(tag))
}

#[async_trait]
impl ProductRepository for MemoryStore {
    async fn import<'a>(
        &self,
        agent: &AgentId,
        products: &[Product],
        vectors: Option<&'a ImportVectors>,
        progress: ImportProgress,
    ) -> StoreResult<()> {
        if let Some(v) = vectors
            && v.vectors.len() != products.len()
        {
            return Err(StoreError::Internal(format!("{} vectors for {} products", v.vectors.len(), products.len()).into()));
        }
        self.with(|s| {
            s.require_agent(agent)?;
            let revision = s.next_revision(agent);
            for (i, product) in products.iter().enumerate() {
                let vector = vectors.map(|v| (v.embedder.clone(), v.vectors[i].clone()));
                // The agent written to is the product's, as its row's `agent_id` column is.
                let product = Product { agent_id: agent.clone(), ..product.clone() };
                let key = (agent.clone(), product.id.clone());
                s.products.insert(key, StoredProduct { document: ProductDocument::of(&product), product, revision, vector });
            }
            Ok::<_, StoreError>(())
        })?;
        // The running count batch by batch, as the databases report it; once the lock is let go,
        // so a callback that reads the store cannot deadlock.
        let mut written = 0;
        while written < products.len() {
            written = (written + IMPORT_BATCH).min(products.len());
            progress(written);
        }
        Ok(())
    }

    async fn created_times(&self, agent: &AgentId) -> StoreResult<HashMap<ProductId, Timestamp>> {
        Ok(self.with(|s| s.catalog(agent).map(|p| (p.product.id.clone(), p.product.created_at)).collect()))
    }

    async fn list(&self, agent: &AgentId, filter: &ProductFilter, page: PageRequest) -> StoreResult<Page<ProductDocument>> {
        let mut matching: Vec<(Timestamp, ProductId, ProductDocument)> = self.with(|s| {
            s.catalog(agent)
                .filter(|p| listed(&p.product, filter))
                .map(|p| (p.product.created_at, p.product.id.clone(), p.document.clone()))
                .collect()
        });
        // Newest first, then `_id` descending.
        matching.sort_by(|x, y| (y.0, &y.1).cmp(&(x.0, &x.1)));
        Ok(page_of(matching, page).map(|(_, _, document)| document))
    }

    async fn get(&self, agent: &AgentId, id: &ProductId) -> StoreResult<Option<ProductDocument>> {
        Ok(self.with(|s| {
            let stored = s.products.get(&(agent.clone(), id.clone()))?;
            stored.product.is_active().then(|| stored.document.clone())
        }))
    }

    async fn find_active(&self, agent: &AgentId, ids: &[ProductId]) -> StoreResult<Vec<Product>> {
        Ok(self.with(|s| {
            s.catalog(agent).filter(|p| p.product.is_active() && ids.contains(&p.product.id)).map(|p| p.product.clone()).collect()
        }))
    }

    async fn export_page(&self, agent: &AgentId, after: Option<ProductId>, limit: u32) -> StoreResult<Vec<Product>> {
        // The map is ordered by (agent, `_id`): the agent's range is already in export order.
        Ok(self.with(|s| {
            s.catalog(agent)
                .filter(|p| after.as_ref().is_none_or(|after| p.product.id > *after))
                .take(limit as usize)
                .map(|p| p.product.clone())
                .collect()
        }))
    }

    async fn facets(&self, agent: &AgentId) -> StoreResult<CatalogFacets> {
        Ok(self.with(|s| {
            let mut counts: HashMap<&str, u64> = HashMap::new();
            let mut total_items = 0;
            for p in s.catalog(agent).filter(|p| p.product.is_active()) {
                total_items += 1;
                for tag in &p.product.category_tags {
                    *counts.entry(tag).or_default() += 1;
                }
            }
            let mut categories: Vec<CategoryFacet> =
                counts.into_iter().map(|(name, count)| CategoryFacet { name: name.to_string(), count }).collect();
            categories.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
            CatalogFacets { categories, total_items }
        }))
    }
}
