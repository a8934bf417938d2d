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
/// A SQLite connection whose queries run on the calling thread: see [`read_conn!`].
#[cfg(feature = "sqlite")]
pub(crate) type SqliteReadConn = diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection, Inline>;
/// SQLite's write connection: its statements run on the calling thread too, see
/// [`in_transaction!`].
#[cfg(feature = "sqlite")]
pub(crate) type SqliteWriteConn = SqliteReadConn;

/// Runs a SQLite connection's work at once on the calling thread instead of handing it to
/// tokio's blocking pool. For short indexed reads the hand-off (two thread wake-ups per query)
/// cost more than the query: it was the largest cost of a get or list request.
#[cfg(feature = "sqlite")]
pub(crate) struct Inline;

#[cfg(feature = "sqlite")]
impl diesel_async::sync_connection_wrapper::SpawnBlocking for Inline {
    fn spawn_blocking<'a, R>(
        &mut self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> futures_util::future::BoxFuture<'a, Result<R, Box<dyn std::error::Error + Send + Sync + 'static>>>
    where
        R: Send + 'static,
    {
        Box::pin(std::future::ready(Ok(task())))
    }

    fn get_runtime() -> Self {
        Inline
    }
}

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
    /// Three pools over the same file: long reads on tokio's blocking pool, short indexed reads
    /// inline (see [`read_conn!`]), and writes on one connection of their own (`writes`), taken
    /// after the turn every write waits for (`writer`, [`WriterTurn`]). SQLite has one writer
    /// anyway; one connection keeps its page cache warm from write to write, where a write on
    /// any of the blocking pool's connections found the pages the previous one changed stale
    /// and read them again.
    /// `probe` reads the file's `data_version` for [`ChangeProbe`](parley_domain::ports::ChangeProbe).
    #[cfg(feature = "sqlite")]
    Sqlite {
        blocking: Pool<SqliteConn>,
        inline: Pool<SqliteReadConn>,
        writes: Pool<SqliteWriteConn>,
        writer: WriterTurn,
        probe: crate::change_probe::SqliteProbe,
    },
}

/// The turn to write on SQLite: one write (a transaction, [`in_transaction!`], or a statement,
/// [`write_conn!`]) at a time per process, handed out in arrival order (tokio's mutex is fair).
/// SQLite has one writer anyway; left to the busy handler, a waiting writer sleeps and polls
/// (naps of up to 100 ms), so under 64 writers the unlucky ones waited seconds (`cargo xtask
/// bench writes`). Another process (a catalog import) still meets this one through the busy
/// timeout.
#[cfg(feature = "sqlite")]
pub(crate) struct WriterTurn {
    turn: tokio::sync::Mutex<()>,
    /// As long as a request may wait for a connection ([`PoolOptions::wait_timeout`]).
    wait: Duration,
}

#[cfg(feature = "sqlite")]
impl WriterTurn {
    /// Waits for the turn; past the wait, unavailable (503) like an exhausted pool.
    pub(crate) async fn take(&self) -> Result<tokio::sync::MutexGuard<'_, ()>, DbError> {
        tokio::time::timeout(self.wait, self.turn.lock())
            .await
            .map_err(|_| DbError::Pool(format!("no turn to write within {} ms", self.wait.as_millis())))
    }

    /// Waits for the turn however long it takes: for a catalog import, which no request waits on.
    pub(crate) async fn take_patiently(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.turn.lock().await
    }
}

/// Per-connection SQLite settings: a busy timeout so writers queue instead of failing, WAL for
/// concurrent readers, foreign keys for cascades, NORMAL sync (safe with WAL), and writers
/// checkpointing the log only past 40,000 pages (see `checkpoint.rs`). The busy timeout comes first: setting the journal mode takes a lock, and
/// without the timeout a connection opened while another one writes failed at once with
/// "database is locked".
#[cfg(feature = "sqlite")]
pub(crate) const SQLITE_PRAGMAS: &str = "PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
     PRAGMA foreign_keys = ON; PRAGMA wal_autocheckpoint = 40000;";

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
            DatabaseUrl::Sqlite(path) => Ok(Pools::Sqlite {
                blocking: sqlite_pool(path, options)?,
                inline: sqlite_pool(path, options)?,
                writes: sqlite_pool(path, &PoolOptions { max_size: 1, ..options.clone() })?,
                writer: WriterTurn { turn: tokio::sync::Mutex::new(()), wait: options.wait_timeout },
                probe: crate::change_probe::SqliteProbe::new(path),
            }),
            #[cfg_attr(
                all(feature = "sqlite", feature = "postgres"),
                expect(unreachable_patterns, reason = "with both backends compiled in, the arms above cover every database URL")
            )]
            other => Err(DbError::Url(format!("{} support was not compiled in", other.backend()))),
        }
    }

    /// The probe of SQLite's `data_version`; none on PostgreSQL.
    pub(crate) fn change_probe(&self) -> Option<&crate::change_probe::SqliteProbe> {
        match self {
            #[cfg(feature = "sqlite")]
            Pools::Sqlite { probe, .. } => Some(probe),
            #[cfg_attr(
                not(feature = "postgres"),
                expect(unreachable_patterns, reason = "with SQLite alone compiled in, the arm above covers every pool")
            )]
            _ => None,
        }
    }

    /// This process's turn to write on SQLite ([`WriterTurn`]); nothing to wait for on
    /// PostgreSQL, where writers lock rows, not the database.
    pub(crate) async fn writer_turn(&self) -> Result<Option<tokio::sync::MutexGuard<'_, ()>>, DbError> {
        match self {
            #[cfg(feature = "sqlite")]
            Pools::Sqlite { writer, .. } => writer.take().await.map(Some),
            #[cfg_attr(
                not(feature = "postgres"),
                expect(unreachable_patterns, reason = "with SQLite alone compiled in, the arm above covers every pool")
            )]
            _ => Ok(None),
        }
    }

    /// The pool's connections right now, for metrics (SQLite's two pools summed).
    pub(crate) fn status(&self) -> PoolStatus {
        let of = |s: deadpool::Status| PoolStatus { max_size: s.max_size, size: s.size, available: s.available, waiting: s.waiting };
        match self {
            #[cfg(feature = "postgres")]
            Pools::Pg(p) => of(p.status()),
            #[cfg(feature = "sqlite")]
            Pools::Sqlite { blocking, inline, writes, .. } => {
                let pools = [of(blocking.status()), of(inline.status()), of(writes.status())];
                pools.into_iter().fold(PoolStatus { max_size: 0, size: 0, available: 0, waiting: 0 }, |sum, p| PoolStatus {
                    max_size: sum.max_size + p.max_size,
                    size: sum.size + p.size,
                    available: sum.available + p.available,
                    waiting: sum.waiting + p.waiting,
                })
            }
        }
    }
}

/// A pool of SQLite connections (either kind) with [`SQLITE_PRAGMAS`] applied to each.
#[cfg(feature = "sqlite")]
fn sqlite_pool<S>(
    path: &str,
    options: &PoolOptions,
) -> Result<Pool<diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection, S>>, DbError>
where
    S: diesel_async::sync_connection_wrapper::SpawnBlocking + Send + Sync + 'static,
{
    use diesel_async::{AsyncConnection, SimpleAsyncConnection};
    type C<S> = diesel_async::sync_connection_wrapper::SyncConnectionWrapper<diesel::SqliteConnection, S>;
    use diesel_async::pooled_connection::ManagerConfig;
    use futures_util::FutureExt;
    let mut config = ManagerConfig::<C<S>>::default();
    config.recycling_method = RecyclingMethod::Fast;
    let home = tokio::runtime::Handle::try_current().ok();
    config.custom_setup = Box::new(move |path: &str| {
        let path = path.to_string();
        made_at_home(home.clone(), async move {
            let mut conn = C::<S>::establish(&path).await?;
            conn.batch_execute(SQLITE_PRAGMAS).await.map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
            Ok(conn)
        })
        .boxed()
    });
    let manager = AsyncDieselConnectionManager::<C<S>>::new_with_config(path, config);
    sized(Pool::builder(manager), options).build().map_err(|e| DbError::Pool(e.to_string()))
}

/// Makes a SQLite connection on `home`, the runtime that opened the pool, when there is one. A
/// connection hands its queries to the blocking threads of the runtime it was made on, so one
/// made on another runtime (the background workers') failed every query once that runtime ended
/// at shutdown, and the pool handed it out afterwards. (PostgreSQL's connections keep working:
/// `runtimes.rs` in the storage tests holds both to it.)
#[cfg(feature = "sqlite")]
async fn made_at_home<C: Send + 'static>(
    home: Option<tokio::runtime::Handle>,
    connect: impl std::future::Future<Output = diesel::ConnectionResult<C>> + Send + 'static,
) -> diesel::ConnectionResult<C> {
    match home {
        Some(home) => {
            home.spawn(connect).await.map_err(|e| diesel::ConnectionError::BadConnection(format!("the connecting task failed: {e}")))?
        }
        None => connect.await,
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

/// Runs `$body` with `$conn: &mut Connection` of the live backend: on SQLite, a connection of
/// the pool named `$sqlite` (its type `$sqlite_conn`). The body is an expression of type
/// `DbResult<T>`; it is compiled once per backend, so it must be backend-neutral.
macro_rules! on_pool {
    ($store:expr, $sqlite:ident: $sqlite_conn:ty, |$conn:ident| $body:expr) => {{
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let $conn: &mut $crate::pool::PgConn = &mut pooled;
                let result: $crate::error::DbResult<_> = $body;
                result
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite { $sqlite: pool, .. } => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let $conn: &mut $sqlite_conn = &mut pooled;
                let result: $crate::error::DbResult<_> = $body;
                result
            }
        }
    }};
}

/// [`with_conn!`] for a write outside a transaction (one statement): on SQLite it takes the
/// process's turn to write first, as [`in_transaction!`] does.
macro_rules! write_conn {
    ($store:expr, |$conn:ident| $body:expr) => {{
        let _turn = $store.pools.writer_turn().await?;
        $crate::pool::on_pool!($store, writes: $crate::pool::SqliteWriteConn, |$conn| $body)
    }};
}

/// [`on_pool!`] on SQLite's blocking pool: any read, scans included (a write goes through
/// [`write_conn!`] or [`in_transaction!`], on the write connection).
macro_rules! with_conn {
    ($store:expr, |$conn:ident| $body:expr) => {
        $crate::pool::on_pool!($store, blocking: $crate::pool::SqliteConn, |$conn| $body)
    };
}

/// Like [`with_conn!`] for a read whose cost is bounded by an index and a page size (a get, a
/// page of a list). On SQLite it runs on the calling thread, without the hand-off to the
/// blocking pool: such a read takes tens of microseconds, less than the hand-off. Never use it
/// for writes (they may wait on another writer's lock) or for reads that scan (a substring
/// search): those would stall every request of the calling thread.
macro_rules! read_conn {
    ($store:expr, |$conn:ident| $body:expr) => {
        $crate::pool::on_pool!($store, inline: $crate::pool::SqliteReadConn, |$conn| $body)
    };
}

/// Like [`read_conn!`] for the hottest reads (product, activity and contact pages): `$body!` is a
/// macro that builds and runs the queries, expanded once per backend with a mode for [`run!`].
/// On SQLite it runs through diesel's synchronous API on the inline connection, inside one read
/// transaction: rows are decoded where SQLite holds them (the async wrapper copies every row
/// into owned values first, a tenth of a page's profile) and statements of fixed shape are
/// found in the cache by type instead of by their SQL text, rebuilt for every query. The
/// arguments (`$arg`: variables) must be owned, since the SQLite closure takes them along.
/// With `blocking` first, the same on SQLite's blocking pool, for a read that may scan (a search).
/// With `single` first, for a body of one query (a get): no transaction around it, since one
/// statement reads one snapshot anyway.
macro_rules! read_direct {
    ($store:expr, $body:ident!($($arg:ident),* $(,)?)) => {
        $crate::pool::read_direct!(@run $store, inline: $crate::pool::SqliteReadConn, snapshot, $body!($($arg),*))
    };
    ($store:expr, blocking, $body:ident!($($arg:ident),* $(,)?)) => {
        $crate::pool::read_direct!(@run $store, blocking: $crate::pool::SqliteConn, snapshot, $body!($($arg),*))
    };
    ($store:expr, single, $body:ident!($($arg:ident),* $(,)?)) => {
        $crate::pool::read_direct!(@run $store, inline: $crate::pool::SqliteReadConn, as_is, $body!($($arg),*))
    };
    (@run $store:expr, $sqlite:ident: $sqlite_conn:ty, $tx:ident, $body:ident!($($arg:ident),* $(,)?)) => {{
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::PgConn = &mut pooled;
                let result: $crate::error::DbResult<_> = async { Ok($body!(awaited, conn, $($arg),*)) }.await;
                result
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite { $sqlite: pool, .. } => {
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $sqlite_conn = &mut pooled;
                let result: diesel::QueryResult<$crate::error::DbResult<_>> = conn
                    .spawn_blocking(move |raw: &mut diesel::SqliteConnection| {
                        Ok($crate::pool::read_direct!(@$tx raw, |conn| Ok($body!(direct, conn, $($arg),*))))
                    })
                    .await;
                result.map_err($crate::error::DbError::from).and_then(|r| r)
            }
        }
    }};
    (@snapshot $raw:ident, |$conn:ident| $body:expr) => {
        diesel::Connection::transaction::<_, $crate::error::DbError, _>($raw, |$conn| $body)
    };
    (@as_is $raw:ident, |$conn:ident| $body:expr) => {{
        let $conn = $raw;
        let result: $crate::error::DbResult<_> = (|| $body)();
        result
    }};
}

/// Runs one query in a [`read_direct!`] body: `awaited` through diesel-async, `direct` through
/// diesel's synchronous API. `load` gives every row, `optional` the first row if any; errors
/// return from the body.
macro_rules! run {
    (awaited, load, $conn:expr, $query:expr) => {
        diesel_async::RunQueryDsl::load($query, $conn).await?
    };
    (direct, load, $conn:expr, $query:expr) => {
        diesel::RunQueryDsl::load($query, $conn)?
    };
    (awaited, optional, $conn:expr, $query:expr) => {
        diesel::OptionalExtension::optional(diesel_async::RunQueryDsl::first($query, $conn).await)?
    };
    (direct, optional, $conn:expr, $query:expr) => {
        diesel::OptionalExtension::optional(diesel::RunQueryDsl::first($query, $conn))?
    };
    (awaited, one, $conn:expr, $query:expr) => {
        diesel_async::RunQueryDsl::get_result($query, $conn).await?
    };
    (direct, one, $conn:expr, $query:expr) => {
        diesel::RunQueryDsl::get_result($query, $conn)?
    };
}

/// Like [`with_conn!`] inside one write transaction. On SQLite it waits for the process's
/// [`WriterTurn`], then runs as `BEGIN IMMEDIATE`, so a writer of another process (an import)
/// queues on the busy timeout instead of failing when it upgrades a read lock. Its statements
/// run on the calling thread, as [`read_conn!`]'s do: handed to the blocking pool one by one,
/// each cost two thread wake-ups while the turn was held, and the turn is what every write
/// waits for (webhook ingestion ran at 400 messages/s using under half the machine). Holding
/// the turn, nothing in this process competes for SQLite's lock; only another process's write
/// (an operator's command) can make a statement wait, up to the busy timeout.
/// On PostgreSQL a transaction aborted by a deadlock or a serialization failure runs again from
/// the start, up to [`TRANSACTION_ATTEMPTS`] times in all, so the body must be safe to run
/// twice (it is: it only reads its captures). Writers take their locks in one order
/// (`locks.rs`), so a retry is the exception, not the rule.
macro_rules! in_transaction {
    ($store:expr, |$conn:ident| $body:expr) => {{
        match &*$store.pools {
            #[cfg(feature = "postgres")]
            $crate::pool::Pools::Pg(pool) => {
                use diesel_async::AsyncConnection as _;
                let mut pooled = pool.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::PgConn = &mut pooled;
                $crate::pool::in_transaction!(@retried conn, |$conn| $body)
            }
            #[cfg(feature = "sqlite")]
            $crate::pool::Pools::Sqlite { writes, writer, .. } => {
                let _turn = writer.take().await?;
                let mut pooled = writes.get().await.map_err($crate::error::DbError::from)?;
                let conn: &mut $crate::pool::SqliteWriteConn = &mut pooled;
                $crate::pool::in_transaction!(@immediate conn, |$conn| $body)
            }
        }
    }};
    // diesel-async's `immediate_transaction`, which only its blocking connection has: BEGIN
    // IMMEDIATE, the body, then commit, or roll back on its error.
    (@immediate $pooled:ident, |$conn:ident| $body:expr) => {{
        use diesel_async::TransactionManager as _;
        type Manager = <$crate::pool::SqliteWriteConn as diesel_async::AsyncConnection>::TransactionManager;
        $pooled
            .spawn_blocking(|c| diesel::connection::AnsiTransactionManager::begin_transaction_sql(c, "BEGIN IMMEDIATE"))
            .await
            .map_err($crate::error::DbError::from)?;
        let result: $crate::error::DbResult<_> = async {
            let $conn = &mut *$pooled;
            $body
        }
        .await;
        match result {
            Ok(value) => Manager::commit_transaction($pooled).await.map(|()| value).map_err($crate::error::DbError::from),
            Err(e) => {
                Manager::rollback_transaction($pooled).await.map_err($crate::error::DbError::from)?;
                Err(e)
            }
        }
    }};
    (@retried $pooled:ident, |$conn:ident| $body:expr) => {{
        let mut attempt = 1;
        loop {
            match $pooled.transaction::<_, $crate::error::DbError, _>(async |$conn| $body).await {
                Err(e) if e.is_transient_conflict() && attempt < $crate::pool::TRANSACTION_ATTEMPTS => {
                    tracing::debug!(attempt, error = %e, "transaction conflicted: running it again");
                    tokio::time::sleep($crate::pool::retry_pause(attempt)).await;
                    attempt += 1;
                }
                result => break result,
            }
        }
    }};
}

/// How many times [`in_transaction!`] runs a transaction that keeps conflicting before the
/// conflict is answered as unavailable (503): enough to ride out a burst, bounded so a request
/// never loops.
pub(crate) const TRANSACTION_ATTEMPTS: u32 = 5;

/// The pause before attempt `attempt + 1`: exponential with full jitter, so the transactions
/// that collided do not collide again in step (1–4 ms, then up to 8, 16, 32 ms).
pub(crate) fn retry_pause(attempt: u32) -> Duration {
    let ceiling = 2u64 << attempt.min(10);
    Duration::from_millis(1 + rand::random_range(0..ceiling))
}

pub(crate) use {in_transaction, on_pool, read_conn, read_direct, run, with_conn, write_conn};

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
