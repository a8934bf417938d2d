//! Parley's storage adapter: every repository port on diesel + diesel-async, over SQLite (the
//! embedded default) or PostgreSQL (scale-out), picked at runtime from the database URL.
//!
//! Query bodies are written once and expanded per backend by the connection macros of `pool.rs`
//! (`with_conn!`, `read_conn!`, `read_direct!`, `in_transaction!`, …); the schema uses only
//! types both share. Migrations for both are embedded and run by [`Store::migrate`]. Every
//! mechanism, kept copy and count is listed in docs/storage.md.

mod change_probe;
mod checkpoint;
mod column_test;
mod contains;
mod count_shards;
mod dsl;
mod error;
mod fixed_condition;
mod in_list;
mod locks;
mod migrate;
mod pool;
mod prepared;
mod repos;
mod rows;
mod schema;
mod search_keys;
mod statistics;
#[cfg(feature = "testing")]
pub mod testing;

use std::sync::Arc;

use parley_domain::ports::Repositories;

pub use error::DbError;
pub use pool::{DatabaseUrl, PoolOptions};

use pool::Pools;

#[async_trait::async_trait]
impl parley_domain::ports::StorageHealth for Store {
    async fn check(&self) -> parley_domain::ports::StoreResult<()> {
        Ok(self.ping().await?)
    }

    fn backend(&self) -> &'static str {
        self.url.backend()
    }

    fn pool(&self) -> parley_domain::ports::PoolStatus {
        self.pools.status()
    }
}

/// A connection pool to one database, implementing every repository port.
#[derive(Clone)]
pub struct Store {
    pools: Arc<Pools>,
    url: DatabaseUrl,
}

impl Store {
    /// Opens a pool (lazily: no connection is made until first use) to `url`.
    pub fn open(url: &str, options: PoolOptions) -> Result<Self, DbError> {
        let url = DatabaseUrl::parse(url)?;
        let pools = Pools::build(&url, &options)?;
        Ok(Self { pools: Arc::new(pools), url })
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        self.url.backend()
    }

    /// Applies pending migrations, then derives again the kept values a migration asked for
    /// (search keys after their rule changed: `search_keys.rs`); returns the names of the
    /// migrations applied now.
    pub async fn migrate(&self) -> Result<Vec<String>, DbError> {
        let applied = migrate::run(self.url.clone(), None).await?;
        search_keys::refresh_pending(self).await?;
        Ok(applied)
    }

    /// Applies pending migrations up to the one whose name ends with `name`, which is left
    /// pending: a test writes data as it was before that migration, then [`migrate`](Self::migrate)s.
    #[cfg(feature = "testing")]
    pub async fn migrate_before(&self, name: &'static str) -> Result<Vec<String>, DbError> {
        migrate::run(self.url.clone(), Some(name)).await
    }

    /// Runs SQL statements as they are, for tests that write rows the way an older version did.
    #[cfg(feature = "testing")]
    pub async fn execute_sql(&self, sql: &str) -> Result<(), DbError> {
        use diesel_async::SimpleAsyncConnection;
        pool::with_conn!(self, |conn| conn.batch_execute(sql).await.map_err(DbError::from))
    }

    /// The search terms an activity has stored, sorted.
    #[cfg(feature = "testing")]
    pub async fn search_terms(&self, activity: &str) -> Result<Vec<String>, DbError> {
        use diesel::prelude::*;
        use diesel_async::RunQueryDsl;
        use schema::activity_search_terms as t;
        let activity = activity.to_string();
        pool::with_conn!(self, |conn| t::table
            .filter(t::activity_id.eq(&activity))
            .select(t::term)
            .order(t::term)
            .load::<String>(conn)
            .await
            .map_err(DbError::from))
    }

    /// Every row of every table of the store, each as one text (`table: values`; binary
    /// columns hex-encoded): what an erasure test searches for anything left of a person.
    #[cfg(feature = "testing")]
    pub async fn every_row_as_text(&self) -> Result<Vec<String>, DbError> {
        use diesel_async::RunQueryDsl;
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Text)]
            row: String,
        }
        let sqlite = self.backend() == "sqlite";
        pool::with_conn!(self, |conn| {
            let tables_sql = if sqlite {
                "SELECT name AS row FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            } else {
                "SELECT tablename::text AS row FROM pg_tables WHERE schemaname = current_schema()"
            };
            let tables: Vec<Row> = diesel::sql_query(tables_sql).load(conn).await.map_err(DbError::from)?;
            let mut rows = Vec::new();
            for table in tables.into_iter().map(|t| t.row) {
                let select = if sqlite {
                    let columns: Vec<Row> =
                        diesel::sql_query(format!("SELECT name || ':' || upper(type) AS row FROM pragma_table_info('{table}')"))
                            .load(conn)
                            .await
                            .map_err(DbError::from)?;
                    let values: Vec<String> = columns
                        .iter()
                        .map(|c| {
                            let (name, kind) = c.row.split_once(':').unwrap_or((&c.row, ""));
                            if kind.contains("BLOB") || kind.contains("BINARY") {
                                format!("COALESCE(hex(\"{name}\"), '')")
                            } else {
                                format!("COALESCE(CAST(\"{name}\" AS TEXT), '')")
                            }
                        })
                        .collect();
                    format!("SELECT '{table}: ' || {} AS row FROM \"{table}\"", values.join(" || ' | ' || "))
                } else {
                    format!("SELECT '{table}: ' || row_to_json(t)::text AS row FROM \"{table}\" t")
                };
                let found: Vec<Row> = diesel::sql_query(select).load(conn).await.map_err(DbError::from)?;
                rows.extend(found.into_iter().map(|r| r.row));
            }
            Ok(rows)
        })
    }

    /// What the migrations built, backend-neutral and sorted: `table.column` for every column and
    /// `index name on table(columns)` for every index the migrations name (not the ones a
    /// primary key or a unique constraint makes on its own), diesel's own bookkeeping left out.
    #[cfg(feature = "testing")]
    pub async fn schema_outline(&self) -> Result<Vec<String>, DbError> {
        use diesel_async::RunQueryDsl;
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Text)]
            row: String,
        }
        let (columns_sql, indexes_sql) = if self.backend() == "sqlite" {
            (
                "SELECT m.name || '.' || c.name AS row FROM sqlite_master m, pragma_table_info(m.name) c \
                 WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '__diesel%'",
                "SELECT 'index ' || m.name || ' on ' || m.tbl_name || '(' || \
                 (SELECT group_concat(COALESCE(name, 'expression'), ', ') FROM (SELECT name FROM pragma_index_info(m.name) ORDER BY seqno)) || ')' AS row \
                 FROM sqlite_master m WHERE m.type = 'index' AND m.sql IS NOT NULL",
            )
        } else {
            (
                "SELECT table_name || '.' || column_name AS row FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name NOT LIKE '__diesel%'",
                "SELECT 'index ' || i.relname::text || ' on ' || t.relname::text || '(' || \
                 (SELECT string_agg(COALESCE(a.attname::text, 'expression'), ', ' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) \
                  LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) || ')' AS row \
                 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid \
                 JOIN pg_namespace ns ON ns.oid = t.relnamespace \
                 WHERE ns.nspname = current_schema() AND t.relname NOT LIKE '__diesel%' \
                 AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)",
            )
        };
        pool::with_conn!(self, |conn| {
            let mut outline: Vec<String> =
                diesel::sql_query(columns_sql).load::<Row>(conn).await.map_err(DbError::from)?.into_iter().map(|r| r.row).collect();
            let indexes: Vec<Row> = diesel::sql_query(indexes_sql).load(conn).await.map_err(DbError::from)?;
            outline.extend(indexes.into_iter().map(|r| r.row));
            outline.sort();
            Ok(outline)
        })
    }

    /// The search terms this version writes for a contact's lowercased name and channel digits.
    #[cfg(feature = "testing")]
    pub fn expected_search_terms(name: &str, digits: &[&str]) -> Vec<String> {
        repos::activity_search::contact_terms(name, &[], digits)
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> Result<(), DbError> {
        use diesel_async::SimpleAsyncConnection;
        pool::with_conn!(self, |conn| conn.batch_execute("SELECT 1").await.map_err(DbError::from))
    }

    /// Connections in use and the pool's maximum size.
    pub fn pool_usage(&self) -> (usize, usize) {
        let s = self.pools.status();
        (s.size - s.available, s.max_size)
    }

    /// The store behind every repository port.
    pub fn repositories(&self) -> Repositories {
        let s = Arc::new(self.clone());
        Repositories {
            agents: s.clone(),
            keys: s.clone(),
            members: s.clone(),
            sessions: s.clone(),
            sign_in_attempts: s.clone(),
            business_hours: s.clone(),
            first_response: s.clone(),
            reports: s.clone(),
            rules: s.clone(),
            rule_runs: s.clone(),
            routing: s.clone(),
            tags: s.clone(),
            canned_responses: s.clone(),
            contacts: s.clone(),
            activities: s.clone(),
            messages: s.clone(),
            scheduled: s.clone(),
            products: s.clone(),
            vectors: s.clone(),
            carts: s.clone(),
            lines: s.clone(),
            templates: s.clone(),
            executions: s.clone(),
            idempotency: s.clone(),
            inbound: s.clone(),
            webhook_endpoints: s.clone(),
            events: s.clone(),
            files: s.clone(),
            mailboxes: s.clone(),
            health: s.clone(),
            changes: s,
        }
    }
}
