//! Bulk catalog writes, the one place where the backends need different code: PostgreSQL
//! takes multi-row upserts; diesel-async cannot run diesel's SQLite batch insert, so SQLite
//! runs a tight synchronous loop on the connection's blocking thread (statements are cached,
//! so each row costs microseconds). Both run inside the caller's transaction.

use std::future::Future;

use diesel::prelude::{ExpressionMethods, Insertable, QueryDsl};
use diesel::upsert::excluded;
use parley_domain::ports::ImportProgress;

use crate::error::DbResult;
use crate::schema::{product_categories, products};

#[derive(Insertable, Clone)]
#[diesel(table_name = products)]
pub(crate) struct ProductInsert {
    pub agent_id: String,
    pub id: String,
    pub status: String,
    pub kind: String,
    pub document: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// The catalog revision of the import writing the row (set inside its transaction).
    pub revision: i64,
    pub embedder: Option<String>,
    pub embedding: Option<Vec<u8>>,
}

#[derive(Insertable, Clone)]
#[diesel(table_name = product_categories)]
pub(crate) struct CategoryInsert {
    pub agent_id: String,
    pub tag: String,
    pub product_id: String,
    pub kind: String,
    pub created_at: i64,
    /// The product's integer key, which category pages join on: known once its row is written
    /// ([`Batch::keyed`]).
    pub product_pk: i64,
}

/// Products to upsert and the category rows that replace theirs.
pub(crate) struct Batch {
    pub products: Vec<ProductInsert>,
    pub categories: Vec<CategoryInsert>,
}

impl Batch {
    /// The category rows with their products' keys, from `(id, pk)` of the rows written.
    fn keyed(&mut self, keys: impl IntoIterator<Item = (String, i64)>) -> diesel::QueryResult<&[CategoryInsert]> {
        let keys: std::collections::HashMap<String, i64> = keys.into_iter().collect();
        for row in &mut self.categories {
            row.product_pk = *keys.get(&row.product_id).ok_or_else(|| {
                diesel::result::Error::DeserializationError(format!("the upsert returned no key for product {}", row.product_id).into())
            })?;
        }
        Ok(&self.categories)
    }
}

/// Imports at least this large refresh PostgreSQL's planner statistics.
#[cfg(feature = "postgres")]
const ANALYZE_AFTER: usize = 1000;

pub(crate) trait BulkWrite {
    fn write_batches(&mut self, agent: &str, batches: Vec<Batch>, progress: ImportProgress) -> impl Future<Output = DbResult<()>> + Send;
}

macro_rules! upsert_changes {
    () => {
        (
            products::status.eq(excluded(products::status)),
            products::kind.eq(excluded(products::kind)),
            products::document.eq(excluded(products::document)),
            products::created_at.eq(excluded(products::created_at)),
            products::updated_at.eq(excluded(products::updated_at)),
            products::revision.eq(excluded(products::revision)),
            products::embedder.eq(excluded(products::embedder)),
            products::embedding.eq(excluded(products::embedding)),
        )
    };
}

#[cfg(feature = "postgres")]
impl BulkWrite for crate::pool::PgConn {
    async fn write_batches(&mut self, agent: &str, batches: Vec<Batch>, progress: ImportProgress) -> DbResult<()> {
        use diesel_async::RunQueryDsl;
        let mut done = 0;
        for mut batch in batches {
            let keys: Vec<(String, i64)> = diesel::insert_into(products::table)
                .values(&batch.products)
                .on_conflict((products::agent_id, products::id))
                .do_update()
                .set(upsert_changes!())
                .returning((products::id, products::pk))
                .get_results(self)
                .await?;
            let ids: Vec<&str> = batch.products.iter().map(|p| p.id.as_str()).collect();
            diesel::delete(
                product_categories::table
                    .filter(product_categories::agent_id.eq(agent))
                    .filter(product_categories::product_id.eq_any(&ids)),
            )
            .execute(self)
            .await?;
            let categories = batch.keyed(keys)?;
            if !categories.is_empty() {
                diesel::insert_into(product_categories::table).values(categories).execute(self).await?;
            }
            done += batch.products.len();
            progress(done);
        }
        if done >= ANALYZE_AFTER {
            // Fresh statistics, so the planner does not plan a large catalog as an empty one.
            diesel_async::SimpleAsyncConnection::batch_execute(self, "ANALYZE products; ANALYZE product_categories;").await?;
        }
        Ok(())
    }
}

#[cfg(feature = "sqlite")]
impl BulkWrite for crate::pool::SqliteConn {
    async fn write_batches(&mut self, agent: &str, batches: Vec<Batch>, progress: ImportProgress) -> DbResult<()> {
        let agent = agent.to_string();
        self.spawn_blocking(move |conn| {
            use diesel::RunQueryDsl;
            let mut done = 0;
            for mut batch in batches {
                let mut keys = Vec::with_capacity(batch.products.len());
                for row in &batch.products {
                    let pk: i64 = diesel::insert_into(products::table)
                        .values(row)
                        .on_conflict((products::agent_id, products::id))
                        .do_update()
                        .set(upsert_changes!())
                        .returning(products::pk)
                        .get_result(conn)?;
                    keys.push((row.id.clone(), pk));
                    diesel::delete(
                        product_categories::table
                            .filter(product_categories::agent_id.eq(&agent))
                            .filter(product_categories::product_id.eq(&row.id)),
                    )
                    .execute(conn)?;
                }
                for row in batch.keyed(keys)? {
                    diesel::insert_into(product_categories::table).values(row).execute(conn)?;
                }
                done += batch.products.len();
                progress(done);
            }
            Ok(())
        })
        .await?;
        Ok(())
    }
}
