//! Embedded migrations, one folder per backend with the same migration names.

use diesel::Connection;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::error::DbError;
use crate::pool::DatabaseUrl;

#[cfg(feature = "postgres")]
const POSTGRES: EmbeddedMigrations = embed_migrations!("migrations/postgres");
#[cfg(feature = "sqlite")]
const SQLITE: EmbeddedMigrations = embed_migrations!("migrations/sqlite");

/// Serializes migrations across processes that start together on one PostgreSQL.
#[cfg(feature = "postgres")]
const PG_MIGRATION_LOCK: i64 = 0x7061_726c_6579; // "parley"

/// Diesel's migration harness is synchronous, so it runs on a thread of its own; this works
/// from any runtime flavor (actix's workers are current-thread).
/// With `before`, stops before the migration of that name (tests of a migration's data changes).
pub(crate) async fn run(url: DatabaseUrl, before: Option<&'static str>) -> Result<Vec<String>, DbError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let _ = tx.send(run_blocking(&url, before));
    });
    rx.await.map_err(|_| DbError::Migration("the migration thread panicked".into()))?
}

fn names<M: std::fmt::Display>(applied: Vec<M>) -> Vec<String> {
    applied.into_iter().map(|m| m.to_string()).collect()
}

/// The pending migrations in order, up to `before` (excluded) when given.
fn apply<B, C>(conn: &mut C, source: EmbeddedMigrations, before: Option<&str>) -> diesel::migration::Result<Vec<String>>
where
    B: diesel::backend::Backend,
    C: MigrationHarness<B>,
{
    let Some(before) = before else {
        return conn.run_pending_migrations(source).map(names);
    };
    let mut applied = Vec::new();
    for migration in conn.pending_migrations(source)? {
        if migration.name().to_string().ends_with(before) {
            break;
        }
        applied.push(conn.run_migration(&migration)?.to_string());
    }
    Ok(applied)
}

fn run_blocking(url: &DatabaseUrl, before: Option<&str>) -> Result<Vec<String>, DbError> {
    let failed = |e: Box<dyn std::error::Error + Send + Sync>| DbError::Migration(e.to_string());
    match url {
        #[cfg(feature = "postgres")]
        DatabaseUrl::Postgres(u) => {
            use diesel::connection::SimpleConnection;
            use diesel_async::AsyncPgConnection;
            use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
            let mut conn = AsyncConnectionWrapper::<AsyncPgConnection>::establish(u).map_err(|e| DbError::Connect(e.to_string()))?;
            conn.batch_execute(&format!("SELECT pg_advisory_lock({PG_MIGRATION_LOCK})"))?;
            let result = apply(&mut conn, POSTGRES, before).map_err(failed);
            conn.batch_execute(&format!("SELECT pg_advisory_unlock({PG_MIGRATION_LOCK})"))?;
            result
        }
        #[cfg(feature = "sqlite")]
        DatabaseUrl::Sqlite(path) => {
            use diesel::connection::SimpleConnection;
            let mut conn = diesel::SqliteConnection::establish(path).map_err(|e| DbError::Connect(e.to_string()))?;
            conn.batch_execute(crate::pool::SQLITE_PRAGMAS)?;
            apply(&mut conn, SQLITE, before).map_err(failed)
        }
        #[cfg_attr(
            all(feature = "sqlite", feature = "postgres"),
            expect(unreachable_patterns, reason = "with both backends compiled in, the arms above cover every database URL")
        )]
        other => Err(DbError::Url(format!("{} support was not compiled in", other.backend()))),
    }
}
