//! Throwaway databases for tests, so tests run in parallel and never share rows.
//!
//! PostgreSQL tests use the server at `PARLEY_TEST_POSTGRES_URL`, else `DATABASE_URL` when it
//! is a postgres URL, else `postgres://postgres@127.0.0.1:5432/test`. Each test gets a schema
//! of its own (selected through the connection's `search_path`), dropped when the test ends;
//! leftovers of crashed runs are swept after two hours. An unreachable server fails the test:
//! PostgreSQL tests never skip silently.

#![expect(clippy::unwrap_used, reason = "tests: a failed unwrap is a failed test")]

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};

use crate::{PoolOptions, Store};

const DEFAULT_POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/test";
const SCHEMA_PREFIX: &str = "parley_test_";

/// The PostgreSQL server tests use.
pub fn postgres_admin_url() -> String {
    if let Ok(url) = std::env::var("PARLEY_TEST_POSTGRES_URL") {
        return url;
    }
    match std::env::var("DATABASE_URL") {
        Ok(url) if url.starts_with("postgres") => url,
        _ => DEFAULT_POSTGRES.to_string(),
    }
}

/// A fresh, migrated, empty database; removed on drop.
pub struct TestDb {
    pub store: Store,
    /// The URL a second process can open to reach the same data.
    pub url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    Dir(#[expect(dead_code, reason = "held only so the directory is deleted when the database is dropped")] tempfile::TempDir),
    Schema { admin_url: String, schema: String },
}

impl TestDb {
    pub async fn sqlite() -> Self {
        Self::unmigrated_sqlite().await.migrated().await
    }

    pub async fn postgres() -> Self {
        Self::unmigrated_postgres().await.migrated().await
    }

    /// `sqlite` or `postgres`, by name, for tests parameterized over backends.
    pub async fn of(backend: &str) -> Self {
        Self::unmigrated(backend).await.migrated().await
    }

    /// Like [`of`](Self::of) but without any table yet: for tests of a migration, which first
    /// apply those before it ([`Store::migrate_before`]).
    pub async fn unmigrated(backend: &str) -> Self {
        match backend {
            "sqlite" => Self::unmigrated_sqlite().await,
            "postgres" => Self::unmigrated_postgres().await,
            other => panic!("unknown backend {other}"),
        }
    }

    async fn migrated(self) -> Self {
        self.store.migrate().await.unwrap_or_else(|e| panic!("migrate {}: {e}", self.store.backend()));
        self
    }

    async fn unmigrated_sqlite() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("test.db").display());
        let store = Store::open(&url, PoolOptions::default()).expect("open sqlite");
        Self { store, url, cleanup: Cleanup::Dir(dir) }
    }

    async fn unmigrated_postgres() -> Self {
        static SEQ: AtomicU32 = AtomicU32::new(0);
        let admin_url = postgres_admin_url();
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
        let schema = format!("{SCHEMA_PREFIX}{now}_{}_{}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed));

        let mut admin = AsyncPgConnection::establish(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL tests need a server at {admin_url} (set PARLEY_TEST_POSTGRES_URL): {e}"));
        sweep_stale_schemas(&mut admin, now).await;
        admin.batch_execute(&format!("CREATE SCHEMA {schema}")).await.expect("create schema");

        let sep = if admin_url.contains('?') { '&' } else { '?' };
        // Named after the schema, so that the cleanup can end what a test left connected.
        let url = format!("{admin_url}{sep}options=-c%20search_path%3D{schema}&application_name={schema}");
        let store = Store::open(&url, PoolOptions { max_size: 8, ..PoolOptions::default() }).expect("open postgres");
        Self { store, url, cleanup: Cleanup::Schema { admin_url, schema } }
    }
}

/// Drops schemas that crashed runs left behind (older than two hours).
async fn sweep_stale_schemas(admin: &mut AsyncPgConnection, now: u64) {
    use diesel::prelude::*;
    use diesel_async::RunQueryDsl;
    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = diesel::sql_types::Text)]
        nspname: String,
    }
    let names: Vec<Name> = diesel::sql_query(format!("SELECT nspname FROM pg_namespace WHERE nspname LIKE '{SCHEMA_PREFIX}%'"))
        .load(admin)
        .await
        .unwrap_or_default();
    for Name { nspname } in names {
        let created: Option<u64> = nspname.strip_prefix(SCHEMA_PREFIX).and_then(|rest| rest.split('_').next()).and_then(|s| s.parse().ok());
        if created.is_some_and(|c| c + 7200 < now) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {nspname} CASCADE")).await;
        }
    }
}

/// The tables the query planner has statistics for: `sqlite_stat1` on SQLite, those `ANALYZE`d
/// in the test's own schema on PostgreSQL. Sorted.
pub async fn analyzed_tables(store: &Store) -> Vec<String> {
    tables_with_statistics(store).await.expect("statistics are readable")
}

async fn tables_with_statistics(store: &Store) -> Result<Vec<String>, crate::error::DbError> {
    use diesel::QueryableByName;
    use diesel::sql_types::Text;
    use diesel_async::RunQueryDsl;

    #[derive(QueryableByName)]
    struct Table {
        #[diesel(sql_type = Text)]
        name: String,
    }
    let sqlite = store.backend() == "sqlite";
    let tables: Vec<Table> = crate::pool::with_conn!(store, |conn| async {
        if sqlite {
            // SQLite creates its statistics table at the first analysis.
            let kept: Vec<Table> = diesel::sql_query("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'").load(conn).await?;
            if kept.is_empty() {
                return Ok(Vec::new());
            }
            diesel::sql_query("SELECT DISTINCT tbl AS name FROM sqlite_stat1 ORDER BY name").load(conn).await
        } else {
            diesel::sql_query(
                "SELECT relname::text AS name FROM pg_stat_user_tables \
                 WHERE schemaname = current_schema() AND last_analyze IS NOT NULL ORDER BY name",
            )
            .load(conn)
            .await
        }
        .map_err(crate::error::DbError::from)
    }
    .await)?;
    Ok(tables.into_iter().map(|t| t.name).collect())
}

/// Runs one writing statement `sql` on the store's write connection and returns how many rows
/// it changed: for tests that need rows in a state the API never writes (a claim made minutes
/// ago, say, to stand for the time a real retry waits).
pub async fn execute(store: &Store, sql: &str) -> usize {
    async fn run(store: &Store, sql: &str) -> Result<usize, crate::error::DbError> {
        use diesel_async::RunQueryDsl;
        crate::pool::write_conn!(store, |conn| diesel::sql_query(sql).execute(conn).await.map_err(crate::error::DbError::from))
    }
    run(store, sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Cleanup::Schema { admin_url, schema } = &self.cleanup {
            let (admin_url, schema) = (admin_url.clone(), schema.clone());
            // Drop runs inside the test's runtime, which cannot be blocked on: use a thread.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                rt.block_on(async {
                    if let Ok(mut admin) = AsyncPgConnection::establish(&admin_url).await {
                        // A connection the test left inside a transaction (a worker stopped
                        // between a claim's statements) holds locks the drop would wait on for
                        // ever: end those connections first, and bound the wait regardless.
                        let _ = admin
                            .batch_execute(&format!(
                                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '{schema}'; \
                                 SET lock_timeout = '30s'; DROP SCHEMA IF EXISTS {schema} CASCADE"
                            ))
                            .await;
                    }
                });
            })
            .join();
        }
    }
}
