use crate::error::CHECKED;
use std::collections::HashMap;
use std::sync::Arc;

use crate::error::Violations;
use crate::model::*;
use crate::ports::{AgentRepository, Clock, ProductRepository};
use crate::services::SearchService;
use crate::{DomainError, FieldError};

/// Raw product-list query, validated here.
#[derive(Debug, Clone, Default)]
pub struct ProductListQuery {
    /// Page size, an integer from 1 to 100; 50 when absent.
    pub limit: Option<String>,
    /// Matching products to skip, an integer of 0 or more; 0 when absent.
    pub offset: Option<String>,
    /// A category tag, matched exactly (not validated: an unknown tag keeps nothing).
    pub tag: Option<String>,
    /// `product` or `service`: only products of that kind.
    pub kind: Option<String>,
}

/// One line of an import file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// The line number, as the caller numbered the rows it passed.
    pub line: usize,
    /// What is wrong with it: the parse error, a repeated `_id`, or every broken field rule.
    pub reason: String,
}

/// What an import did (or, in a dry run, would do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ImportSummary {
    /// Products whose `_id` the agent did not have.
    pub inserted: usize,
    /// Products whose `_id` the agent already had (drafts included), replaced.
    pub updated: usize,
}

/// The outcome of validating an import file: every row valid, ready for
/// [`CatalogService::import`].
pub struct ValidatedImport {
    products: Vec<Product>,
    summary: ImportSummary,
}

impl ValidatedImport {
    /// What importing it will do: how many products are new, how many replace stored ones.
    pub fn summary(&self) -> ImportSummary {
        self.summary
    }

    /// How many products it holds: one per row.
    pub fn len(&self) -> usize {
        self.products.len()
    }

    /// Whether the file had no rows.
    pub fn is_empty(&self) -> bool {
        self.products.is_empty()
    }
}

/// The phase of an import that a progress report is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportStage {
    /// Products embedded for search so far.
    Embedding,
    /// Products written so far.
    Writing,
}

/// Receives an import's progress: the stage and the running count of products.
pub type ImportObserver = Arc<dyn Fn(ImportStage, usize) + Send + Sync>;

/// The agent's product catalog: listed and read as documents, imported whole from a file (and
/// embedded for search), exported page by page.
pub struct CatalogService {
    products: Arc<dyn ProductRepository>,
    agents: Arc<dyn AgentRepository>,
    clock: Arc<dyn Clock>,
    search: Arc<SearchService>,
}

impl CatalogService {
    /// A service over these ports; `search` embeds imported products and refreshes the index.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        agents: Arc<dyn AgentRepository>,
        clock: Arc<dyn Clock>,
        search: Arc<SearchService>,
    ) -> Self {
        Self { products, agents, clock, search }
    }

    /// One page of the agent's active products, newest first, those every given filter keeps.
    /// Bad `kind`, `limit` or `offset` values are reported together in `Validation`.
    pub async fn list(&self, agent: &AgentId, q: ProductListQuery) -> Result<Page<ProductDocument>, DomainError> {
        let mut v = Violations::default();
        let kind = q.kind.map(|k| v.check(ProductKind::parse(&k)));
        let page = v.check_all(PageRequest::parse(q.limit.as_deref(), q.offset.as_deref(), PageBounds::PRODUCTS));
        v.finish()?;
        let filter = ProductFilter { tag: q.tag, kind: kind.flatten() };
        Ok(self.products.list(agent, &filter, page.expect(CHECKED)).await?)
    }

    /// An active product's document; `NotFound` (`product`) for drafts, unknown ids and other
    /// agents' products.
    pub async fn get(&self, agent: &AgentId, id: &ProductId) -> Result<ProductDocument, DomainError> {
        self.products.get(agent, id).await?.ok_or(DomainError::not_found("product"))
    }

    /// The categories of the agent's active products with their counts, and the active total.
    pub async fn categories(&self, agent: &AgentId) -> Result<CatalogFacets, DomainError> {
        Ok(self.products.facets(agent).await?)
    }

    /// Checks every row of an import file. `rows` are `(line, parsed record or parse error)`.
    /// Any bad row fails the whole import, with every bad row reported by line
    /// ([`ImportError::Rows`]); an `_id` repeated in the file is bad on every line after its
    /// first. An unknown agent is `NotFound` (`agent`). Nothing is written.
    pub async fn validate_import(
        &self,
        agent: &AgentId,
        rows: Vec<(usize, Result<ProductRecord, String>)>,
    ) -> Result<ValidatedImport, ImportError> {
        self.agents.get(agent).await?.ok_or(DomainError::not_found("agent"))?;
        let stored = self.products.created_times(agent).await?;
        let now = self.clock.now();
        let mut errors = Vec::new();
        let mut products = Vec::with_capacity(rows.len());
        let mut first_line: HashMap<String, usize> = HashMap::new();
        for (line, row) in rows {
            let record = match row {
                Ok(r) => r,
                Err(reason) => {
                    errors.push(RowError { line, reason });
                    continue;
                }
            };
            if let Some(first) = first_line.get(&record.id) {
                errors.push(RowError { line, reason: format!("_id {:?} already appears on line {first}", record.id) });
                continue;
            }
            first_line.insert(record.id.clone(), line);
            let created = stored.get(&ProductId::lookup(record.id.clone())).copied();
            match Product::from_record(agent, record, now, created) {
                Ok(p) => products.push(p),
                Err(fields) => errors.push(RowError { line, reason: describe(&fields) }),
            }
        }
        if !errors.is_empty() {
            return Err(ImportError::Rows(errors));
        }
        let updated = products.iter().filter(|p| stored.contains_key(&p.id)).count();
        Ok(ValidatedImport { summary: ImportSummary { inserted: products.len() - updated, updated }, products })
    }

    /// Embeds every product for search, then writes products and vectors in one transaction, so
    /// an import is searchable as soon as it is visible. Nothing is written if embedding fails.
    /// This process's index is refreshed at once; other processes catch up on their next refresh.
    pub async fn import(
        &self,
        agent: &AgentId,
        validated: ValidatedImport,
        progress: ImportObserver,
    ) -> Result<ImportSummary, DomainError> {
        let embedding = progress.clone();
        let vectors = self.search.embed_products(&validated.products, &move |n| embedding(ImportStage::Embedding, n)).await?;
        self.products.import(agent, &validated.products, Some(&vectors), Arc::new(move |n| progress(ImportStage::Writing, n))).await?;
        if let Err(e) = self.search.refresh().await {
            tracing::warn!(error = %e, "the import is stored, but the search index could not be refreshed yet; it will be on the next refresh");
        }
        Ok(validated.summary)
    }

    /// One page of the export, by `_id`; an empty page means the end.
    pub async fn export_page(&self, agent: &AgentId, after: Option<ProductId>, limit: u32) -> Result<Vec<Product>, DomainError> {
        Ok(self.products.export_page(agent, after, limit).await?)
    }
}

fn describe(fields: &[FieldError]) -> String {
    fields.iter().map(|f| format!("{} {}", f.field, f.issue)).collect::<Vec<_>>().join("; ")
}

/// Why an import file was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Some rows are bad: each is listed once, in the order given. Nothing was written.
    #[error("{} bad row(s); nothing was written", .0.len())]
    Rows(Vec<RowError>),
    /// The check itself failed (unknown agent, storage unavailable).
    #[error(transparent)]
    Domain(#[from] DomainError),
}

impl From<crate::StoreError> for ImportError {
    fn from(e: crate::StoreError) -> Self {
        ImportError::Domain(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{MockAgentRepository, MockClock, MockEmbedder, MockProductRepository, MockProductVectorRepository, MockVectorIndex};
    use serde_json::json;

    fn service(products: MockProductRepository) -> CatalogService {
        let mut agents = MockAgentRepository::new();
        agents
            .expect_get()
            .returning(|id| Ok(Some(Agent { id: id.clone(), name: AgentName::new("A").unwrap(), created_at: chrono::Utc::now() })));
        let mut clock = MockClock::new();
        clock.expect_now().returning(chrono::Utc::now);
        CatalogService::new(Arc::new(products), Arc::new(agents), Arc::new(clock), Arc::new(search(MockEmbedder::new())))
    }

    fn search(embedder: MockEmbedder) -> SearchService {
        let mut index = MockVectorIndex::new();
        index.expect_upsert().return_const(());
        index.expect_remove().return_const(());
        let mut vectors = MockProductVectorRepository::new();
        vectors.expect_revisions().returning(|| Ok(Vec::new()));
        SearchService::new(Arc::new(MockProductRepository::new()), Arc::new(vectors), Arc::new(embedder), Arc::new(index))
    }

    fn row(line: usize, v: serde_json::Value) -> (usize, Result<ProductRecord, String>) {
        (line, serde_json::from_value(v).map_err(|e| e.to_string()))
    }

    fn good(id: &str) -> serde_json::Value {
        json!({"_id": id, "kind": "product", "title": "T", "currency": "USD", "base_price": 1})
    }

    #[tokio::test]
    async fn every_bad_row_is_reported_by_line_and_nothing_is_written() {
        let mut products = MockProductRepository::new();
        products.expect_created_times().returning(|_| Ok(HashMap::new()));
        products.expect_import().never();
        let rows = vec![
            row(1, good("a")),
            (2, Err("expected value".into())),
            row(3, good("a")),
            row(4, json!({"_id": "b", "kind": "x", "title": "T", "currency": "USD", "base_price": 1})),
        ];
        let Err(ImportError::Rows(errors)) = service(products).validate_import(&AgentId::new("agt"), rows).await else { panic!() };
        assert_eq!(errors.iter().map(|e| e.line).collect::<Vec<_>>(), [2, 3, 4]);
        assert!(errors[1].reason.contains("line 1"));
        assert!(errors[2].reason.contains("kind"));
    }

    #[tokio::test]
    async fn counts_inserts_and_updates_against_what_is_stored() {
        let mut products = MockProductRepository::new();
        products.expect_created_times().returning(|_| Ok([(ProductId::lookup("a"), chrono::Utc::now())].into_iter().collect()));
        let validated =
            service(products).validate_import(&AgentId::new("agt"), vec![row(1, good("a")), row(2, good("b"))]).await.ok().unwrap();
        assert_eq!(validated.summary(), ImportSummary { inserted: 1, updated: 1 });
    }

    #[tokio::test]
    async fn an_import_whose_products_cannot_be_embedded_writes_nothing() {
        let mut products = MockProductRepository::new();
        products.expect_created_times().returning(|_| Ok(HashMap::new()));
        products.expect_import().never();
        let mut embedder = MockEmbedder::new();
        embedder.expect_identity().return_const("e@1".to_string());
        embedder.expect_embed().returning(|_| Err(crate::ports::EmbedError::Unavailable("timed out".into())));
        let mut svc = service(products);
        svc.search = Arc::new(search(embedder));
        let validated = svc.validate_import(&AgentId::new("agt"), vec![row(1, good("a"))]).await.ok().unwrap();
        let err = svc.import(&AgentId::new("agt"), validated, Arc::new(|_, _| {})).await.unwrap_err();
        assert!(matches!(err, DomainError::EmbedderFailed(_)), "{err:?}");
    }

    #[tokio::test]
    async fn an_import_stores_one_vector_per_product_then_refreshes_the_index() {
        let mut products = MockProductRepository::new();
        products.expect_created_times().returning(|_| Ok(HashMap::new()));
        products
            .expect_import()
            .withf(|_, items, vectors, _| {
                vectors.is_some_and(|v| v.embedder == "e@1" && v.vectors.len() == items.len() && v.vectors.iter().all(|x| x == &[0.6, 0.8]))
            })
            .times(1)
            .returning(|_, items, _, progress| {
                progress(items.len());
                Ok(())
            });
        let mut embedder = MockEmbedder::new();
        embedder.expect_identity().return_const("e@1".to_string());
        embedder.expect_dimensions().return_const(2usize);
        embedder.expect_embed().returning(|texts| Ok(texts.iter().map(|_| vec![0.6, 0.8]).collect()));
        let mut svc = service(products);
        svc.search = Arc::new(search(embedder));
        let validated = svc.validate_import(&AgentId::new("agt"), vec![row(1, good("a")), row(2, good("b"))]).await.ok().unwrap();
        let stages = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = stages.clone();
        svc.import(&AgentId::new("agt"), validated, Arc::new(move |stage, n| log.lock().unwrap().push((stage, n)))).await.unwrap();
        assert_eq!(*stages.lock().unwrap(), [(ImportStage::Embedding, 2), (ImportStage::Writing, 2)]);
    }

    #[tokio::test]
    async fn product_list_bounds_are_1_to_100_and_kind_is_checked() {
        let svc = service(MockProductRepository::new());
        for q in [
            ProductListQuery { limit: Some("101".into()), ..Default::default() },
            ProductListQuery { limit: Some("0".into()), ..Default::default() },
            ProductListQuery { kind: Some("gadget".into()), ..Default::default() },
        ] {
            assert!(matches!(svc.list(&AgentId::new("a"), q).await, Err(DomainError::Validation(_))));
        }
    }
}
