//! Products' search vectors and the catalog revisions that let every process follow changes.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use parley_domain::model::*;
use parley_domain::ports::{ProductVectorRepository, StoreResult};

use super::products::{ProductRow, next_revision, to_domain};
use crate::Store;
use crate::error::DbError;
use crate::pool::{in_transaction, with_conn};
use crate::rows::{decode_vector, encode_vector};
use crate::schema::{catalog_revisions, products};

/// `(id, revision, status, kind, document, embedder, embedding)` of a changed product.
type ChangeRow = (String, i64, String, String, String, Option<String>, Option<Vec<u8>>);

/// The one part of a stored product document the index needs besides its vector and kind.
#[derive(serde::Deserialize)]
struct CategoryTags {
    #[serde(default)]
    category_tags: Vec<String>,
}

fn searchable(kind: &str, document: &str, embedding: &[u8]) -> Result<Searchable, DbError> {
    let kind = ProductKind::parse(kind).map_err(|_| DbError::Corrupt(format!("product kind {kind}")))?;
    let tags: CategoryTags = serde_json::from_str(document).map_err(|e| DbError::Corrupt(format!("product document: {e}")))?;
    Ok(Searchable { vector: decode_vector(embedding)?, kind, category_tags: tags.category_tags })
}

fn revision_of(raw: i64) -> Result<u64, DbError> {
    u64::try_from(raw).map_err(|_| DbError::Corrupt(format!("catalog revision {raw}")))
}

#[async_trait]
impl ProductVectorRepository for Store {
    async fn revisions(&self) -> StoreResult<Vec<(AgentId, u64)>> {
        let rows: Vec<(String, i64)> = with_conn!(self, |conn| catalog_revisions::table
            .select((catalog_revisions::agent_id, catalog_revisions::revision))
            .order(catalog_revisions::agent_id.asc())
            .load(conn)
            .await
            .map_err(DbError::from))?;
        Ok(rows.into_iter().map(|(a, r)| Ok((AgentId::new(a), revision_of(r)?))).collect::<Result<_, DbError>>()?)
    }

    async fn changes(&self, agent: &AgentId, embedder: &str, after: &ChangeCursor, limit: u32) -> StoreResult<Vec<VectorChange>> {
        let revision = i64::try_from(after.revision).map_err(|_| DbError::Corrupt(format!("catalog revision {}", after.revision)))?;
        let rows: Vec<ChangeRow> = with_conn!(self, |conn| {
            // `revision >= r` bounds the index range, so each page starts where the last ended.
            let mut q = products::table.filter(products::agent_id.eq(agent.as_str())).filter(products::revision.ge(revision)).into_boxed();
            q = match &after.product {
                Some(id) => q.filter(products::revision.gt(revision).or(products::id.gt(id.as_str()))),
                None => q.filter(products::revision.gt(revision)),
            };
            q.order((products::revision.asc(), products::id.asc()))
                .limit(i64::from(limit))
                .select((
                    products::id,
                    products::revision,
                    products::status,
                    products::kind,
                    products::document,
                    products::embedder,
                    products::embedding,
                ))
                .load(conn)
                .await
                .map_err(DbError::from)
        })?;
        let active = ProductStatus::Active.as_str();
        let changes = rows
            .into_iter()
            .map(|(id, revision, status, kind, document, made_by, embedding)| {
                let searchable = match (status == active && made_by.as_deref() == Some(embedder), embedding) {
                    (true, Some(bytes)) => Some(searchable(&kind, &document, &bytes)?),
                    _ => None,
                };
                Ok(VectorChange { product: ProductId::lookup(id), revision: revision_of(revision)?, searchable })
            })
            .collect::<Result<_, DbError>>()?;
        Ok(changes)
    }

    async fn needing_vectors<'a>(
        &self,
        agent: &AgentId,
        embedder: &str,
        after: Option<&'a ProductId>,
        limit: u32,
        all: bool,
    ) -> StoreResult<Vec<Product>> {
        let after = after.map_or("", ProductId::as_str);
        let rows: Vec<ProductRow> = with_conn!(self, |conn| {
            let mut q = products::table.filter(products::agent_id.eq(agent.as_str())).filter(products::id.gt(after)).into_boxed();
            if !all {
                q = q.filter(products::embedder.is_null().or(products::embedder.ne(embedder)));
            }
            q.order(products::id.asc()).limit(i64::from(limit)).select(ProductRow::as_select()).load(conn).await.map_err(DbError::from)
        })?;
        Ok(to_domain(rows)?)
    }

    async fn store_vectors(&self, agent: &AgentId, embedder: &str, vectors: &[(ProductId, Vec<f32>)]) -> StoreResult<()> {
        if vectors.is_empty() {
            return Ok(());
        }
        let agent = agent.as_str();
        let encoded: Vec<(&str, Vec<u8>)> = vectors.iter().map(|(id, v)| (id.as_str(), encode_vector(v))).collect();
        in_transaction!(self, |conn| {
            let revision = next_revision!(conn, agent);
            for (id, bytes) in &encoded {
                diesel::update(products::table.filter(products::agent_id.eq(agent)).filter(products::id.eq(*id)))
                    .set((products::embedder.eq(embedder), products::embedding.eq(bytes), products::revision.eq(revision)))
                    .execute(conn)
                    .await?;
            }
            Ok(())
        })?;
        Ok(())
    }

    async fn count_missing(&self, embedder: &str) -> StoreResult<u64> {
        let n: i64 = with_conn!(self, |conn| products::table
            .filter(products::status.eq(ProductStatus::Active.as_str()))
            .filter(products::embedder.is_null().or(products::embedder.ne(embedder)))
            .count()
            .get_result(conn)
            .await
            .map_err(DbError::from))?;
        Ok(n as u64)
    }
}
