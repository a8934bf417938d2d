use std::collections::HashMap;

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ImportProgress, ProductRepository, StoreResult};

use super::bulk::{Batch, CategoryInsert, ProductInsert, staged_transaction};
use crate::Store;
use crate::error::DbError;
use crate::in_list::in_list;
use crate::pool::{read_conn, read_direct, run, with_conn};
use crate::rows::{encode_vector, from_millis, millis};
use crate::schema::{catalog_facets, product_categories, products};

/// Raises the agent's catalog revision by one and returns it. Inside a write transaction: on
/// PostgreSQL the row lock it takes serializes the agent's catalog writes until commit (SQLite
/// writers are serialized anyway), which is what lets readers trust a visible revision.
macro_rules! next_revision {
    ($conn:expr, $agent:expr) => {{
        use crate::schema::catalog_revisions as cr;
        let revision: i64 = diesel::insert_into(cr::table)
            .values((cr::agent_id.eq($agent), cr::revision.eq(1_i64)))
            .on_conflict(cr::agent_id)
            .do_update()
            .set(cr::revision.eq(cr::revision + 1_i64))
            .returning(cr::revision)
            .get_result($conn)
            .await?;
        revision
    }};
}
pub(crate) use next_revision;

/// Rows per INSERT: well under SQLite's bound-parameter limit, large enough to amortize round trips.
const IMPORT_BATCH: usize = 500;

const FACET_CATEGORY: &str = "category";
const FACET_KIND: &str = "kind";
const FACET_TOTAL: &str = "total";
/// Counts of one tag among one kind's products, so `tag` + `kind` totals are lookups too.
const FACET_CATEGORY_PRODUCT: &str = "category:product";
const FACET_CATEGORY_SERVICE: &str = "category:service";

fn category_kind_facet(kind: &str) -> &'static str {
    if kind == ProductKind::Service.as_str() { FACET_CATEGORY_SERVICE } else { FACET_CATEGORY_PRODUCT }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = products)]
pub(crate) struct ProductRow {
    agent_id: String,
    status: String,
    document: String,
    created_at: i64,
    updated_at: i64,
}

impl ProductRow {
    pub(crate) fn into_domain(self) -> Result<Product, DbError> {
        let mut record: ProductRecord =
            serde_json::from_str(&self.document).map_err(|e| DbError::Corrupt(format!("product document: {e}")))?;
        record.status = Some(self.status);
        // The document's timestamps are the columns' (written together): take the columns
        // rather than parse the same times again from text.
        (record.created_at, record.updated_at) = (None, None);
        let (created_at, updated_at) = (from_millis(self.created_at)?, from_millis(self.updated_at)?);
        let agent = AgentId::new(self.agent_id);
        Product::from_record(&agent, record, updated_at, Some(created_at))
            .map_err(|e| DbError::Corrupt(format!("stored product no longer validates: {}", e[0].field)))
    }
}

pub(crate) fn to_domain(rows: Vec<ProductRow>) -> Result<Vec<Product>, DbError> {
    rows.into_iter().map(ProductRow::into_domain).collect()
}

/// What a page or a get reads: a published product's stored document, timestamps included,
/// nothing to decode.
#[derive(Queryable, Selectable)]
#[diesel(table_name = products)]
struct DocumentRow {
    document: String,
}

impl DocumentRow {
    fn into_document(self) -> Result<ProductDocument, DbError> {
        ProductDocument::from_stored(self.document).map_err(|e| DbError::Corrupt(e.to_string()))
    }
}

/// One page of published documents and the page's total (a kept facet), as [`read_direct!`]
/// runs it: `$mode` says how each query runs.
macro_rules! page_of_documents {
    ($mode:ident, $conn:ident, $agent:ident, $facet:ident, $name:ident, $tag:ident, $kind:ident, $limit:ident, $offset:ident) => {{
        let (agent, kind): (&str, Option<&str>) = ($agent.as_str(), $kind.as_deref());
        let total: Option<i64> = run!(
            $mode,
            optional,
            $conn,
            catalog_facets::table
                .filter(catalog_facets::agent_id.eq(agent))
                .filter(catalog_facets::facet.eq($facet.as_str()))
                .filter(catalog_facets::name.eq($name.as_str()))
                .select(catalog_facets::count)
        );
        // Queries of fixed shape, one per filter combination, never boxed: diesel finds them in
        // the statement cache by type, where a boxed query has its SQL built again every time.
        let rows: Vec<DocumentRow> = match $tag.as_deref() {
            // By tag: the category index in page order, joined to each product's row by its
            // integer key (on SQLite the rowid: one descent, where the (agent, id) key cost two).
            // (Ids first and then the documents by id list was two statements and a
            // reordering: 60% slower.)
            Some(tag) => {
                let q = product_categories::table
                    .inner_join(products::table.on(products::pk.eq(product_categories::product_pk)))
                    .filter(product_categories::agent_id.eq(agent))
                    .filter(product_categories::tag.eq(tag))
                    .order((product_categories::created_at.desc(), product_categories::product_id.desc()))
                    .limit($limit)
                    .offset($offset)
                    .select(DocumentRow::as_select());
                match kind {
                    Some(kind) => run!($mode, load, $conn, q.filter(product_categories::kind.eq(kind))),
                    None => run!($mode, load, $conn, q),
                }
            }
            None => {
                let q = products::table
                    .filter(products::agent_id.eq(agent))
                    .filter(products::status.eq(ProductStatus::Active.as_str()))
                    .order((products::created_at.desc(), products::id.desc()))
                    .limit($limit)
                    .offset($offset)
                    .select(DocumentRow::as_select());
                match kind {
                    Some(kind) => run!($mode, load, $conn, q.filter(products::kind.eq(kind))),
                    None => run!($mode, load, $conn, q),
                }
            }
        };
        (total.unwrap_or(0), rows)
    }};
}

/// The agent's published product `$id`, if any, run as `$mode` says (see [`run!`]).
macro_rules! one_document {
    ($mode:ident, $conn:ident, $agent:ident, $id:ident) => {{
        let row: Option<DocumentRow> = run!(
            $mode,
            optional,
            $conn,
            products::table
                .filter(products::agent_id.eq($agent.as_str()))
                .filter(products::id.eq($id.as_str()))
                .filter(products::status.eq(ProductStatus::Active.as_str()))
                .select(DocumentRow::as_select())
        );
        row
    }};
}

/// `(categories as (name, count), total)` of the agent's catalog facets, each a range of their
/// key, run as `$mode` says (see [`run!`]). (As one query with `facet IN (…)`, SQLite's planner
/// scanned the whole table and probed the list for each row.)
macro_rules! facet_rows {
    ($mode:ident, $conn:ident, $agent:ident) => {{
        let of = |facet: &'static str| {
            catalog_facets::table.filter(catalog_facets::agent_id.eq($agent.as_str())).filter(catalog_facets::facet.eq(facet))
        };
        let categories: Vec<(String, i64)> =
            run!($mode, load, $conn, of(FACET_CATEGORY).select((catalog_facets::name, catalog_facets::count)));
        let total: Option<i64> = run!($mode, optional, $conn, of(FACET_TOTAL).select(catalog_facets::count));
        (categories, total)
    }};
}

#[async_trait]
impl ProductRepository for Store {
    async fn import<'a>(
        &self,
        agent: &AgentId,
        items: &[Product],
        vectors: Option<&'a ImportVectors>,
        progress: ImportProgress,
    ) -> StoreResult<()> {
        if let Some(v) = vectors
            && v.vectors.len() != items.len()
        {
            return Err(DbError::Corrupt(format!("{} vectors for {} products", v.vectors.len(), items.len())).into());
        }
        let agent = agent.as_str();
        let mut batches: Vec<Batch> = Vec::new();
        for (start, chunk) in (0..).step_by(IMPORT_BATCH).zip(items.chunks(IMPORT_BATCH)) {
            let mut batch = Batch { products: Vec::with_capacity(chunk.len()), categories: Vec::new() };
            for (i, p) in chunk.iter().enumerate() {
                let vector = vectors.map(|v| (v.embedder.clone(), encode_vector(&v.vectors[start + i])));
                batch.products.push(ProductInsert {
                    agent_id: agent.to_string(),
                    id: p.id.as_str().to_string(),
                    status: p.status.as_str().to_string(),
                    kind: p.kind.as_str().to_string(),
                    document: ProductDocument::of(p).into_string(),
                    created_at: millis(p.created_at),
                    updated_at: millis(p.updated_at),
                    revision: 0,
                    embedder: vector.as_ref().map(|(e, _)| e.clone()),
                    embedding: vector.map(|(_, v)| v),
                });
                if p.is_active() {
                    batch.categories.extend(p.category_tags.iter().map(|t| CategoryInsert {
                        agent_id: agent.to_string(),
                        tag: t.clone(),
                        product_id: p.id.as_str().to_string(),
                        kind: p.kind.as_str().to_string(),
                        created_at: millis(p.created_at),
                        product_pk: 0,
                    }));
                }
            }
            batches.push(batch);
        }

        // The write lock (SQLite) or the revision row's lock (PostgreSQL) is held from here to
        // the commit: logged, since on SQLite every other writer waits that long.
        let mut locked = None;
        staged_transaction!(self, batches, progress, |conn, staged| {
            locked = Some(std::time::Instant::now());
            let revision = next_revision!(conn, agent);
            conn.publish(agent, revision, staged).await?;

            // Recount from the index tables: the facets are read on every categories request.
            let by_kind: Vec<(String, String, i64)> = product_categories::table
                .filter(product_categories::agent_id.eq(agent))
                .group_by((product_categories::tag, product_categories::kind))
                .select((product_categories::tag, product_categories::kind, diesel::dsl::count_star()))
                .load(conn)
                .await?;
            let mut categories: HashMap<String, i64> = HashMap::new();
            for (tag, _, n) in &by_kind {
                *categories.entry(tag.clone()).or_default() += n;
            }
            let kinds: Vec<(String, i64)> = products::table
                .filter(products::agent_id.eq(agent))
                .filter(products::status.eq(ProductStatus::Active.as_str()))
                .group_by(products::kind)
                .select((products::kind, diesel::dsl::count_star()))
                .load(conn)
                .await?;
            let total: i64 = kinds.iter().map(|(_, n)| n).sum();
            let mut facets: Vec<(&str, String, i64)> = categories.into_iter().map(|(name, n)| (FACET_CATEGORY, name, n)).collect();
            facets.extend(kinds.into_iter().map(|(name, n)| (FACET_KIND, name, n)));
            facets.extend(by_kind.into_iter().map(|(tag, kind, n)| (category_kind_facet(&kind), tag, n)));
            facets.push((FACET_TOTAL, String::new(), total));
            diesel::delete(catalog_facets::table.filter(catalog_facets::agent_id.eq(agent))).execute(conn).await?;
            for (facet, name, n) in &facets {
                diesel::insert_into(catalog_facets::table)
                    .values((
                        catalog_facets::agent_id.eq(agent),
                        catalog_facets::facet.eq(*facet),
                        catalog_facets::name.eq(name.as_str()),
                        catalog_facets::count.eq(*n),
                    ))
                    .execute(conn)
                    .await?;
            }
            Ok(())
        })?;
        let held_ms = locked.map_or(0, |t| t.elapsed().as_millis() as u64);
        tracing::info!(products = items.len(), held_ms, "catalog import published");
        Ok(())
    }

    async fn created_times(&self, agent: &AgentId) -> StoreResult<HashMap<ProductId, Timestamp>> {
        let rows: Vec<(String, i64)> = with_conn!(self, |conn| products::table
            .filter(products::agent_id.eq(agent.as_str()))
            .select((products::id, products::created_at))
            .load(conn)
            .await
            .map_err(DbError::from))?;
        rows.into_iter().map(|(id, t)| Ok((ProductId::lookup(id), from_millis(t)?))).collect::<Result<_, DbError>>().map_err(Into::into)
    }

    async fn list(&self, agent: &AgentId, filter: &ProductFilter, page: PageRequest) -> StoreResult<Page<ProductDocument>> {
        let agent = agent.as_str();
        let kind = filter.kind.map(ProductKind::as_str);
        let tag = filter.tag.as_deref();
        // Every total is a facet kept up to date by imports: listing never counts rows.
        let (facet, name) = match (tag, kind) {
            (None, None) => (FACET_TOTAL, ""),
            (Some(t), None) => (FACET_CATEGORY, t),
            (None, Some(k)) => (FACET_KIND, k),
            (Some(t), Some(k)) => (category_kind_facet(k), t),
        };
        let (facet, name) = (facet.to_string(), name.to_string());
        let (agent, tag, kind) = (agent.to_string(), tag.map(str::to_string), kind.map(str::to_string));
        let (limit, offset) = (i64::from(page.limit()), page.offset() as i64);
        let (total, rows) = read_direct!(self, page_of_documents!(agent, facet, name, tag, kind, limit, offset))?;
        let items = rows.into_iter().map(DocumentRow::into_document).collect::<Result<_, _>>()?;
        Ok(Page { items, total: total as u64, request: page })
    }

    async fn get(&self, agent: &AgentId, id: &ProductId) -> StoreResult<Option<ProductDocument>> {
        let (agent, id) = (agent.as_str().to_string(), id.as_str().to_string());
        let row = read_direct!(self, single, one_document!(agent, id))?;
        Ok(row.map(DocumentRow::into_document).transpose()?)
    }

    async fn find_active(&self, agent: &AgentId, ids: &[ProductId]) -> StoreResult<Vec<Product>> {
        let ids: Vec<&str> = ids.iter().map(ProductId::as_str).collect();
        // By primary key only, the status checked here: given `status = 'active'` too, SQLite's
        // planner picked the listing index and read every active product of the agent (a search
        // or cart took 20 ms at 100,000 products instead of well under one).
        let rows: Vec<ProductRow> = read_conn!(self, |conn| products::table
            .filter(products::agent_id.eq(agent.as_str()))
            .filter(in_list(products::id, &ids))
            .select(ProductRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        let active = rows.into_iter().filter(|row| row.status == ProductStatus::Active.as_str()).collect();
        Ok(to_domain(active)?)
    }

    async fn export_page(&self, agent: &AgentId, after: Option<ProductId>, limit: u32) -> StoreResult<Vec<Product>> {
        let after = after.map(|a| a.as_str().to_string()).unwrap_or_default();
        let rows = with_conn!(self, |conn| products::table
            .filter(products::agent_id.eq(agent.as_str()))
            .filter(products::id.gt(&after))
            .order(products::id.asc())
            .limit(i64::from(limit))
            .select(ProductRow::as_select())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(to_domain(rows)?)
    }

    async fn facets(&self, agent: &AgentId) -> StoreResult<CatalogFacets> {
        let agent = agent.as_str().to_string();
        let (categories, total) = read_direct!(self, facet_rows!(agent))?;
        let mut facets = CatalogFacets {
            categories: categories.into_iter().map(|(name, count)| CategoryFacet { name, count: count as u64 }).collect(),
            total_items: total.unwrap_or(0) as u64,
        };
        facets.categories.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
        Ok(facets)
    }
}
