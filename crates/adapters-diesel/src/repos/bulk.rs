//! Bulk catalog writes, where the backends take different code paths (as locks, statistics,
//! migrations and the `in_list`/`contains` helpers also do; docs/storage.md lists them). An
//! import is staged, then published inside its write transaction (see [`staged_transaction!`]).
//!
//! PostgreSQL stages nothing: it takes multi-row upserts inside the transaction, and its row
//! locks keep other writers (other tables, other agents' rows) going meanwhile.
//!
//! SQLite has one write lock for the whole file, and an import that wrote its rows under it held
//! it for seconds (8.3 s for 100,000 products in a debug build), so API writes of any tenant
//! waited past their 5 s busy timeout and failed. So SQLite stages the rows first, outside the
//! write transaction, into TEMP tables of the connection that will publish them: a connection's
//! temp database is its own (another file, private locks), so staging takes none of the main
//! database's locks and nobody else sees the rows. Then the write transaction publishes them with
//! a few `INSERT … SELECT` statements run inside SQLite (no statement per row). A killed import
//! leaves nothing to clean up: the temp tables go with the connection, and an uncommitted publish
//! rolls back as any transaction does. (diesel-async cannot run diesel's SQLite batch insert, so
//! staging is a tight synchronous loop on the connection's blocking thread; statements are
//! cached, so each row costs microseconds.)

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

/// Staging and publishing an import's batches on one connection (see the module's comment).
pub(crate) trait BulkWrite {
    /// What [`stage`](Self::stage) hands to [`publish`](Self::publish).
    type Staged: Send;
    /// Before the write transaction: prepares the batches without taking the database's write lock.
    fn stage(&mut self, batches: Vec<Batch>, progress: ImportProgress) -> impl Future<Output = DbResult<Self::Staged>> + Send;
    /// Inside the write transaction: upserts the staged products with `revision` and replaces
    /// their category rows.
    fn publish(&mut self, agent: &str, revision: i64, staged: Self::Staged) -> impl Future<Output = DbResult<()>> + Send;
    /// After the transaction, committed or not: frees what staging kept.
    fn unstage(&mut self) -> impl Future<Output = DbResult<()>> + Send;
}

/// Like [`in_transaction!`](crate::pool::in_transaction) for an import: on one connection,
/// stages `$batches` ([`BulkWrite::stage`], outside the transaction), runs `$body` in the write
/// transaction with the staged rows as `$staged` (for [`BulkWrite::publish`]), then unstages.
macro_rules! staged_transaction {
    ($store:expr, $batches:expr, $progress:expr, |$conn:ident, $staged:ident| $body:expr) => {{
        use $crate::repos::bulk::BulkWrite as _;
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                use diesel_async::AsyncConnection as _;
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::PgConn = &mut pooled;
                let $staged = conn.stage($batches, $progress).await?;
                let result = conn.transaction::<_, $crate::error::DbError, _>(async |$conn| $body).await;
                conn.unstage().await?;
                result
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite { blocking, writer, .. } => {
                let mut pooled = blocking.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::SqliteConn = &mut pooled;
                let staged = conn.stage($batches, $progress).await;
                let result = match staged {
                    Ok($staged) => {
                        // Publishing takes this process's writer turn, as `in_transaction!` does.
                        let _turn = writer.take_patiently().await;
                        conn.immediate_transaction::<_, $crate::error::DbError, _>(async |$conn| $body).await
                    }
                    Err(e) => Err(e),
                };
                // Always: the staged rows may be hundreds of megabytes on a pooled connection.
                let freed = conn.unstage().await;
                result.and_then(|r| freed.map(|()| r))
            }
        }
    }};
}
pub(crate) use staged_transaction;

#[cfg(feature = "postgres")]
impl BulkWrite for crate::pool::PgConn {
    /// The batches and the progress callback, written by [`publish`](BulkWrite::publish).
    type Staged = (Vec<Batch>, ImportProgress);

    async fn stage(&mut self, batches: Vec<Batch>, progress: ImportProgress) -> DbResult<Self::Staged> {
        Ok((batches, progress))
    }

    async fn publish(&mut self, agent: &str, revision: i64, (batches, progress): Self::Staged) -> DbResult<()> {
        use diesel_async::RunQueryDsl;
        let mut done = 0;
        for mut batch in batches {
            for row in &mut batch.products {
                row.revision = revision;
            }
            let keys: Vec<(String, i64)> = diesel::insert_into(products::table)
                .values(&batch.products)
                .on_conflict((products::agent_id, products::id))
                .do_update()
                // Every column but the keys; in step with SQLite's `PUBLISH_PRODUCTS`.
                .set((
                    products::status.eq(excluded(products::status)),
                    products::kind.eq(excluded(products::kind)),
                    products::document.eq(excluded(products::document)),
                    products::created_at.eq(excluded(products::created_at)),
                    products::updated_at.eq(excluded(products::updated_at)),
                    products::revision.eq(excluded(products::revision)),
                    products::embedder.eq(excluded(products::embedder)),
                    products::embedding.eq(excluded(products::embedding)),
                ))
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

    async fn unstage(&mut self) -> DbResult<()> {
        Ok(())
    }
}

#[cfg(feature = "sqlite")]
mod staging {
    diesel::table! {
        /// An import's products, in file order (`seq`), before they are published.
        import_products (seq) {
            seq -> BigInt,
            agent_id -> Text,
            id -> Text,
            status -> Text,
            kind -> Text,
            document -> Text,
            created_at -> BigInt,
            updated_at -> BigInt,
            embedder -> Nullable<Text>,
            embedding -> Nullable<Binary>,
        }
    }

    diesel::table! {
        /// The category rows of the staged products (their keys are known only once published).
        import_categories (agent_id, tag, product_id) {
            agent_id -> Text,
            tag -> Text,
            product_id -> Text,
            kind -> Text,
            created_at -> BigInt,
        }
    }

    /// TEMP tables: in the connection's own temp database, never in the shared file.
    pub(super) const CREATE: &str = "
        CREATE TEMP TABLE IF NOT EXISTS import_products (
            seq INTEGER PRIMARY KEY, agent_id TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL,
            kind TEXT NOT NULL, document TEXT NOT NULL, created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL, embedder TEXT, embedding BLOB);
        CREATE TEMP TABLE IF NOT EXISTS import_categories (
            agent_id TEXT NOT NULL, tag TEXT NOT NULL, product_id TEXT NOT NULL, kind TEXT NOT NULL,
            created_at BIGINT NOT NULL, PRIMARY KEY (agent_id, tag, product_id));
        DELETE FROM temp.import_products;
        DELETE FROM temp.import_categories;";

    pub(super) const DROP: &str = "DROP TABLE IF EXISTS temp.import_products; DROP TABLE IF EXISTS temp.import_categories;";

    /// Upserts the staged products, in file order, with the import's revision (`?1`). (`WHERE
    /// true`: without it SQLite would read `ON CONFLICT` as a join's `ON`.)
    pub(super) const PUBLISH_PRODUCTS: &str = "
        INSERT INTO main.products (agent_id, id, status, kind, document, created_at, updated_at, revision, embedder, embedding)
        SELECT agent_id, id, status, kind, document, created_at, updated_at, ?1, embedder, embedding
        FROM temp.import_products WHERE true ORDER BY seq
        ON CONFLICT (agent_id, id) DO UPDATE SET status = excluded.status, kind = excluded.kind,
            document = excluded.document, created_at = excluded.created_at, updated_at = excluded.updated_at,
            revision = excluded.revision, embedder = excluded.embedder, embedding = excluded.embedding";

    /// The staged products' category rows replace theirs (`?1`: the agent), keyed by the
    /// products' integer keys, known now. Each key is a lookup by the products' primary key:
    /// as a join, SQLite's planner (no statistics on a temp table) walked the agent's products
    /// and probed the staged rows for each, minutes for a large re-import.
    pub(super) const DROP_CATEGORIES: &str = "
        DELETE FROM main.product_categories
        WHERE agent_id = ?1 AND product_id IN (SELECT id FROM temp.import_products)";
    pub(super) const PUBLISH_CATEGORIES: &str = "
        INSERT INTO main.product_categories (agent_id, tag, product_id, kind, created_at, product_pk)
        SELECT c.agent_id, c.tag, c.product_id, c.kind, c.created_at,
            (SELECT p.pk FROM main.products p WHERE p.agent_id = c.agent_id AND p.id = c.product_id)
        FROM temp.import_categories c";
}

#[cfg(feature = "sqlite")]
impl BulkWrite for crate::pool::SqliteConn {
    type Staged = ();

    async fn stage(&mut self, batches: Vec<Batch>, progress: ImportProgress) -> DbResult<()> {
        self.spawn_blocking(move |conn| {
            use diesel::connection::SimpleConnection;
            use diesel::{Connection, RunQueryDsl};
            use staging::{import_categories as ic, import_products as ip};
            conn.batch_execute(staging::CREATE)?;
            // One (deferred) transaction: it writes only the temp database, so it takes only
            // the temp database's lock; the main database stays free for other writers.
            conn.transaction(|conn| {
                let (mut seq, mut done) = (0_i64, 0);
                for batch in batches {
                    for row in &batch.products {
                        seq += 1;
                        diesel::insert_into(ip::table)
                            .values((
                                ip::seq.eq(seq),
                                ip::agent_id.eq(&row.agent_id),
                                ip::id.eq(&row.id),
                                ip::status.eq(&row.status),
                                ip::kind.eq(&row.kind),
                                ip::document.eq(&row.document),
                                ip::created_at.eq(row.created_at),
                                ip::updated_at.eq(row.updated_at),
                                ip::embedder.eq(&row.embedder),
                                ip::embedding.eq(&row.embedding),
                            ))
                            .execute(conn)?;
                    }
                    for row in &batch.categories {
                        diesel::insert_into(ic::table)
                            .values((
                                ic::agent_id.eq(&row.agent_id),
                                ic::tag.eq(&row.tag),
                                ic::product_id.eq(&row.product_id),
                                ic::kind.eq(&row.kind),
                                ic::created_at.eq(row.created_at),
                            ))
                            .execute(conn)?;
                    }
                    done += batch.products.len();
                    progress(done);
                }
                diesel::QueryResult::Ok(())
            })
        })
        .await?;
        Ok(())
    }

    async fn publish(&mut self, agent: &str, revision: i64, (): ()) -> DbResult<()> {
        use diesel::sql_types::{BigInt, Text};
        use diesel_async::RunQueryDsl;
        diesel::sql_query(staging::PUBLISH_PRODUCTS).bind::<BigInt, _>(revision).execute(self).await?;
        diesel::sql_query(staging::DROP_CATEGORIES).bind::<Text, _>(agent).execute(self).await?;
        diesel::sql_query(staging::PUBLISH_CATEGORIES).execute(self).await?;
        Ok(())
    }

    async fn unstage(&mut self) -> DbResult<()> {
        diesel_async::SimpleAsyncConnection::batch_execute(self, staging::DROP).await?;
        Ok(())
    }
}
