//! One pool per backend, chosen at runtime from the URL, and the macros that run one query
//! body on whichever backend is live (the body is written once and compiled per backend).

use std::time::Duration;

use deadpool::Runtime;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::pooled_connection::RecyclingMethod;
use diesel_async::pooled_connection::deadpool::Pool;

use parley_domain::ports::PoolStatus;

use crate::error::DbError;

#[cfg(feature = "postgres")]
pub(crate) type PgConn = diesel_async::AsyncPgConnection;
#[cfg(feature = "sqlite")]
pub(crate) type SqliteConn = diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection>;

/// Where the data lives, parsed from `DATABASE_URL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    /// `sqlite://PATH` or `sqlite:PATH`; the file is created when missing.
    Sqlite(String),
    /// `postgres://…` or `postgresql://…`, passed to the driver unchanged.
    Postgres(String),
}

impl DatabaseUrl {
    pub fn parse(raw: &str) -> Result<Self, DbError> {
        if raw.starts_with("postgres://") || raw.starts_with("postgresql://") {
            return Ok(Self::Postgres(raw.to_string()));
        }
        let path = raw.strip_prefix("sqlite://").or_else(|| raw.strip_prefix("sqlite:")).ok_or_else(|| DbError::Url(raw.to_string()))?;
        if path.is_empty() {
            return Err(DbError::Url(raw.to_string()));
        }
        Ok(Self::Sqlite(path.to_string()))
    }

    pub fn backend(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }
}

// Connections are recycled with `RecyclingMethod::Fast`: the default (`Verified`) runs a ping
// query at every checkout, one extra database round trip per query. A connection that broke
// (the database restarted) fails its next query, which answers 503, and the pool drops it.

/// Pool sizing and the bounds that keep a database fault from hanging requests.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    pub max_size: usize,
    /// How long a request may wait for a free connection (and for a new one to be opened,
    /// and an idle one to be checked) before it fails fast as unavailable.
    pub wait_timeout: Duration,
    /// PostgreSQL only: the server cancels any statement running longer (`statement_timeout`),
    /// so a stuck query cannot hold a connection forever. `None`: no limit.
    pub statement_timeout: Option<Duration>,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self { max_size: 16, wait_timeout: Duration::from_secs(5), statement_timeout: Some(Duration::from_secs(30)) }
    }
}

pub(crate) enum Pools {
    #[cfg(feature = "postgres")]
    Pg(Pool<PgConn>),
    #[cfg(feature = "sqlite")]
    Sqlite(Pool<SqliteConn>),
}

/// Per-connection SQLite settings: a busy timeout so writers queue instead of failing, WAL for
/// concurrent readers, foreign keys for cascades, NORMAL sync (safe with WAL). The busy timeout
/// comes first: setting the journal mode takes a lock, and without the timeout a connection
/// opened while another one writes failed at once with "database is locked".
#[cfg(feature = "sqlite")]
pub(crate) const SQLITE_PRAGMAS: &str =
    "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;";

impl Pools {
    pub(crate) fn build(url: &DatabaseUrl, options: &PoolOptions) -> Result<Self, DbError> {
        match url {
            #[cfg(feature = "postgres")]
            DatabaseUrl::Postgres(u) => {
                use diesel_async::pooled_connection::ManagerConfig;
                use diesel_async::{AsyncConnection, SimpleAsyncConnection};
                use futures_util::FutureExt;
                let mut config = ManagerConfig::<PgConn>::default();
                config.recycling_method = RecyclingMethod::Fast;
                let setup = options.statement_timeout.map(|t| format!("SET statement_timeout = {}", t.as_millis().max(1)));
                config.custom_setup = Box::new(move |url: &str| {
                    let (url, setup) = (url.to_string(), setup.clone());
                    async move {
                        let mut conn = PgConn::establish(&url).await?;
                        if let Some(setup) = setup {
                            conn.batch_execute(&setup).await.map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                        }
                        Ok(conn)
                    }
                    .boxed()
                });
                let manager = AsyncDieselConnectionManager::<PgConn>::new_with_config(u.as_str(), config);
                let pool = sized(Pool::builder(manager), options).build().map_err(|e| DbError::Pool(e.to_string()))?;
                Ok(Pools::Pg(pool))
            }
            #[cfg(feature = "sqlite")]
            DatabaseUrl::Sqlite(path) => {
                use diesel_async::pooled_connection::ManagerConfig;
                use diesel_async::{AsyncConnection, SimpleAsyncConnection};
                use futures_util::FutureExt;
                let mut config = ManagerConfig::<SqliteConn>::default();
                config.recycling_method = RecyclingMethod::Fast;
                config.custom_setup = Box::new(|path: &str| {
                    let path = path.to_string();
                    async move {
                        let mut conn = SqliteConn::establish(&path).await?;
                        conn.batch_execute(SQLITE_PRAGMAS).await.map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                        Ok(conn)
                    }
                    .boxed()
                });
                let manager = AsyncDieselConnectionManager::<SqliteConn>::new_with_config(path.as_str(), config);
                let pool = sized(Pool::builder(manager), options).build().map_err(|e| DbError::Pool(e.to_string()))?;
                Ok(Pools::Sqlite(pool))
            }
            #[allow(unreachable_patterns)]
            other => Err(DbError::Url(format!("{} support was not compiled in", other.backend()))),
        }
    }

    /// The pool's connections right now, for metrics.
    pub(crate) fn status(&self) -> PoolStatus {
        let s = match self {
            #[cfg(feature = "postgres")]
            Pools::Pg(p) => p.status(),
            #[cfg(feature = "sqlite")]
            Pools::Sqlite(p) => p.status(),
        };
        PoolStatus { max_size: s.max_size, size: s.size, available: s.available, waiting: s.waiting }
    }
}

/// Applies size and timeouts: without a wait timeout an exhausted pool would hang requests.
fn sized<M: deadpool::managed::Manager>(
    builder: deadpool::managed::PoolBuilder<M>,
    options: &PoolOptions,
) -> deadpool::managed::PoolBuilder<M> {
    builder
        .max_size(options.max_size)
        .wait_timeout(Some(options.wait_timeout))
        .create_timeout(Some(options.wait_timeout))
        .recycle_timeout(Some(options.wait_timeout))
        .runtime(Runtime::Tokio1)
}

/// Runs `$body` with `$conn: &mut Connection` of the live backend. The body is an expression
/// of type `DbResult<T>`; it is compiled once per backend, so it must be backend-neutral.
macro_rules! with_conn {
    ($store:expr, |$conn:ident| $body:expr) => {{
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let $conn: &mut $crate::pool::PgConn = &mut pooled;
                let result: $crate::error::DbResult<_> = $body;
                result
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite(pool) => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let $conn: &mut $crate::pool::SqliteConn = &mut pooled;
                let result: $crate::error::DbResult<_> = $body;
                result
            }
        }
    }};
}

/// Like [`with_conn!`] inside one write transaction. On SQLite it is `BEGIN IMMEDIATE`, so
/// concurrent writers queue on the busy timeout instead of failing when they upgrade a read lock.
macro_rules! in_transaction {
    ($store:expr, |$conn:ident| $body:expr) => {{
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                use diesel_async::AsyncConnection as _;
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::PgConn = &mut pooled;
                conn.transaction::<_, $crate::error::DbError, _>(async |$conn| $body).await
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite(pool) => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::SqliteConn = &mut pooled;
                conn.immediate_transaction::<_, $crate::error::DbError, _>(async |$conn| $body).await
            }
        }
    }};
}

pub(crate) use {in_transaction, with_conn};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_the_backend() {
        assert_eq!(DatabaseUrl::parse("sqlite://parley.db").unwrap(), DatabaseUrl::Sqlite("parley.db".into()));
        assert_eq!(DatabaseUrl::parse("sqlite:/tmp/x.db").unwrap(), DatabaseUrl::Sqlite("/tmp/x.db".into()));
        assert!(matches!(DatabaseUrl::parse("postgres://u@h/db").unwrap(), DatabaseUrl::Postgres(_)));
        assert!(DatabaseUrl::parse("mysql://x").is_err());
        assert!(DatabaseUrl::parse("sqlite://").is_err());
    }
}
